import type { TokenUsage } from './call.js';

/**
 * An agent's output: the final text plus the steps that led to it (the model's tool calls with their
 * arguments, results or errors, and the messages of a conversation). One trajectory is one sample of the
 * reliability tensor; rules read it (tool-called, tool-order, max-steps, predicates), judges see it rendered,
 * the store keeps it, reports and the dashboard show it. Plain JSON data: it crosses threads, processes and
 * the store as it is.
 */

/** One tool call the model made, and what came of it. */
export interface ToolCallRecord {
  /** The provider's id for the call, when it gives one. */
  id?: string;
  name: string;
  /** The arguments as the model sent them, parsed from JSON; the raw text when they were not JSON (`argumentsText`). */
  arguments: unknown;
  /** The model's arguments text when it did not parse as JSON (then `arguments` is undefined). */
  argumentsText?: string;
  /** What the tool returned (JSON data or text); absent when it failed. */
  result?: unknown;
  /** Why the call gave no result: the tool threw or timed out, the tool is not declared, the arguments failed its schema. */
  error?: string;
  durationMs?: number;
  /** The stored result was cut at the store's limit (the whole result went to the model). */
  truncated?: boolean;
}

export interface TrajectoryMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
}

/** One model call of the agent and the tool calls it asked for. */
export interface TrajectoryStep {
  /** The model's text in this step, if any. */
  text?: string;
  toolCalls: ToolCallRecord[];
  /** The messages this step added to the conversation (a user's turn, the assistant's reply), when it is one. */
  messages?: TrajectoryMessage[];
  usage?: TokenUsage;
  costUsd?: number;
  latencyMs?: number;
  finishReason?: string;
}

/** How an agent's run ended. */
export type TrajectoryEnd =
  /** The model answered without asking for a tool (or the conversation met its stop condition). */
  | 'final'
  /** The step limit ended it: a failure of `max-steps`, not an infrastructure error. */
  | 'max-steps'
  /** A conversation reached its turn limit without meeting its stop condition. */
  | 'max-turns';

/** A tool the agent was given: its name and, when declared, the JSON Schema of its arguments. */
export interface ToolDeclaration {
  name: string;
  description?: string;
  /** JSON Schema of the arguments (`tool-args-valid` checks every call against it). */
  parameters?: Record<string, unknown>;
}

export interface Trajectory {
  steps: TrajectoryStep[];
  /** The tools the agent was given, when known: what `tool-args-valid` checks calls against. */
  tools?: ToolDeclaration[];
  ended?: TrajectoryEnd;
  /** Conversations: the number of user turns. */
  turns?: number;
}

/** Every tool call of a trajectory, in the order they were made. */
export function toolCallsOf(t: Trajectory | undefined): ToolCallRecord[] {
  return t ? t.steps.flatMap((s) => s.toolCalls) : [];
}

/** Tokens summed over the steps that report them; undefined when none does. */
export function trajectoryUsage(t: Trajectory): TokenUsage | undefined {
  let seen = false;
  const sum = { promptTokens: 0, completionTokens: 0 };
  for (const s of t.steps) {
    if (!s.usage) continue;
    seen = true;
    sum.promptTokens += s.usage.promptTokens;
    sum.completionTokens += s.usage.completionTokens;
  }
  return seen ? sum : undefined;
}

/** USD summed over the priced steps; undefined when none is priced. */
export function trajectoryCost(t: Trajectory): number | undefined {
  const priced = t.steps.filter((s) => s.costUsd !== undefined);
  return priced.length ? priced.reduce((a, s) => a + s.costUsd!, 0) : undefined;
}

/**
 * The agent's reply to each user turn of a conversation, in order: a step whose messages hold a user's message starts
 * a turn, and the turn's reply is the text of its last step (absent when the step limit cut it). A trajectory without
 * turns (one task) has one reply, its last step's text.
 */
export function turnReplies(t: Trajectory): string[] {
  const replies: string[] = [];
  let last: TrajectoryStep | undefined;
  const close = () => {
    if (last && last.toolCalls.length === 0) replies.push(last.text ?? '');
  };
  for (const s of t.steps) {
    if (last && s.messages?.some((m) => m.role === 'user')) close();
    last = s;
  }
  close();
  return replies;
}

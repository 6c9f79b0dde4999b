import type { TrajectoryEnd, TrajectoryStep } from '../core/trajectory.js';
import type { InputValue } from '../core/validator.js';
import { AgentSystem, type AgentSystemOptions } from './agent-system.js';
import type { ChatMessage, ChatModel } from './chat-model.js';
import { abortError } from './errors.js';
import { renderTemplate } from './template.js';
import { ProviderError, type GenerateOptions, type Generation } from './types.js';
import { pushAll } from '../core/arrays.js';

/**
 * A conversation as one sample: several user turns, each answered by the agent (its tool loop, agent-system.ts).
 * The user's turns are scripted (the input's `turns`, a list of strings) or written by a simulated user: a model
 * given a persona and a goal, which reads the agent's replies and writes the next message, or the stop marker once
 * its goal is met (or clearly cannot be). The conversation ends when the script runs out, the simulated user stops,
 * the agent's reply contains `stopWhen`, or the turn limit is reached with the user still going (`max-turns`, which
 * the trajectory, the reports and the judge say plainly). A turn cut by the step limit ends it as `max-steps`.
 */

/** What a simulated user writes, alone, when its goal is met or cannot be. */
export const STOP_MARKER = '###STOP###';
export const DEFAULT_MAX_TURNS = 10;

export interface ConversationOptions {
  /** User turns at most (default 10). */
  maxTurns?: number;
  /** Ends the conversation when the agent's reply contains this text (case-insensitive). */
  stopWhen?: string;
  user?: { model: ChatModel; persona: string; goal: string };
}

/** The input's scripted turns (`{ turns: [...] }`), when it has them. */
function scriptedTurns(input: InputValue): string[] | undefined {
  if (typeof input !== 'object' || !Array.isArray(input.turns)) return undefined;
  const turns = input.turns as unknown[];
  if (!turns.length || !turns.every((t) => typeof t === 'string'))
    throw new ProviderError('client', 'the input\'s "turns" must be a non-empty list of strings (the user\'s messages, in order)');
  return turns as string[];
}

export class ConversationSystem extends AgentSystem {
  constructor(
    model: ChatModel,
    agent: AgentSystemOptions,
    private readonly conversation: ConversationOptions,
  ) {
    super(model, agent);
  }

  override async generate(input: InputValue, { signal, sample }: GenerateOptions): Promise<Generation> {
    if (signal.aborted) throw abortError(signal, this.id);
    const started = performance.now();
    const script = scriptedTurns(input);
    // The first turn: the script's, else the input as the template renders it (the simulated user's opening).
    const messages: ChatMessage[] = this.agent.system ? [{ role: 'system', content: this.agent.system }] : [];
    let userText = script ? script[0] : (this.opening(input).find((m) => m.role === 'user')?.content ?? '');
    const maxTurns = this.conversation.maxTurns ?? DEFAULT_MAX_TURNS;
    const stopWhen = this.conversation.stopWhen?.toLowerCase();
    const steps: TrajectoryStep[] = [];
    const said: { user: string; reply: string }[] = [];
    let ended: TrajectoryEnd | undefined;
    let reply = '';
    let cached = true;
    let userCostUsd = 0;
    while (!ended) {
      if (said.length === maxTurns) {
        ended = 'max-turns';
        break;
      }
      messages.push({ role: 'user', content: userText });
      const turn = await this.turn(messages, signal, sample);
      turn.steps[0].messages = [{ role: 'user', content: userText }];
      pushAll(steps, turn.steps);
      cached &&= turn.cached;
      if (turn.ended === 'max-steps') {
        ended = 'max-steps';
        reply = '';
        break;
      }
      reply = turn.text;
      said.push({ user: userText, reply });
      if (stopWhen !== undefined && reply.toLowerCase().includes(stopWhen)) ended = 'final';
      else if (script) {
        if (said.length >= script.length) ended = 'final';
        else userText = script[said.length];
      } else if (!this.conversation.user) ended = 'final';
      else {
        const next = await this.simulatedUser(input, said, signal, sample);
        userCostUsd += next.costUsd ?? 0;
        cached &&= next.cached;
        if (next.stop) ended = 'final';
        else userText = next.text;
      }
    }
    const turns = said.length + (ended === 'max-steps' ? 1 : 0);
    return this.generation({ steps, ended, turns }, ended === 'max-steps' ? '' : reply, cached, started, userCostUsd);
  }

  /** The simulated user's next message, or its stop: the conversation so far with the roles turned round. */
  private async simulatedUser(
    input: InputValue,
    said: { user: string; reply: string }[],
    signal: AbortSignal,
    sample: number,
  ): Promise<{ text: string; stop: boolean; costUsd?: number; cached: boolean }> {
    const u = this.conversation.user!;
    const fill = (text: string) => {
      try {
        return typeof input === 'object' ? renderTemplate(text, input) : text;
      } catch (err) {
        throw new ProviderError('client', `the simulated user's persona or goal: ${(err as Error).message}`, { cause: err });
      }
    };
    const system =
      `You are role-playing a user who talks to an assistant. Persona: ${fill(u.persona)}\nYour goal: ${fill(u.goal)}\n` +
      `Write only your next message to the assistant, in the persona's words. When your goal is met, or it clearly cannot be met, write only ${STOP_MARKER}.`;
    const messages: ChatMessage[] = [
      { role: 'system', content: system },
      { role: 'user', content: '(The conversation starts: write your first message.)' },
    ];
    for (const t of said) messages.push({ role: 'assistant', content: t.user }, { role: 'user', content: t.reply });
    const r = await u.model.generate({ messages }, { signal, sample });
    const text = r.text.trim();
    return { text, stop: text.includes(STOP_MARKER), ...(r.costUsd !== undefined ? { costUsd: r.costUsd } : {}), cached: r.cached === true };
  }
}

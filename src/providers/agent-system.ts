import { valueText } from '../core/trajectory-text.js';
import { trajectoryCost, trajectoryUsage, type ToolCallRecord, type Trajectory, type TrajectoryStep } from '../core/trajectory.js';
import type { InputValue } from '../core/validator.js';
import type { ChatMessage, ChatModel, ChatTool, ToolCall, ToolResultMessage } from './chat-model.js';
import { ChatSystem, type ChatSystemOptions } from './chat-system.js';
import { abortError, messageOf } from './errors.js';
import { DEFAULT_MAX_STEPS, DEFAULT_TOOL_TIMEOUT_MS, type RunnableTool } from './tools.js';
import { ProviderError, type GenerateOptions, type Generation } from './types.js';

/**
 * A provider system that acts: assay runs the tool loop itself. Each step is one model call offered the tools, in
 * the provider's own tool-calling format (the adapter's); each call the model asks for is checked (a declared
 * tool, arguments that fit its schema), run with its own time limit, and its result or error sent back, until
 * the model answers without a call or the step limit ends it. The sample is the final text with its trajectory.
 *
 * What goes wrong in a tool is the agent's business, recorded on the step and shown to the model: a tool that
 * throws or hangs (per-call timeout), an undeclared tool, arguments that fail the schema or are not JSON. A model
 * that keeps calling tools ends at `maxSteps` as a run cut by its limit (the `max-steps` check fails it), not an
 * infrastructure error. What goes wrong with the model (a 5xx, a timeout of the whole call) is an error outcome.
 */

export interface AgentSystemOptions extends ChatSystemOptions {
  tools: readonly RunnableTool[];
  /** Model calls of one run (default 10). */
  maxSteps?: number;
  /** Time limit of one tool call in ms (default 30 s). */
  toolTimeoutMs?: number;
}

/** Why a tool call gave no result, as the model and the trajectory read it. */
class ToolTimeout extends Error {
  override name = 'ToolTimeout';
}

export class AgentSystem extends ChatSystem {
  protected readonly tools: Map<string, RunnableTool>;
  private readonly chatTools: ChatTool[];

  constructor(
    model: ChatModel,
    protected readonly agent: AgentSystemOptions,
  ) {
    super(model, agent);
    this.tools = new Map(agent.tools.map((t) => [t.declaration.name, t]));
    this.chatTools = agent.tools.map((t) => ({ ...t.declaration, strict: false }));
  }

  override async generate(input: InputValue, { signal, sample }: GenerateOptions): Promise<Generation> {
    if (signal.aborted) throw abortError(signal, this.id);
    const started = performance.now();
    const messages = this.opening(input);
    const turn = await this.turn(messages, signal, sample);
    return this.generation({ steps: turn.steps, ended: turn.ended }, turn.ended === 'final' ? turn.text : '', turn.cached, started);
  }

  /** The chat's first messages: the system prompt, then the (templated) input. */
  protected opening(input: InputValue): ChatMessage[] {
    try {
      return this.messages(input);
    } catch (err) {
      throw new ProviderError('client', `${this.id}: ${messageOf(err)}`, { cause: err });
    }
  }

  /** The sample: the final text with its trajectory, tokens and cost summed over the steps. */
  protected generation(t: Omit<Trajectory, 'tools'>, text: string, cached: boolean, started: number, extraCostUsd = 0): Generation {
    const trajectory: Trajectory = { ...t, ...(this.tools.size ? { tools: [...this.tools.values()].map((x) => x.declaration) } : {}) };
    const usage = trajectoryUsage(trajectory);
    const stepsCost = trajectoryCost(trajectory);
    const costUsd = stepsCost === undefined && !extraCostUsd ? undefined : (stepsCost ?? 0) + extraCostUsd;
    return {
      text,
      trajectory,
      ...(usage ? { usage } : {}),
      ...(costUsd !== undefined ? { costUsd } : {}),
      ...(cached ? { cached: true } : {}),
      latencyMs: performance.now() - started,
    };
  }

  /**
   * One turn of the agent on `messages` (extended in place with its calls, their results and its reply): model
   * calls offered the tools until one answers without a call (`final`) or the step limit ends it (`max-steps`).
   */
  protected async turn(
    messages: ChatMessage[],
    signal: AbortSignal,
    sample: number,
  ): Promise<{ steps: TrajectoryStep[]; text: string; ended: 'final' | 'max-steps'; cached: boolean }> {
    const { temperature, maxTokens } = this.agent;
    const maxSteps = this.agent.maxSteps ?? DEFAULT_MAX_STEPS;
    const steps: TrajectoryStep[] = [];
    let cached = true;
    while (steps.length < maxSteps) {
      const r = await this.model.generate(
        {
          messages,
          ...(this.chatTools.length ? { tools: this.chatTools, toolChoice: 'auto' as const } : {}),
          ...(temperature !== undefined ? { temperature } : {}),
          ...(maxTokens !== undefined ? { maxTokens } : {}),
        },
        { signal, sample },
      );
      if (!r.cached) cached = false;
      const n = steps.length;
      const calls = (r.toolCalls ?? []).map((c, k) => ({ ...c, id: c.id ?? `call_${n}_${k}` }));
      const step: TrajectoryStep = {
        ...(r.text ? { text: r.text } : {}),
        toolCalls: [],
        ...(r.usage ? { usage: r.usage } : {}),
        ...(r.costUsd !== undefined ? { costUsd: r.costUsd } : {}),
        latencyMs: r.latencyMs,
        ...(r.finishReason ? { finishReason: r.finishReason } : {}),
      };
      steps.push(step);
      if (!calls.length) {
        messages.push({ role: 'assistant', content: r.text });
        return { steps, text: r.text, ended: 'final', cached };
      }
      // The calls of one step run together, as the AI SDK runs them; their results go back in the calls' order.
      step.toolCalls = await Promise.all(calls.map((c) => this.callTool(c, signal)));
      messages.push({ role: 'assistant', content: r.text, toolCalls: calls });
      for (const [k, c] of step.toolCalls.entries()) messages.push(resultMessage(calls[k], c));
    }
    return { steps, text: '', ended: 'max-steps', cached };
  }

  /** One call: checked against the declared tools and their schemas, then run within its time limit. */
  private async callTool(call: ToolCall & { id: string }, signal: AbortSignal): Promise<ToolCallRecord> {
    const record: ToolCallRecord = { id: call.id, name: call.name, arguments: undefined };
    let args: unknown;
    try {
      args = call.arguments.trim() === '' ? {} : (JSON.parse(call.arguments) as unknown);
      record.arguments = args;
    } catch {
      record.argumentsText = call.arguments;
      record.error = `the arguments are not JSON: ${call.arguments.slice(0, 200)}`;
      return record;
    }
    const tool = this.tools.get(call.name);
    if (!tool) {
      record.error = `the tool ${JSON.stringify(call.name)} is not declared (declared: ${[...this.tools.keys()].join(', ')})`;
      return record;
    }
    const problem = tool.check(args);
    if (problem !== undefined) {
      record.error = `the arguments do not fit the tool's schema: ${problem}`;
      return record;
    }
    const timeoutMs = this.agent.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    const controller = new AbortController();
    const stop = () => controller.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    const timer = setTimeout(() => controller.abort(new ToolTimeout(`the tool timed out after ${timeoutMs} ms`)), timeoutMs);
    const t0 = performance.now();
    try {
      // A tool that ignores its signal is left behind: the loop goes on when the limit passes.
      const aborted = new Promise<never>((_, reject) => {
        if (controller.signal.aborted) reject(controller.signal.reason as Error);
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error), { once: true });
      });
      record.result = await Promise.race([Promise.resolve().then(() => tool.run(args, { signal: controller.signal, toolCallId: call.id })), aborted]);
      if (record.result === undefined) record.result = null;
    } catch (err) {
      // The run stopping (its timeout, Ctrl-C) is not the tool's failure: the sample is an error outcome.
      if (signal.aborted) throw abortError(signal, this.id, err);
      record.error = messageOf(err) || 'the tool failed';
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
    }
    record.durationMs = performance.now() - t0;
    return record;
  }
}

/** A call's result (its JSON text, a string as it is) or its error, as the tool message the model reads. */
function resultMessage(call: ToolCall & { id: string }, record: ToolCallRecord): ToolResultMessage {
  return record.error !== undefined
    ? { role: 'tool', toolCallId: call.id, name: call.name, content: record.error, isError: true }
    : { role: 'tool', toolCallId: call.id, name: call.name, content: valueText(record.result) };
}

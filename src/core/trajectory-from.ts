import type { TokenUsage } from './call.js';
import {
  trajectoryCost,
  trajectoryUsage,
  type ToolCallRecord,
  type ToolDeclaration,
  type Trajectory,
  type TrajectoryEnd,
  type TrajectoryStep,
} from './trajectory.js';

/**
 * The one converter from what a function system returns to the runner's answer: a plain string, the AI SDK's
 * `generateText` result as it is (v4, v5 and v6: `text`, `steps`, each step's `toolCalls`, `toolResults` and
 * `content` with `tool-error` parts, `usage`, `finishReason`), or a plain `{ output, steps }` whose steps are
 * assay's own (`{ text?, toolCalls: [{ name, arguments, result | error }] }`). Used by assay/vitest's function
 * systems and by a TypeScript config's function system (providers/function-system.ts).
 *
 * Reads properties, never spreads or clones: the AI SDK's results keep `text`, `toolCalls` and `toolResults`
 * as getters on their class.
 */

export interface AgentAnswer {
  /** The final answer: what text checks read. */
  text: string;
  trajectory?: Trajectory;
  /** Tokens summed over the steps that report them. */
  usage?: TokenUsage;
  /** USD summed over the priced steps. */
  costUsd?: number;
}

/** What a function system's value could not be read as, in one sentence: an `error` outcome, never a FAIL. */
export type AgentAnswerProblem = { problem: string };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const get = (o: unknown, key: string): unknown => (isObj(o) ? o[key] : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object'
    ? `an object with keys ${
        Object.keys(v as Obj)
          .slice(0, 6)
          .join(', ') || '(none)'
      }`
    : typeof v;
}

const EXPECTED = 'expected a string, the AI SDK generateText result ({ text, steps }) or { output, steps }';

/** A token count as any AI SDK version reports it: a number (v5), `{ total }` (v6's provider usage). */
function tokens(v: unknown): number | undefined {
  return num(v) ?? num(get(v, 'total'));
}

/** Usage as v4 (`promptTokens`), v5/v6 (`inputTokens`) or assay (`promptTokens`) report it. */
function usageOf(u: unknown): TokenUsage | undefined {
  if (!isObj(u)) return undefined;
  const prompt = tokens(u.promptTokens) ?? tokens(u.inputTokens);
  const completion = tokens(u.completionTokens) ?? tokens(u.outputTokens);
  if (prompt === undefined && completion === undefined) return undefined;
  return { promptTokens: prompt ?? 0, completionTokens: completion ?? 0 };
}

/** An error as text: an Error's message, a string, or its JSON. */
function errorText(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  if (typeof e === 'string') return e;
  const m = str(get(e, 'message'));
  if (m) return m;
  try {
    return JSON.stringify(e) ?? String(e);
  } catch {
    return String(e);
  }
}

/** Arguments as sent: parsed when the model sent JSON text, kept as text (argumentsText) when it was not JSON. */
function argumentsOf(raw: unknown): Pick<ToolCallRecord, 'arguments' | 'argumentsText'> {
  if (typeof raw !== 'string') return { arguments: raw ?? {} };
  try {
    return { arguments: JSON.parse(raw) as unknown };
  } catch {
    return { arguments: undefined, argumentsText: raw };
  }
}

/** What a tool call's id, name, arguments, result and error are called in each shape. */
function callFrom(c: Obj, results: Map<string, Obj>, errors: Map<string, unknown>): ToolCallRecord | AgentAnswerProblem {
  const name = str(c.toolName) ?? str(c.name);
  if (name === undefined) return { problem: `a tool call has no name (toolName or name), found ${describe(c)}` };
  const id = str(c.toolCallId) ?? str(c.id);
  const rawArgs = 'input' in c ? c.input : 'args' in c ? c.args : c.arguments;
  const call: ToolCallRecord = { ...(id !== undefined ? { id } : {}), name, ...argumentsOf(rawArgs) };
  if (str(c.argumentsText) !== undefined && call.argumentsText === undefined) call.argumentsText = c.argumentsText as string;
  const res = id !== undefined ? results.get(id) : undefined;
  const error = c.error ?? (id !== undefined ? errors.get(id) : undefined);
  if (error !== undefined && error !== null) call.error = errorText(error);
  else if (res) call.result = 'output' in res ? res.output : res.result;
  else if ('result' in c) call.result = c.result;
  else if ('output' in c) call.result = c.output;
  // The AI SDK marks a call it could not parse or whose tool does not exist (v5: invalid, with the error).
  if (c.invalid === true && call.error === undefined) call.error = 'the model sent an invalid tool call';
  const ms = num(c.durationMs);
  if (ms !== undefined) call.durationMs = ms;
  return call;
}

function stepFrom(s: unknown, at: number): TrajectoryStep | AgentAnswerProblem {
  if (!isObj(s)) return { problem: `steps[${at}]: expected a step object, found ${describe(s)}` };
  const content = Array.isArray(s.content) ? (s.content as unknown[]).filter(isObj) : [];
  const parts = (type: string) => content.filter((p) => p.type === type);
  const listOf = (v: unknown, type: string): Obj[] => (Array.isArray(v) ? (v as unknown[]).filter(isObj) : parts(type));
  const results = new Map<string, Obj>();
  for (const r of listOf(s.toolResults, 'tool-result')) {
    const id = str(r.toolCallId) ?? str(r.id);
    if (id !== undefined) results.set(id, r);
  }
  const errors = new Map<string, unknown>();
  for (const e of parts('tool-error')) {
    const id = str(e.toolCallId);
    if (id !== undefined) errors.set(id, e.error ?? 'the tool failed');
  }
  const rawCalls = listOf(s.toolCalls, 'tool-call');
  const toolCalls: ToolCallRecord[] = [];
  for (const [n, c] of rawCalls.entries()) {
    const call = callFrom(c, results, errors);
    if ('problem' in call) return { problem: `steps[${at}].toolCalls[${n}]: ${call.problem}` };
    toolCalls.push(call);
  }
  const step: TrajectoryStep = { toolCalls };
  const text = str(s.text);
  if (text) step.text = text;
  const usage = usageOf(s.usage);
  if (usage) step.usage = usage;
  const cost = num(s.costUsd);
  if (cost !== undefined) step.costUsd = cost;
  const latency = num(s.latencyMs);
  if (latency !== undefined) step.latencyMs = latency;
  const finish = str(s.finishReason) ?? str(get(s.finishReason, 'unified'));
  if (finish) step.finishReason = finish;
  if (Array.isArray(s.messages)) step.messages = (s.messages as unknown[]).filter(isObj).flatMap(messageOf);
  return step;
}

/** A message of a conversation step, its content as text (the AI SDK's parts joined). */
function messageOf(m: Obj): NonNullable<TrajectoryStep['messages']> {
  const role = m.role;
  if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') return [];
  const c = m.content;
  const content =
    typeof c === 'string'
      ? c
      : Array.isArray(c)
        ? (c as unknown[])
            .map((p) => str(get(p, 'text')) ?? '')
            .filter(Boolean)
            .join('')
        : '';
  return [{ role, content }];
}

function toolsOf(v: unknown): ToolDeclaration[] | undefined {
  if (Array.isArray(v))
    return (v as unknown[]).filter(isObj).flatMap((t) => {
      const name = str(t.name);
      if (!name) return [];
      const parameters = get(t, 'parameters') ?? get(t, 'inputSchema');
      return [{ name, ...(str(t.description) ? { description: t.description as string } : {}), ...(isObj(parameters) ? { parameters } : {}) }];
    });
  // The AI SDK's tool set: { name: { description, inputSchema | parameters } }, a schema given as JSON Schema (jsonSchema()).
  if (isObj(v))
    return Object.entries(v).map(([name, t]) => {
      const schema = get(t, 'inputSchema') ?? get(t, 'parameters');
      const json = get(schema, 'jsonSchema') ?? schema;
      return {
        name,
        ...(str(get(t, 'description')) ? { description: get(t, 'description') as string } : {}),
        ...(isObj(json) && !('_def' in json) && !('_zod' in json) ? { parameters: json } : {}),
      };
    });
  return undefined;
}

/** How the run ended: as given (`ended`), else the AI SDK's last step still asking for tools means a step limit cut it. */
function endOf(steps: TrajectoryStep[], given: unknown): TrajectoryEnd {
  if (given === 'final' || given === 'max-steps' || given === 'max-turns') return given;
  return steps[steps.length - 1]?.finishReason === 'tool-calls' ? 'max-steps' : 'final';
}

/** The answer of a function system, or the problem that makes it unreadable. */
export function agentAnswer(value: unknown): AgentAnswer | AgentAnswerProblem {
  if (typeof value === 'string') return { text: value };
  if (!isObj(value)) return { problem: `${EXPECTED}, found ${describe(value)}` };
  const text = str(value.output) ?? str(value.text);
  if (text === undefined) return { problem: `${EXPECTED}, found ${describe(value)} without a string text or output` };
  // An assay system's own answer ({ text, trajectory }: createSystem(…).generate, an agent of `tools:`) as it is.
  const own = value.trajectory;
  if (isObj(own) && Array.isArray(own.steps) && (own.steps as unknown[]).every((st) => isObj(st) && Array.isArray(st.toolCalls))) {
    const trajectory = own as unknown as Trajectory;
    const usage = usageOf(value.usage) ?? trajectoryUsage(trajectory);
    const costUsd = num(value.costUsd) ?? trajectoryCost(trajectory);
    return { text, trajectory, ...(usage ? { usage } : {}), ...(costUsd !== undefined ? { costUsd } : {}) };
  }
  let rawSteps: unknown[] | undefined = Array.isArray(value.steps) ? (value.steps as unknown[]) : undefined;
  // A result with calls but no steps (one step, as an older AI SDK or a hand-made object gives it).
  if (rawSteps === undefined && (Array.isArray(value.toolCalls) || Array.isArray(value.content))) rawSteps = [value];
  if (value.steps !== undefined && rawSteps === undefined) return { problem: `steps: expected a list of steps, found ${describe(value.steps)}` };
  if (rawSteps === undefined) return { text, ...(usageOf(value.usage) ? { usage: usageOf(value.usage) } : {}) };
  const steps: TrajectoryStep[] = [];
  for (const [n, s] of rawSteps.entries()) {
    const step = stepFrom(s, n);
    if ('problem' in step) return step;
    steps.push(step);
  }
  const tools = toolsOf(value.tools);
  const trajectory: Trajectory = { steps, ended: endOf(steps, value.ended), ...(tools?.length ? { tools } : {}) };
  const turns = num(value.turns);
  if (turns !== undefined) trajectory.turns = turns;
  // Tokens: the steps' sum; else the result's own total (totalUsage in v5+, usage in v4).
  const usage = trajectoryUsage(trajectory) ?? usageOf(value.totalUsage) ?? usageOf(value.usage);
  const costUsd = trajectoryCost(trajectory);
  return { text, trajectory, ...(usage ? { usage } : {}), ...(costUsd !== undefined ? { costUsd } : {}) };
}

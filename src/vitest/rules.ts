import { expect } from 'vitest';
import { UsageError, thrownMessage } from '../errors.js';
import * as z from 'zod';
import { describeFound, explainIssues, issuesError, schemaKeys } from '../core/issues.js';
import { experimentConfigSchema, validatorConfigSchema } from '../config/schema.js';
import { buildCheck, checkSchema, type CheckSpec } from '../validators/builtin.js';
import { agentAnswer, type AgentAnswer } from '../core/trajectory-from.js';
import { toolCallsOf, type Trajectory } from '../core/trajectory.js';
import { toolCallLine, trajectoryLine } from '../core/trajectory-text.js';
import { partialMatch, TrajectoryCheckError, noTrajectoryMessage } from '../validators/trajectory-checks.js';
import { outputInline } from './messages.js';
import type { ValidatorSpec } from './types.js';

/** An assay rule for the matchers: a built-in check spec, or a validator `{ name, check | predicate }`. */
export type Rule = CheckSpec | (Omit<ValidatorSpec, 'minSuccess'> & { minSuccess?: number });

export interface HoldOptions {
  /** Calls to make (samples of one input). */
  samples: number;
  /** The rate the rule must hold at. */
  minSuccess: number;
  /** Confidence level of the verdict; default 0.95. */
  confidence?: number;
  /** Per-call time limit in ms; default 30 000 (assay/vitest's). */
  timeoutMs?: number;
}

export interface CheckOutcome {
  pass: boolean;
  /** The rule as the message names it: its name and what it checks. */
  rule: string;
  message: string;
}

// A check spec has a `type` (the tool checks a `name` too); a validator `{ name, check | predicate }` has none.
const isValidatorSpec = (r: Rule): r is Exclude<Rule, CheckSpec> =>
  typeof (r as { name?: unknown }).name === 'string' && (r as { type?: unknown }).type === undefined;

/**
 * A matcher argument's problems as one UsageError, a line each: `<where>.<field>: <message>`, as the config loader
 * words them; unknown keys first, since their "did you mean" explains the missing key beside them.
 */
function argumentError(issues: readonly z.core.$ZodIssue[], where: string, schema: unknown): UsageError {
  const all = explainIssues(issues, { keysAt: schemaKeys(schema) });
  const unknown = (m: { message: string }) => m.message.startsWith('unknown key');
  return issuesError({ expression: where }, [...all.filter(unknown), ...all.filter((m) => !unknown(m))]);
}

/** A check spec checked like a config's (UsageError naming the matcher and the field). */
function parsedCheck(spec: unknown, where: string): CheckSpec {
  // reportInput: the message says what was found ("containz"), as the config loader's does.
  const r = checkSchema.safeParse(spec, { reportInput: true });
  if (r.success) return r.data;
  throw argumentError(r.error.issues, where, checkSchema);
}

/** A validator rule `{ name, check | predicate, … }` checked like a config's validator entry (minSuccess optional here). */
function checkValidator(rule: object, where: string): void {
  const r = validatorConfigSchema.safeParse({ minSuccess: 1, ...rule }, { reportInput: true });
  if (!r.success) throw argumentError(r.error.issues, where, validatorConfigSchema);
}

/** toHoldReliably's options, with the config's own rules for each value. */
const holdOptionsSchema = z.strictObject({
  samples: experimentConfigSchema.shape.samples.unwrap(),
  minSuccess: validatorConfigSchema.shape.minSuccess,
  confidence: experimentConfigSchema.shape.confidence.unwrap().optional(),
  timeoutMs: experimentConfigSchema.shape.timeoutMs.unwrap().optional(),
} satisfies Record<keyof HoldOptions, z.ZodType>);

function parsedHoldOptions(options: unknown, where: string): HoldOptions {
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new UsageError(`${where}: expected options { samples, minSuccess }, found ${describeFound(options)}`, { path: where });
  const r = holdOptionsSchema.safeParse(options, { reportInput: true });
  if (r.success) return r.data;
  throw argumentError(r.error.issues, where, holdOptionsSchema);
}

/** The rule as a name, a description and a predicate (of the final answer, the input and an agent's steps). */
function resolveRule(
  rule: Rule,
  where: string,
): { name: string; source: string; predicate: (o: string, i: string, t?: Trajectory) => boolean | Promise<boolean> } {
  if (rule === null || typeof rule !== 'object')
    throw new UsageError(`${where}: expected a check such as { type: 'contains', value: 'x' } or a validator { name, check | predicate }`, { path: where });
  if (!isValidatorSpec(rule)) {
    const c = buildCheck(parsedCheck(rule, where));
    return { name: c.source, source: c.source, predicate: c.predicate };
  }
  checkValidator(rule, where);
  if (typeof rule.predicate === 'function') return { name: rule.name, source: rule.predicate.toString(), predicate: rule.predicate };
  if (rule.check === undefined)
    throw new UsageError(`${where}: expected the validator ${JSON.stringify(rule.name)} to have a check or a predicate function`, { path: where });
  const c = buildCheck(parsedCheck(rule.check, `${where}.check`));
  return { name: `${rule.name} (${c.source})`, source: c.source, predicate: c.predicate };
}

function outcome(rule: string, output: string, result: unknown, trajectory?: Trajectory): CheckOutcome {
  const steps = trajectory ? `\n  steps: ${trajectoryLine(trajectory)}` : '';
  if (typeof result !== 'boolean')
    return {
      pass: false,
      rule,
      message: `${rule}: ERROR · the rule returned ${typeof result}, expected true or false\n  output: ${outputInline(output)}${steps}`,
    };
  return { pass: result, rule, message: `${rule}: ${result ? 'PASS' : 'FAIL'}\n  output: ${outputInline(output)}${steps}` };
}

const thrown = (rule: string, output: string, err: unknown): CheckOutcome => ({
  pass: false,
  rule,
  message: `${rule}: ERROR · the rule threw: ${thrownMessage(err)} (an error decides nothing)\n  output: ${outputInline(output)}`,
});

/** An output as the matchers read it: text, or an agent's result (the AI SDK's generateText result, `{ output, steps }`). */
function answerOf(actual: unknown): AgentAnswer | { problem: string } {
  if (typeof actual === 'string') return { text: actual };
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
    return { problem: `expected a string output or an agent's result, found ${actual === null ? 'null' : Array.isArray(actual) ? 'an array' : typeof actual}` };
  const a = agentAnswer(actual);
  return 'problem' in a ? { problem: `expected a string output or an agent's result, found one assay cannot read: ${a.problem}` } : a;
}

/** One output against one rule; synchronous when the rule is (every built-in check). An agent's result brings its steps. */
export function checkOne(actual: unknown, rule: Rule): CheckOutcome | Promise<CheckOutcome> {
  const r = resolveRule(rule, 'toSatisfy(rule)');
  const answer = answerOf(actual);
  if ('problem' in answer) return { pass: false, rule: r.name, message: `${r.name}: ${answer.problem}` };
  const shown = answer.trajectory ? `${answer.text}` : actual;
  try {
    const result = r.predicate(answer.text, '', answer.trajectory);
    return result instanceof Promise
      ? result.then(
          (x) => outcome(r.name, shown as string, x, answer.trajectory),
          (err: unknown) => thrown(r.name, shown as string, err),
        )
      : outcome(r.name, shown as string, result, answer.trajectory);
  } catch (err) {
    return thrown(r.name, shown as string, err);
  }
}

/**
 * Call `fn` `samples` times and decide, by assay's verdict at `minSuccess`, whether the rule holds: the same
 * runner and decision as describeReliability, on one input, in memory, never cached.
 */
export async function holdsReliably(fn: unknown, rule: Rule, options: HoldOptions): Promise<CheckOutcome> {
  const where = 'toHoldReliably';
  if (typeof fn !== 'function')
    throw new UsageError(`${where}: expected a function that returns the output (a string or a promise of one), found ${typeof fn}`);
  const o = parsedHoldOptions(options, `${where}(…, options)`);
  const r = resolveRule(rule, `${where}(rule)`);
  const validator = isValidatorSpec(rule)
    ? { ...rule, minSuccess: o.minSuccess }
    : { name: r.name, check: parsedCheck(rule, `${where}(rule)`), minSuccess: o.minSuccess };
  const [{ runReliability }, { MemoryStore }] = await Promise.all([import('./engine.js'), import('../store/memory.js')]);
  const state = expect.getState();
  const run = await runReliability({
    name: state.currentTestName ?? where,
    file: state.testPath ?? where,
    options: {
      inputs: [''],
      samples: o.samples,
      system: () => (fn as () => string | Promise<string>)(),
      validators: [validator as never],
      ...(o.confidence !== undefined ? { confidence: o.confidence } : {}),
      ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    },
    store: new MemoryStore(),
    single: true,
  });
  const v = run.rules[0];
  return { pass: v.test === 'pass', rule: r.name, message: v.message };
}

/** Calls listed in a toHaveCalledTool message. */
const CALLS_SHOWN = 5;

/**
 * One agent result against "it called this tool (with arguments including these)". The calls it made are in the
 * message either way, for `.not` too. A text answer has no steps to look at: an error, whichever form is used.
 */
export function calledTool(actual: unknown, name: unknown, args?: unknown): CheckOutcome {
  const where = 'toHaveCalledTool(name, arguments?)';
  if (typeof name !== 'string' || name === '') throw new UsageError(`${where}: expected a tool name, found ${describeFound(name)}`, { path: where });
  if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args)))
    throw new UsageError(`${where}: expected the arguments to match as an object such as { orderId: 'A1' }, found ${describeFound(args)}`, { path: where });
  const answer = answerOf(actual);
  if ('problem' in answer) throw new UsageError(`toHaveCalledTool: ${answer.problem}`, { path: where });
  if (!answer.trajectory) throw new TrajectoryCheckError(`toHaveCalledTool: ${noTrajectoryMessage('checking tool calls')}`);
  const calls = toolCallsOf(answer.trajectory);
  const hits = calls.filter((c) => c.name === name && (args === undefined || partialMatch(c.arguments, args)));
  const what = `${name}${args !== undefined ? ` with arguments including ${JSON.stringify(args)}` : ''}`;
  const list = (cs: typeof calls) =>
    cs.length
      ? cs
          .slice(0, CALLS_SHOWN)
          .map((c) => `\n    ${toolCallLine(c, 120)}`)
          .join('') + (cs.length > CALLS_SHOWN ? `\n    and ${cs.length - CALLS_SHOWN} more` : '')
      : ' none';
  return hits.length
    ? { pass: true, rule: what, message: `expected the agent not to call ${what}, but it did ${hits.length} time${hits.length === 1 ? '' : 's'}:${list(hits)}` }
    : { pass: false, rule: what, message: `expected the agent to call ${what}; the calls it made:${list(calls)}` };
}

import { expect } from 'vitest';
import { UsageError } from '../errors.js';
import * as z from 'zod';
import { describeFound, explainIssues, issuesError, schemaKeys } from '../core/issues.js';
import { experimentConfigSchema, validatorConfigSchema } from '../config/schema.js';
import { buildCheck, checkSchema, type CheckSpec } from '../validators/builtin.js';
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
  /** Per-call time limit in ms; default 60 000. */
  timeoutMs?: number;
}

export interface CheckOutcome {
  pass: boolean;
  /** The rule as the message names it: its name and what it checks. */
  rule: string;
  message: string;
}

const isValidatorSpec = (r: Rule): r is Exclude<Rule, CheckSpec> => typeof (r as { name?: unknown }).name === 'string';

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

/** The rule as a name, a description and a predicate. */
function resolveRule(rule: Rule, where: string): { name: string; source: string; predicate: (o: string, i: string) => boolean | Promise<boolean> } {
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

function outcome(rule: string, output: string, result: unknown): CheckOutcome {
  if (typeof result !== 'boolean')
    return { pass: false, rule, message: `${rule}: ERROR · the rule returned ${typeof result}, expected true or false\n  output: ${outputInline(output)}` };
  return { pass: result, rule, message: `${rule}: ${result ? 'PASS' : 'FAIL'}\n  output: ${outputInline(output)}` };
}

const thrown = (rule: string, output: string, err: unknown): CheckOutcome => ({
  pass: false,
  rule,
  message: `${rule}: ERROR · the rule threw: ${err instanceof Error ? err.message : String(err)} (an error decides nothing)\n  output: ${outputInline(output)}`,
});

/** One output against one rule; synchronous when the rule is (every built-in check). */
export function checkOne(actual: unknown, rule: Rule): CheckOutcome | Promise<CheckOutcome> {
  const r = resolveRule(rule, 'toSatisfy(rule)');
  if (typeof actual !== 'string')
    return { pass: false, rule: r.name, message: `${r.name}: expected a string output, found ${actual === null ? 'null' : typeof actual}` };
  try {
    const result = r.predicate(actual, '');
    return result instanceof Promise
      ? result.then(
          (x) => outcome(r.name, actual, x),
          (err: unknown) => thrown(r.name, actual, err),
        )
      : outcome(r.name, actual, result);
  } catch (err) {
    return thrown(r.name, actual, err);
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

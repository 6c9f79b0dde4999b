import { expect } from 'vitest';
import { UsageError } from '../errors.js';
import { explainIssues, formatPath } from '../config/issues.js';
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

/** A check spec checked like a config's (UsageError naming the matcher and the field). */
function parsedCheck(spec: unknown, where: string): CheckSpec {
  // reportInput: the message says what was found ("containz"), as the config loader's does.
  const r = checkSchema.safeParse(spec, { reportInput: true });
  if (r.success) return r.data;
  const m = explainIssues(r.error.issues)[0];
  throw new UsageError(`${where}${m.path.length ? `.${formatPath(m.path)}` : ''}: ${m.message}`, { path: where });
}

/** The rule as a name, a description and a predicate. */
function resolveRule(rule: Rule, where: string): { name: string; source: string; predicate: (o: string, i: string) => boolean | Promise<boolean> } {
  if (rule === null || typeof rule !== 'object')
    throw new UsageError(`${where}: expected a check such as { type: 'contains', value: 'x' } or a validator { name, check | predicate }`, { path: where });
  if (!isValidatorSpec(rule)) {
    const c = buildCheck(parsedCheck(rule, where));
    return { name: c.source, source: c.source, predicate: c.predicate };
  }
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
  if (options === null || typeof options !== 'object') throw new UsageError(`${where}: expected options { samples, minSuccess }`);
  const r = resolveRule(rule, `${where}(rule)`);
  const validator = isValidatorSpec(rule)
    ? { ...rule, minSuccess: options.minSuccess }
    : { name: r.name, check: parsedCheck(rule, `${where}(rule)`), minSuccess: options.minSuccess };
  const [{ runReliability }, { MemoryStore }] = await Promise.all([import('./engine.js'), import('../store/memory.js')]);
  const state = expect.getState();
  const run = await runReliability({
    name: state.currentTestName ?? where,
    file: state.testPath ?? where,
    options: {
      inputs: [''],
      samples: options.samples,
      system: () => (fn as () => string | Promise<string>)(),
      validators: [validator as never],
      ...(options.confidence !== undefined ? { confidence: options.confidence } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    },
    store: new MemoryStore(),
    single: true,
  });
  const v = run.rules[0];
  return { pass: v.test === 'pass', rule: r.name, message: v.message };
}

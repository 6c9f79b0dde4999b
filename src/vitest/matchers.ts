/**
 * `import 'assay/vitest/matchers'` (or list it in `setupFiles`) registers three matchers:
 * `expect(output).toSatisfy(rule)` for one output (text, or an agent's result: trajectory checks read its steps),
 * `expect(result).toHaveCalledTool(name, args?)` for one agent's result, and `await expect(fn).toHoldReliably(rule,
 * { samples, minSuccess })` for repeated calls, decided by assay's verdict. Vitest's own `toSatisfy(predicate)` keeps
 * working: a plain function is still its predicate.
 */
// Vitest's declarations load before the augmentation below, which then wins over its own toSatisfy whatever the
// user's import order (declaration files keep only a `preserve` reference).
/// <reference types="vitest" preserve="true" />
import { expect } from 'vitest';
import { calledTool, checkOne, holdsReliably, type HoldOptions, type Rule } from './rules.js';

export type { HoldOptions, Rule } from './rules.js';

declare module 'vitest' {
  // The type parameter as Vitest declares it (declarations merge only when they match).
  /* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unused-vars */
  interface Assertion<T = any> {
    /** A predicate (as Vitest's own toSatisfy), or an assay rule: a check spec or a validator `{ name, check | predicate }`. */
    toSatisfy: (rule: Rule | ((value: any) => boolean), message?: string) => any;
  }
  interface Matchers<T = any> {
    /** Call the function `samples` times and check every answer; passes on assay's PASS verdict for `minSuccess`. */
    toHoldReliably(rule: Rule, options: HoldOptions): Promise<T>;
    /**
     * An agent's result (the AI SDK's generateText result, or `{ output, steps }`) called the tool, with arguments
     * including `args` when given (objects matched key by key). `.not.toHaveCalledTool('refund')`: it never did.
     */
    toHaveCalledTool(name: string, args?: Record<string, unknown>): T;
  }
  /* eslint-enable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unused-vars */
}

expect.extend({
  toSatisfy(actual: unknown, rule: Rule | ((value: unknown) => boolean), message?: string) {
    if (typeof rule === 'function') {
      // Vitest's built-in behaviour for a plain predicate.
      const pass = Boolean((rule as (v: unknown) => boolean)(actual));
      const what = message ?? (rule.name || 'the predicate');
      return {
        pass,
        message: () => `expected ${this.utils.stringify(actual)} ${pass ? 'not ' : ''}to satisfy ${what}`,
      };
    }
    const r = checkOne(actual, rule);
    if (r instanceof Promise) return r.then((x) => ({ pass: x.pass, message: () => (x.pass ? `expected the output not to satisfy ${x.rule}` : x.message) }));
    return { pass: r.pass, message: () => (r.pass ? `expected the output not to satisfy ${r.rule}` : r.message) };
  },
  toHaveCalledTool(actual: unknown, name: string, args?: Record<string, unknown>) {
    const r = calledTool(actual, name, args);
    return { pass: r.pass, message: () => r.message };
  },
  async toHoldReliably(actual: unknown, rule: Rule, options: HoldOptions) {
    const r = await holdsReliably(actual, rule, options);
    return { pass: r.pass, message: () => (r.pass ? `expected ${r.rule} not to hold reliably, but:\n${r.message}` : r.message) };
  },
});

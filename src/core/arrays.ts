/**
 * Folds over arrays of any length. `Math.max(...xs)` and `a.push(...xs)` pass every element as an argument
 * and throw "Maximum call stack size exceeded" past ~125k of them (issue 30: a 130k-answer audit lost its
 * report there); a lint rule (eslint.config.js) sends every such call here.
 */

/** The largest of the values and `start` (-Infinity by default); NaN is skipped. */
export function maxOf(values: Iterable<number>, start = -Infinity): number {
  let m = start;
  for (const v of values) if (v > m) m = v;
  return m;
}

/** The smallest of the values and `start` (Infinity by default); NaN is skipped. */
export function minOf(values: Iterable<number>, start = Infinity): number {
  let m = start;
  for (const v of values) if (v < m) m = v;
  return m;
}

/** Append every item to `target` (one at a time) and return it. */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const x of items) target.push(x);
  return target;
}

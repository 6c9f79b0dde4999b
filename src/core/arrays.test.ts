import { describe, expect, it } from 'vitest';
import { maxOf, minOf, pushAll } from './arrays.js';

describe('folds over arrays of any length (issue 30: Math.max(...rows) threw past ~125k rows)', () => {
  const big = Array.from({ length: 1_000_000 }, (_, i) => (i * 7919) % 1_000_003);

  it('maxOf and minOf give what Math.max and Math.min give, at a length where spreading throws', () => {
    expect(() => Math.max(...big)).toThrow(RangeError);
    expect(maxOf(big)).toBe(big.reduce((a, b) => (b > a ? b : a)));
    expect(minOf(big)).toBe(0);
    expect(maxOf([], 4)).toBe(4);
    expect(maxOf([])).toBe(-Infinity);
    expect(minOf([])).toBe(Infinity);
    expect(maxOf([1, 5, 3], 10)).toBe(10);
    expect(minOf(new Set([3, -2, 8]).values())).toBe(-2);
  });

  it('pushAll appends a million items where push(...items) throws', () => {
    expect(() => [].push(...(big as never[]))).toThrow(RangeError);
    const target = [1, 2];
    expect(pushAll(target, big)).toBe(target);
    expect(target).toHaveLength(1_000_002);
    expect(target[2]).toBe(big[0]);
  });
});

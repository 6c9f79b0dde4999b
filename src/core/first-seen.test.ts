import { describe, expect, it } from 'vitest';
import { FirstSeen } from './first-seen.js';

describe('FirstSeen: where each key was first seen, in typed arrays', () => {
  it('answers the first position of a repeated key and records new ones, across growth', () => {
    const f = new FirstSeen();
    let hits = 0;
    for (let i = 1; i <= 300_000; i++) if (f.seen(`id-${i}`, i) !== undefined) hits++;
    expect(hits).toBe(0);
    expect(f.size).toBe(300_000);
    expect(f.seen('id-1', 300_001)).toBe(1);
    expect(f.seen('id-299999', 300_002)).toBe(299_999);
    expect(f.seen('line 7', 300_003)).toBeUndefined();
    expect(f.seen('line 7', 300_004)).toBe(300_003);
    // Keys that differ only in case, or in a trailing character, are different keys.
    expect(f.seen('ID-1', 300_005)).toBeUndefined();
    expect(f.seen('id-1 ', 300_006)).toBeUndefined();
    expect(f.size).toBe(300_003);
  });
});

import { describe, expect, it } from 'vitest';
import { BLOCKED_MS, blockedText, watchThread } from './thread.js';

describe('watchThread', () => {
  it('measures how long the thread was blocked at once (at least the block, less one beat)', () => {
    const thread = watchThread();
    try {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, BLOCKED_MS + 300);
      expect(thread.longestGapMs()).toBeGreaterThanOrEqual(BLOCKED_MS);
    } finally {
      thread.stop();
    }
  });

  it('names a long block, and not a short one', () => {
    expect(blockedText(BLOCKED_MS - 1)).toBeUndefined();
    expect(blockedText(11_400)).toMatch(/^the system \(or a check\) blocked the thread for 11\.4 s at once: a synchronous loop/);
  });
});

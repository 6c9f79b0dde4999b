import { afterEach, describe, expect, it, vi } from 'vitest';
import { GuestClock, ownThreadId, ThreadCpuClock } from './cpu-time.js';

describe('GuestClock: a time limit on the guest’s own running time', () => {
  afterEach(() => vi.useRealTimers());

  it('past the limit on the wall clock but not in CPU time (a thread kept waiting for a core): not expired', () => {
    vi.useFakeTimers();
    let cpu = 1000;
    const clock = new GuestClock({ ms: () => cpu });
    clock.start(100);
    vi.advanceTimersByTime(5000); // five seconds of wall time…
    cpu += 60; // …of which the thread ran 60 ms
    expect(clock.expired()).toBe(false);
    cpu += 41;
    expect(clock.expired()).toBe(true);
  });

  it('within the limit on the wall clock: not expired, and the CPU clock is not even read', () => {
    vi.useFakeTimers();
    const ms = vi.fn(() => 0);
    const clock = new GuestClock({ ms });
    clock.start(100);
    ms.mockClear();
    vi.advanceTimersByTime(100);
    expect(clock.expired()).toBe(false);
    expect(ms).not.toHaveBeenCalled();
  });

  it('where CPU time cannot be read, the wall clock decides', () => {
    vi.useFakeTimers();
    const clock = new GuestClock({ ms: () => undefined });
    clock.start(100);
    vi.advanceTimersByTime(101);
    expect(clock.expired()).toBe(true);
  });
});

describe.runIf(process.platform === 'linux')('ThreadCpuClock (Linux)', () => {
  it("reads this thread's CPU time, which grows with work and not with waiting", async () => {
    const clock = new ThreadCpuClock();
    const a = clock.ms()!;
    const t = Date.now();
    while (Date.now() - t < 50) {
      // busy
    }
    const b = clock.ms()!;
    await new Promise((r) => setTimeout(r, 200));
    const c = clock.ms()!;
    expect(b - a).toBeGreaterThan(0);
    expect(c - b).toBeLessThan(200);
    clock.close();
    expect(new ThreadCpuClock(ownThreadId()).ms()).toBeGreaterThan(0);
  });
});

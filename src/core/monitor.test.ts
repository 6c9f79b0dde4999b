import { describe, expect, it } from 'vitest';
import { logChoose } from './distributions.js';
import { RuleWatch, type WatchAlarm } from './monitor.js';
import { mulberry32 } from './prng.js';

/** P(X ≥ x) for X ~ Binomial(n, p), summed directly. */
function upperTail(x: number, n: number, p: number): number {
  let sum = 0;
  for (let k = x; k <= n; k++) sum += Math.exp(logChoose(n, k) + k * Math.log(p) + (n - k) * Math.log1p(-p));
  return sum;
}

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 1);

/** Feed `n` Bernoulli(p) checks, one a simulated minute from `start`; the alarms raised. */
function feed(watch: RuleWatch, rand: () => number, n: number, p: number, start: number): WatchAlarm[] {
  const out: WatchAlarm[] = [];
  for (let t = 0; t < n; t++) out.push(...watch.observe(rand() < p ? 'pass' : 'fail', T0 + (start + t) * MINUTE));
  return out;
}

describe('RuleWatch', () => {
  it('an injected drop raises an alarm, in simulated time, soon after it and never before', () => {
    const watch = new RuleWatch({ alpha: 0.05, minSuccess: 0.9, baseline: { pass: 960, fail: 40 }, window: { ms: 24 * 60 * MINUTE } });
    const rand = mulberry32(7);
    // A week at 96% (one check a minute), then a drop to 85%.
    const week = 7 * 24 * 60;
    expect(feed(watch, rand, week, 0.96, 0)).toEqual([]);
    const after = feed(watch, rand, 3 * 24 * 60, 0.85, week);
    expect(after.length).toBeGreaterThan(0);
    const first = after[0];
    // Within a day of the drop (simulated minutes, not wall time), on the evidence it cites.
    expect(first.at).toBeGreaterThanOrEqual(week);
    expect(first.at - week).toBeLessThan(24 * 60);
    expect(first.high).toBeLessThan(first.threshold);
    expect(first.rate).toBeLessThan(first.threshold);
    // Both kinds fire: below minSuccess, and below the baseline's lower bound.
    expect(new Set(after.map((a) => a.kind))).toEqual(new Set(['below-min-success', 'dropped']));
    // Each kind at most once per stream.
    const keys = after.map((a) => `${a.kind}:${a.scope}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('holds its false-alarm rate under no change: seeded streams at exactly minSuccess', () => {
    const runs = 300;
    let alarmed = 0;
    for (let r = 0; r < runs; r++) {
      const watch = new RuleWatch({ alpha: 0.05, minSuccess: 0.9, window: { checks: 500 } });
      if (feed(watch, mulberry32(1000 + r), 5000, 0.9, 0).length) alarmed++;
    }
    // Ville's bound: at most α = 5% of the streams, however often they are looked at (every check here).
    expect(alarmed / runs).toBeLessThanOrEqual(0.05);
  });

  it('a naive alarm on the point estimate fires on noise where the watch does not', () => {
    const rand = mulberry32(3);
    const watch = new RuleWatch({ alpha: 0.05, minSuccess: 0.9, window: { checks: 200 } });
    let naive = 0;
    let pass = 0;
    let fail = 0;
    const alarms: WatchAlarm[] = [];
    for (let t = 0; t < 20_000; t++) {
      const ok = rand() < 0.92;
      if (ok) pass++;
      else fail++;
      alarms.push(...watch.observe(ok ? 'pass' : 'fail', T0 + t * MINUTE));
      // What a threshold alert does: the window's rate under the line.
      if ((t + 1) % 200 === 0) {
        if (pass / (pass + fail) < 0.9) naive++;
        pass = fail = 0;
      }
    }
    expect(naive).toBeGreaterThan(0);
    expect(alarms).toEqual([]);
  });

  it("takes the baseline's one-sided Clopper–Pearson bound at α/4, less the tolerance", () => {
    const watch = new RuleWatch({ alpha: 0.05, baseline: { pass: 950, fail: 50 }, tolerance: 0.02 });
    const low = watch.baselineLow!;
    // The lower bound L has P(X ≥ 950 | p = L) = α/4 (the exact binomial tail, summed here).
    expect(upperTail(950, 1000, low)).toBeCloseTo(0.0125, 6);
    expect(watch.thresholds.dropped).toBeCloseTo(low - 0.02, 12);
    expect(watch.thresholds['below-min-success']).toBeUndefined();
  });

  it('errors are missing outcomes, counted as passes: they never raise an alarm', () => {
    const watch = new RuleWatch({ alpha: 0.05, minSuccess: 0.9 });
    const alarms: WatchAlarm[] = [];
    for (let t = 0; t < 2000; t++) alarms.push(...watch.observe(t % 10 === 0 ? 'fail' : 'error', T0 + t));
    expect(alarms).toEqual([]);
    expect(watch.cumulativeSummary()).toMatchObject({ counts: { pass: 0, fail: 200, error: 1800 }, rate: 0 });
  });

  it('spends α over windows so that their shares never add up past it; summarises each window', () => {
    const watch = new RuleWatch({ alpha: 0.05, minSuccess: 0.5, window: { checks: 10 } });
    let spent = 0;
    for (let w = 1; w <= 100_000; w++) spent += watch.windowAlpha(w);
    expect(spent).toBeLessThan(0.025);
    expect(spent).toBeGreaterThan(0.0249);
    for (let t = 0; t < 25; t++) watch.observe(t < 10 ? 'pass' : t < 20 ? 'fail' : 'error', T0 + t);
    const windows = watch.windowSummaries();
    expect(windows.map((w) => [w.index, w.from, w.to, w.rate])).toEqual([
      [1, 0, 9, 1],
      [2, 10, 19, 0],
      [3, 20, 24, null],
    ]);
    expect(windows[1].high).toBeGreaterThan(0.3);
    expect(windows[1].high).toBeLessThan(0.6);
  });

  it('is deterministic: replaying the same checks raises the same alarms at the same checks', () => {
    const run = () => {
      const watch = new RuleWatch({ alpha: 0.05, minSuccess: 0.9, window: { checks: 1000 } });
      const rand = mulberry32(11);
      return [...feed(watch, rand, 3000, 0.95, 0), ...feed(watch, rand, 3000, 0.8, 3000)];
    };
    const a = run();
    expect(a.length).toBeGreaterThan(0);
    expect(run()).toEqual(a);
  });

  it('refuses options it cannot use, naming them', () => {
    expect(() => new RuleWatch({ alpha: 1.5 })).toThrow(/alpha must be in \(0, 1\)/);
    expect(() => new RuleWatch({ minSuccess: 2 })).toThrow(/minSuccess/);
    expect(() => new RuleWatch({ baseline: { pass: 0, fail: 0 } })).toThrow(/baseline/);
    expect(() => new RuleWatch({ window: { checks: 0 } })).toThrow(/window/);
  });
});

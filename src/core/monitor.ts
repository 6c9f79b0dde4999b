/**
 * Alarms on a rule's outcomes over a stream of production samples, with a false-alarm probability held at α
 * however long the stream is watched (bench:monitor shows it by simulation).
 *
 * The evidence is core/sequence.ts's mixture martingale: E⁻ₙ(m), the evidence that the rate is below m, is a
 * non-negative supermartingale with E⁻₀ = 1 while every sample's chance of passing is ≥ m, so by Ville's
 * inequality it ever reaches 1/a with probability ≤ a — at whatever times it is looked at, for as long as it
 * runs. An alarm is E⁻ reaching 1/a on one of these streams of checks, each with its own share a of α:
 *
 * - **since the start** (the cumulative stream): share α_s / 2 (all of α_s without windows);
 * - **per window** (tumbling windows of W checks or of a duration, each a fresh stream): window w = 1, 2, …
 *   gets (α_s / 2) / (w (w + 1)), which sums to α_s / 2 over every window there will ever be.
 *
 * Each is tested against two thresholds, with the same evidence: the rule's `minSuccess` (an alarm
 * `below-min-success`), and the baseline's lower confidence bound minus a tolerance (an alarm `dropped`). The
 * baseline (the rule's counts in a passing CI run) spends α_b = α / 4 on its one-sided Clopper–Pearson lower
 * bound, and α_s = α − α_b is left for the stream. So, while the rule's rate stays at or above minSuccess
 * (resp. at or above the baseline's true rate minus the tolerance), the chance of any alarm of that kind, ever,
 * is at most α. Errors are missing outcomes and are counted as passes here: an alarm holds however they would
 * have resolved (as the sequential verdict's "fail" does, core/sequence.ts).
 *
 * Deterministic: the same checks in the same order raise the same alarms at the same checks, so a monitor
 * that replays its stored checks after a restart finds the alarms it has stored already.
 */
import { ArgumentError } from '../errors.js';
import { clopperPearson } from './intervals.js';
import { logEvidenceBelow, sequenceBounds } from './sequence.js';

export interface WatchOptions {
  /** The probability of any false alarm over the whole watch (default 0.05). */
  alpha?: number;
  /** The rule's minSuccess: an alarm when the rate is shown below it. */
  minSuccess?: number;
  /** The rule's counts in the baseline (e.g. its last passing CI run): an alarm when the rate is shown below the baseline's. */
  baseline?: { pass: number; fail: number };
  /** A drop smaller than this, below the baseline's lower bound, is tolerated (default 0). */
  tolerance?: number;
  /** Tumbling windows of this many checks, or of this many ms of the samples' end times. */
  window?: { checks: number } | { ms: number };
}

export type AlarmKind = 'below-min-success' | 'dropped';

export interface WatchAlarm {
  kind: AlarmKind;
  /** `cumulative`, or the window's number (1-based). */
  scope: 'cumulative' | number;
  /** The check at which the evidence crossed (its index in the stream, 0-based). */
  at: number;
  /** The threshold crossed. */
  threshold: number;
  /** The rate and its one-sided upper confidence bound (errors as passes) on that stream at that check. */
  rate: number;
  high: number;
  counts: Counts;
}

export interface Counts {
  pass: number;
  fail: number;
  error: number;
}

/** One window's summary, for the rate over time. */
export interface WindowSummary {
  index: number;
  /** First and last check (indices) of the window, and its first and last time (ms). */
  from: number;
  to: number;
  startMs: number;
  endMs: number;
  counts: Counts;
  /** Share of passes among passes and failures (null: none). */
  rate: number | null;
  /** One-sided upper bound at the window's share of α (errors as passes). */
  high: number | null;
  /** The stream since the start, at the window's last check: its rate and its one-sided upper bound. */
  cumulative: { rate: number | null; high: number | null };
}

interface Stream {
  counts: Counts;
  /** ln(1/a) for this stream. */
  threshold: number;
  alarmed: Set<AlarmKind>;
}

const ALARM_ORDER: AlarmKind[] = ['below-min-success', 'dropped'];

/** n · KL(p̂ ‖ m) for p̂ < m: no mixture of alternatives below m can have more evidence than this (a cheap pre-check). */
function maxLogEvidenceBelow(S: number, F: number, m: number): number {
  const n = S + F;
  const p = S / n;
  if (p >= m) return 0;
  const a = S === 0 ? 0 : S * Math.log(p / m);
  const b = F === 0 ? 0 : F * Math.log((1 - p) / (1 - m));
  return a + b;
}

/** The alarms and the figures of one rule's stream of checks. Feed it checks in stream order. */
export class RuleWatch {
  readonly alpha: number;
  /** Thresholds by kind (absent when the kind is not watched). */
  readonly thresholds: Partial<Record<AlarmKind, number>>;
  /** The baseline's one-sided lower bound at α/4, when there is a baseline. */
  readonly baselineLow?: number;
  private readonly streamAlpha: number;
  private readonly windowed: boolean;
  private readonly cumulative: Stream;
  private window?: Stream & { index: number; from: number; startMs: number; endMs: number; key: number };
  private readonly windows: WindowSummary[] = [];
  private n = 0;

  constructor(readonly options: WatchOptions) {
    const alpha = options.alpha ?? 0.05;
    if (!(alpha > 0 && alpha < 1)) throw new ArgumentError(`monitor: alpha must be in (0, 1), found ${alpha}`, { key: 'alpha' });
    this.alpha = alpha;
    const tolerance = options.tolerance ?? 0;
    if (!(tolerance >= 0 && tolerance < 1)) throw new ArgumentError(`monitor: tolerance must be in [0, 1), found ${tolerance}`, { key: 'tolerance' });
    const thresholds: Partial<Record<AlarmKind, number>> = {};
    if (options.minSuccess !== undefined) {
      if (!(options.minSuccess >= 0 && options.minSuccess <= 1))
        throw new ArgumentError(`monitor: minSuccess must be in [0, 1], found ${options.minSuccess}`, { key: 'minSuccess' });
      if (options.minSuccess > 0) thresholds['below-min-success'] = options.minSuccess;
    }
    let baselineAlpha = 0;
    if (options.baseline) {
      const { pass, fail } = options.baseline;
      if (!(Number.isInteger(pass) && Number.isInteger(fail) && pass >= 0 && fail >= 0 && pass + fail > 0))
        throw new ArgumentError(`monitor: the baseline needs whole counts ≥ 0 with at least one outcome, found ${pass} passes and ${fail} failures`, {
          key: 'baseline',
        });
      baselineAlpha = alpha / 4;
      // One-sided at α/4: the lower end of a two-sided interval at level 1 − α/2.
      this.baselineLow = clopperPearson(pass, pass + fail, 1 - 2 * baselineAlpha)!.low;
      const target = this.baselineLow - tolerance;
      if (target > 0) thresholds.dropped = target;
    }
    this.thresholds = thresholds;
    this.streamAlpha = alpha - baselineAlpha;
    this.windowed = options.window !== undefined;
    if (options.window) {
      const size = 'checks' in options.window ? options.window.checks : options.window.ms;
      if (!(Number.isFinite(size) && size > 0))
        throw new ArgumentError(`monitor: a window must be a positive number of checks or ms, found ${size}`, { key: 'window' });
    }
    this.cumulative = this.stream(this.windowed ? this.streamAlpha / 2 : this.streamAlpha);
  }

  private stream(a: number): Stream {
    return { counts: { pass: 0, fail: 0, error: 0 }, threshold: Math.log(1 / a), alarmed: new Set() };
  }

  /** The share of α of window w (1-based). */
  windowAlpha(w: number): number {
    return this.streamAlpha / 2 / (w * (w + 1));
  }

  /** How many checks it has read. */
  get checks(): number {
    return this.n;
  }

  /** Read the next check; returns the alarms it raised (each kind at most once per stream). */
  observe(outcome: 'pass' | 'fail' | 'error', atMs: number): WatchAlarm[] {
    const at = this.n++;
    const raised: WatchAlarm[] = [];
    if (this.windowed) {
      const w = this.options.window!;
      const key = 'checks' in w ? Math.floor(at / w.checks) : Math.floor(atMs / w.ms);
      if (!this.window || this.window.key !== key) {
        if (this.window) this.closeWindow(at - 1);
        const index = (this.window?.index ?? 0) + 1;
        this.window = { ...this.stream(this.windowAlpha(index)), index, from: at, startMs: atMs, endMs: atMs, key };
      }
      this.window.endMs = Math.max(this.window.endMs, atMs);
      this.window.counts[outcome]++;
      this.test(this.window, this.window.index, at, raised);
    }
    this.cumulative.counts[outcome]++;
    this.test(this.cumulative, 'cumulative', at, raised);
    return raised;
  }

  private test(s: Stream, scope: WatchAlarm['scope'], at: number, raised: WatchAlarm[]): void {
    const { pass, fail, error } = s.counts;
    if (fail === 0) return;
    const S = pass + error;
    for (const kind of ALARM_ORDER) {
      const m = this.thresholds[kind];
      if (m === undefined || s.alarmed.has(kind)) continue;
      if (maxLogEvidenceBelow(S, fail, m) < s.threshold) continue;
      if (logEvidenceBelow(S, fail, m) < s.threshold) continue;
      s.alarmed.add(kind);
      raised.push({ kind, scope, at, threshold: m, rate: pass / (pass + fail), high: this.high(s), counts: { ...s.counts } });
    }
  }

  /** The one-sided upper confidence bound of a stream (errors as passes) at its share of α. */
  private high(s: Stream): number {
    const { pass, fail, error } = s.counts;
    if (pass + fail + error === 0) return 1;
    // sequenceBounds is two-sided at ln(2/α'); at α' = 2a its upper end is the one-sided bound at a.
    const a = Math.exp(-s.threshold);
    return sequenceBounds(pass + error, fail, 1 - 2 * a)!.high;
  }

  private closeWindow(to: number): void {
    const w = this.window!;
    const { pass, fail } = w.counts;
    this.windows.push({
      index: w.index,
      from: w.from,
      to,
      startMs: w.startMs,
      endMs: w.endMs,
      counts: { ...w.counts },
      rate: pass + fail ? pass / (pass + fail) : null,
      high: pass + fail + w.counts.error ? this.high(w) : null,
      cumulative: this.cumulativeFigures(),
    });
  }

  /** Every window so far, the open one last. */
  windowSummaries(): WindowSummary[] {
    if (!this.window) return [...this.windows];
    const open = this.window;
    const { pass, fail } = open.counts;
    return [
      ...this.windows,
      {
        index: open.index,
        from: open.from,
        to: this.n - 1,
        startMs: open.startMs,
        endMs: open.endMs,
        counts: { ...open.counts },
        rate: pass + fail ? pass / (pass + fail) : null,
        high: this.high(open),
        cumulative: this.cumulativeFigures(),
      },
    ];
  }

  private cumulativeFigures(): { rate: number | null; high: number | null } {
    const { rate, high } = this.cumulativeSummary();
    return { rate, high };
  }

  /** The stream since the start: counts, rate and its one-sided upper bound. */
  cumulativeSummary(): { counts: Counts; rate: number | null; high: number | null } {
    const { pass, fail, error } = this.cumulative.counts;
    return {
      counts: { ...this.cumulative.counts },
      rate: pass + fail ? pass / (pass + fail) : null,
      high: pass + fail + error ? this.high(this.cumulative) : null,
    };
  }
}

import { createHash } from 'node:crypto';
import { RuleWatch, type WatchAlarm, type WatchOptions, type WindowSummary } from '../core/monitor.js';
import { Outcome } from '../core/outcome.js';
import type { ProductionSample } from '../core/production.js';
import { formatRate } from '../core/show.js';
import type { Validator } from '../core/validator.js';
import { UsageError } from '../errors.js';
import { resolveRunId } from '../store/resolve.js';
import type { ProductionAlarm, ProductionCheck, Store } from '../store/types.js';
import { evaluateValidator } from '../validators/evaluate.js';
import type { Monitor } from './config.js';

/** Samples read from the store per page. */
const PAGE = 500;
const HOUR_MS = 3_600_000;

/** Where a rule stands after a monitor's pass. */
export interface RuleStatus {
  rule: string;
  kind: 'validator' | 'verifier';
  minSuccess: number;
  /** Checks read in all (stored before and made now), and made in this pass. */
  checks: number;
  newChecks: number;
  /** Samples not checked for the judge budget in this pass. */
  overBudget: number;
  cumulative: ReturnType<RuleWatch['cumulativeSummary']>;
  windows: WindowSummary[];
  baseline?: { pass: number; fail: number; low: number; run: string };
  /** Every alarm of the rule so far (stored), and those this pass raised. */
  alarms: ProductionAlarm[];
  newAlarms: ProductionAlarm[];
}

export interface MonitorResult {
  experiment: string;
  samples: number;
  rules: RuleStatus[];
  /** Alarms raised by this pass (new in the store). */
  newAlarms: ProductionAlarm[];
  /** Alarms of earlier passes that `onAlarm` had not delivered, delivered by this one. */
  redelivered: ProductionAlarm[];
}

export interface MonitorOptions {
  /** Stop after this many new samples per rule (default: all there are). */
  maxSamples?: number;
  /**
   * Delivers an alarm (the webhook): each alarm this pass raised, after it is stored, and each stored alarm an
   * earlier pass did not deliver (`late`). Resolving false means not delivered: the alarm stays marked so, and the
   * next pass tries again. `alarm` holds the watch's figures; it is absent only for a late alarm the watch no
   * longer raises (the monitor's settings changed).
   */
  onAlarm?: (alarm: ProductionAlarm, status: { rule: string; alarm?: WatchAlarm; late: boolean }) => Promise<boolean | void>;
  signal?: AbortSignal;
}

/** Whether a sample is in the monitor's share: decided by its span id, so the same samples every time. */
export function sampled(spanId: string, share: number): boolean {
  if (share >= 1) return true;
  const h = createHash('sha256').update(spanId).digest().readUInt32BE(0);
  return h / 0x1_0000_0000 < share;
}

/** The rule's counts in the baseline run: its column of the stored tensor (undefined when the run has no such rule). */
async function baselineOf(store: Store, monitor: Monitor, rule: string): Promise<RuleStatus['baseline'] | undefined> {
  const b = monitor.baseline;
  if (!b) return undefined;
  let id: string;
  if (b.run === 'latest' && b.name) {
    const [newest] = await store.runs.list({ name: b.name, limit: 1 });
    if (!newest)
      throw new UsageError(`${monitor.file}: monitor.baseline: no run named "${b.name}" in the store`, { file: monitor.file, path: 'monitor.baseline' });
    id = newest.id;
  } else id = await resolveRunId(store, b.run, 'monitor.baseline.run');
  const run = (await store.runs.get(id))!;
  const k = run.validators.findIndex((v) => v.name === rule);
  if (k < 0) return undefined;
  const t = await store.samples.tensor(id);
  let pass = 0;
  let fail = 0;
  for (let i = 0; i < t.N; i++)
    for (let j = 0; j < t.M; j++) {
      const o = t.get(i, j, k);
      if (o === Outcome.PASS) pass++;
      else if (o === Outcome.FAIL) fail++;
    }
  return pass + fail ? { pass, fail, low: 0, run: id } : undefined;
}

function alarmMessage(rule: Validator, a: WatchAlarm): string {
  const where = a.scope === 'cumulative' ? 'since the start' : `in window ${a.scope}`;
  const what =
    a.kind === 'below-min-success' ? `below its minSuccess ${formatRate(a.threshold)}` : `below its baseline (lower bound ${formatRate(a.threshold)})`;
  return `${rule.name}: ${formatRate(a.rate)} ${where} (${a.counts.pass} pass, ${a.counts.fail} fail, ${a.counts.error} error; at most ${formatRate(a.high)} at the monitor's confidence) is ${what}`;
}

/**
 * One pass of a monitor over its production experiment: for each rule, the samples after its cursor are
 * checked (the monitor's share of them; a verifier's only while the judge budget of that hour of traffic
 * allows), the checks are stored with the cursor, and the rule's stream — every check it ever made, replayed
 * in order — is watched (core/monitor.ts). An alarm is stored once; those new in this pass are returned and
 * handed to `onAlarm`. Running it again after a crash redoes at most the page in flight, and raises no alarm twice.
 */
export async function runMonitor(store: Store, monitor: Monitor, options: MonitorOptions = {}): Promise<MonitorResult> {
  const experiment = monitor.experiment;
  const exists = (await store.production.experiments()).find((e) => e.name === experiment);
  const statuses: RuleStatus[] = [];
  const newAlarms: ProductionAlarm[] = [];
  const redelivered: ProductionAlarm[] = [];
  const alarmKey = (a: Pick<ProductionAlarm, 'kind' | 'atSeq'>) => `${a.kind}:${a.atSeq}`;
  for (const rule of monitor.rules) {
    const baseline = await baselineOf(store, monitor, rule.name);
    const watchOptions: WatchOptions = {
      alpha: monitor.alpha,
      minSuccess: rule.minSuccess,
      tolerance: monitor.tolerance,
      ...(baseline ? { baseline: { pass: baseline.pass, fail: baseline.fail } } : {}),
      ...(monitor.window ? { window: 'ms' in monitor.window ? { ms: monitor.window.ms } : { checks: monitor.window.checks } } : {}),
    };
    const watch = new RuleWatch(watchOptions);
    if (baseline) baseline.low = watch.baselineLow!;
    const raised: { alarm: WatchAlarm; check: ProductionCheck }[] = [];
    const observe = (c: ProductionCheck) => {
      for (const alarm of watch.observe(c.outcome, c.atMs)) raised.push({ alarm, check: c });
    };
    const stored = await store.production.checks(experiment, rule.name);
    for (const c of stored) observe(c);
    const isJudge = rule.kind === 'verifier';
    // The judge's calls in the last hour of traffic, from its stored checks on.
    const judged = isJudge ? stored.map((c) => c.atMs) : [];
    let cursor = await store.production.cursor(experiment, rule.name);
    let newChecks = 0;
    let overBudget = 0;
    let read = 0;
    while (exists && !options.signal?.aborted && (options.maxSamples === undefined || read < options.maxSamples)) {
      const limit = options.maxSamples === undefined ? PAGE : Math.min(PAGE, options.maxSamples - read);
      const page = await store.production.list(experiment, { afterSeq: cursor, limit });
      if (!page.length) break;
      const checks: ProductionCheck[] = [];
      for (const s of page) {
        if (!sampled(s.spanId, monitor.sample)) continue;
        if (isJudge && monitor.judgeCallsPerHour !== undefined) {
          while (judged.length && judged[0] <= s.endMs - HOUR_MS) judged.shift();
          if (judged.length >= monitor.judgeCallsPerHour) {
            overBudget++;
            continue;
          }
          judged.push(s.endMs);
        }
        const c = await check(rule, s, options.signal);
        checks.push(c);
        observe(c);
      }
      read += page.length;
      cursor = page[page.length - 1].seq;
      newChecks += checks.length;
      await store.production.recordChecks(experiment, rule.name, checks, cursor, watchOptions);
      if (page.length < limit) break;
    }
    // Alarms earlier passes stored but did not deliver (the hook was down): sent again below.
    const pending = new Map(
      (await store.production.alarms(experiment)).filter((a) => a.rule === rule.name && a.delivered === false).map((a) => [alarmKey(a), a]),
    );
    const deliver = async (a: ProductionAlarm, detail: WatchAlarm | undefined, late: boolean) => {
      if (!options.onAlarm || (await options.onAlarm(a, { rule: rule.name, ...(detail ? { alarm: detail } : {}), late })) === false) return;
      await store.production.markDelivered(a);
      a.delivered = true;
      if (late) redelivered.push(a);
    };
    for (const { alarm, check: c } of raised) {
      const record: ProductionAlarm = {
        experiment,
        rule: rule.name,
        kind: alarm.kind,
        atSeq: c.seq,
        atMs: c.atMs,
        message: alarmMessage(rule, alarm),
        // Stored undelivered before it is sent: a pass that dies in between leaves it to the next one (at least once).
        ...(options.onAlarm ? { delivered: false } : {}),
      };
      if (await store.production.recordAlarm(record)) {
        newAlarms.push(record);
        await deliver(record, alarm, false);
      } else {
        // The replay raises stored alarms again, with their figures: an undelivered one goes out with them.
        const late = pending.get(alarmKey(record));
        pending.delete(alarmKey(record));
        if (late) await deliver(late, alarm, true);
      }
    }
    for (const late of pending.values()) await deliver(late, undefined, true);
    const alarms = (await store.production.alarms(experiment)).filter((a) => a.rule === rule.name);
    statuses.push({
      rule: rule.name,
      kind: rule.kind ?? 'validator',
      minSuccess: rule.minSuccess,
      checks: watch.checks,
      newChecks,
      overBudget,
      cumulative: watch.cumulativeSummary(),
      windows: watch.windowSummaries(),
      ...(baseline ? { baseline } : {}),
      alarms,
      newAlarms: newAlarms.filter((a) => a.rule === rule.name),
    });
  }
  return { experiment, samples: exists?.samples ?? 0, rules: statuses, newAlarms, redelivered };
}

/** One rule on one production sample: a sample whose call failed is an error of every rule, never a failure. */
async function check(rule: Validator, s: ProductionSample, signal?: AbortSignal): Promise<ProductionCheck> {
  if (s.error !== undefined || s.output === undefined) return { seq: s.seq, outcome: 'error', atMs: s.endMs, reason: s.error ?? 'the span has no output' };
  const r = await evaluateValidator(rule, s.output, s.input ?? '', { ...(signal ? { signal } : {}), ...(s.trajectory ? { trajectory: s.trajectory } : {}) });
  const reason = r.outcome === 'error' ? r.error : r.outcome === 'fail' ? (r.reasons?.join('; ') ?? rule.message) : undefined;
  return { seq: s.seq, outcome: r.outcome, atMs: s.endMs, ...(reason ? { reason: reason.slice(0, 500) } : {}) };
}

import type { GradedOutput } from './grades.js';
import { summarize } from './summarize.js';
import type { Estimand, IntervalMethod, StoppingRule, VerdictMode } from './rate-types.js';
import type { RunSummary, SummaryOptions } from './summary-types.js';
import type { ReliabilityTensor } from './tensor.js';
import type { ValidatorMeta } from './validator.js';
import { UsageError } from '../errors.js';
import { summaryOptionsOf } from './summary-options.js';

/** What the decision of a stored run is read from: its stored config and rules (a `RunRecord` fits). */
export interface StoredDecisionSource {
  id?: string;
  config: unknown;
  validators: readonly ValidatorMeta[];
}

/**
 * What decides a run's verdicts: fixed when the run is created, stored with it (`config.decision`), and read
 * back by every command that shows or finishes it. A resume that would decide the same data by other rules
 * (a lower confidence, a laxer minSuccess, a point verdict after seeing the counts) is refused, so the
 * resumed run, `assay show` and the dashboard always print the same verdicts.
 */
export interface DecisionParameters {
  confidence: number;
  interval: IntervalMethod;
  verdict: VerdictMode;
  /** The run's maxErrorShare (a rule may set its own). */
  maxErrorShare: number;
  stopping: StoppingRule;
  /** What the verdicts are about; absent (runs stored before issue 29) is `inputs`. */
  estimand?: Estimand;
  /** Per column k of the tensor (validators, then verifiers). */
  rules: RuleDecision[];
}

export interface RuleDecision {
  name: string;
  minSuccess: number;
  maxErrorShare?: number;
  expect?: number;
  /** Its per-input floor (core/per-input.ts), when it has one. */
  perInput?: { minSuccess: number };
  /** Its pass^k report and gate (core/pass-k.ts), when it has one. */
  passK?: { k: number; minSuccess?: number };
}

/** A rule's decision parameters from its metadata (a Validator or a stored ValidatorMeta). */
export function ruleDecision(v: Pick<ValidatorMeta, 'name' | 'minSuccess' | 'maxErrorShare' | 'expect' | 'perInput' | 'passK'>): RuleDecision {
  return {
    name: v.name,
    minSuccess: v.minSuccess,
    ...(v.maxErrorShare !== undefined ? { maxErrorShare: v.maxErrorShare } : {}),
    ...(v.expect !== undefined ? { expect: v.expect } : {}),
    ...(v.perInput ? { perInput: { minSuccess: v.perInput.minSuccess } } : {}),
    ...(v.passK ? { passK: { k: v.passK.k, ...(v.passK.minSuccess !== undefined ? { minSuccess: v.passK.minSuccess } : {}) } } : {}),
  };
}

/** Defaults of runs stored before decision parameters were (no `config.decision`): as they were decided then. */
const LEGACY: Omit<DecisionParameters, 'rules'> = { confidence: 0.95, interval: 'clopper-pearson', verdict: 'point', maxErrorShare: 0.05, stopping: 'fixed' };

const isUnit = (x: unknown): x is number => typeof x === 'number' && x >= 0 && x <= 1;

/** The stored block, when it is one this version wrote (anything else is read the legacy way). */
function storedDecision(config: unknown): DecisionParameters | undefined {
  const d = (config as { decision?: unknown } | null | undefined)?.decision as Partial<DecisionParameters> | undefined;
  if (!d || typeof d !== 'object') return undefined;
  const ok =
    typeof d.confidence === 'number' &&
    d.confidence > 0 &&
    d.confidence < 1 &&
    (d.interval === 'clopper-pearson' || d.interval === 'wilson' || d.interval === 'wald') &&
    (d.verdict === 'point' || d.verdict === 'confident') &&
    isUnit(d.maxErrorShare) &&
    (d.stopping === 'fixed' || d.stopping === 'sequential') &&
    (d.estimand === undefined || d.estimand === 'inputs' || d.estimand === 'population') &&
    Array.isArray(d.rules) &&
    d.rules.every(
      (r) =>
        r &&
        typeof r.name === 'string' &&
        isUnit(r.minSuccess) &&
        (r.perInput === undefined || isUnit(r.perInput?.minSuccess)) &&
        (r.passK === undefined || (Number.isInteger(r.passK?.k) && r.passK.k >= 1 && (r.passK.minSuccess === undefined || isUnit(r.passK.minSuccess)))),
    );
  return ok ? (d as DecisionParameters) : undefined;
}

/**
 * The decision parameters of a stored run: the block stored at its creation, or, for a run stored before
 * there was one, its stored config read as it was then (a sequential run always decides confidently) and
 * its stored validators. The one source of the parameters every command decides a stored run by.
 */
export function decisionOfRun(run: StoredDecisionSource): DecisionParameters {
  const stored = storedDecision(run.config);
  if (stored) return stored;
  const o = summaryOptionsOf(run.config as Record<string, unknown> | null);
  return {
    confidence: o.level ?? LEGACY.confidence,
    interval: o.interval ?? LEGACY.interval,
    verdict: o.verdict ?? LEGACY.verdict,
    maxErrorShare: o.maxErrorShare ?? LEGACY.maxErrorShare,
    stopping: o.stopping ?? LEGACY.stopping,
    rules: run.validators.map(ruleDecision),
  };
}

/** The summary options a decision gives (aggregate is a display choice, read from the stored config). */
export function summaryOptionsOfDecision(d: DecisionParameters, config?: unknown): Partial<SummaryOptions> {
  const aggregate = summaryOptionsOf(config as Record<string, unknown> | null).aggregate;
  return {
    interval: d.interval,
    level: d.confidence,
    verdict: d.verdict,
    maxErrorShare: d.maxErrorShare,
    stopping: d.stopping,
    estimand: d.estimand ?? 'inputs',
    ...(aggregate !== undefined ? { aggregate } : {}),
  };
}

/**
 * A stored run's summary, decided by its stored parameters: `assay show`, `assay run` (new or resumed), the
 * dashboard and the reports all summarise a run through here, so they print the same verdicts. `options`
 * may only change how it is shown (tests, the dashboard's what-ifs), never a stored parameter silently.
 */
export function summarizeRun(
  run: StoredDecisionSource,
  tensor: ReliabilityTensor,
  options: Partial<SummaryOptions> = {},
  /** People's grades of its outputs, one list per rule (grades/load.ts loadGrading; docs/judges.md). */
  grades?: readonly (readonly GradedOutput[])[],
): RunSummary {
  const d = decisionOfRun(run);
  const validators = run.validators.map((v, k) => {
    const r = d.rules[k];
    if (!r || r.name !== v.name) return v;
    const { maxErrorShare: _m, expect: _e, perInput: _p, passK: _k, ...rest } = v;
    return { ...rest, ...r };
  });
  return summarize(tensor, validators, { ...summaryOptionsOfDecision(d, run.config), ...options }, grades);
}

const show = (x: unknown) => (x === undefined ? 'unset' : typeof x === 'string' ? x : JSON.stringify(x));

/** Each parameter `now` decides differently from `stored`, as "field: old → new" (rules by name, in column order). */
export function decisionChanges(stored: DecisionParameters, now: DecisionParameters): string[] {
  const out: string[] = [];
  for (const k of ['confidence', 'interval', 'verdict', 'maxErrorShare', 'stopping'] as const)
    if (stored[k] !== now[k]) out.push(`${k}: ${show(stored[k])} → ${show(now[k])}`);
  if ((stored.estimand ?? 'inputs') !== (now.estimand ?? 'inputs')) out.push(`estimand: ${stored.estimand ?? 'inputs'} → ${now.estimand ?? 'inputs'}`);
  for (const r of stored.rules) {
    const n = now.rules.find((x) => x.name === r.name);
    if (!n) continue; // a changed set of rules is refused on its own (openRun)
    for (const k of ['minSuccess', 'maxErrorShare', 'expect'] as const)
      if (r[k] !== n[k]) out.push(`${JSON.stringify(r.name)}.${k}: ${show(r[k])} → ${show(n[k])}`);
    if (r.perInput?.minSuccess !== n.perInput?.minSuccess) out.push(`${JSON.stringify(r.name)}.perInput: ${show(r.perInput)} → ${show(n.perInput)}`);
    if (r.passK?.k !== n.passK?.k || r.passK?.minSuccess !== n.passK?.minSuccess)
      out.push(`${JSON.stringify(r.name)}.passK: ${show(r.passK)} → ${show(n.passK)}`);
  }
  return out;
}

/**
 * Refuses (exit 2, before anything is written) a resume whose config or flags would decide the stored run by
 * other parameters than it was started with, naming each changed field.
 */
export function checkResumedDecision(run: StoredDecisionSource & { id: string }, now: DecisionParameters, configPath?: string): void {
  const changes = decisionChanges(decisionOfRun(run), now);
  if (!changes.length) return;
  throw new UsageError(
    `runId ${run.id}: the config${configPath ? ` ${configPath}` : ''} (or an override) changes how the run is decided: ${changes.join('; ')}. ` +
      'A run keeps the decision parameters it was started with (changing them after seeing its data would void its guarantee): ' +
      'resume it with the values it was started with, or start a new run.',
    { path: changes[0].split(':')[0], key: 'runId' },
  );
}

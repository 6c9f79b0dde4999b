import type { AuditSummary } from '../grades/audits.js';
import type { RateWithCI, RunSummary, ValidatorSummary, Verdict, VerdictMode } from '../core/summary-types.js';
import type { InputValue } from '../core/validator.js';
import { ExitCode } from '../errors.js';
import type { RunStats } from '../run/stats.js';
import type { RunRecord, RunStatus } from '../store/types.js';
import { formatRate, formatLevel, quoted } from '../core/show.js';
import { figureText } from './grading-text.js';

/** What a report says about the run besides its statistics: identity, status and operational figures. */
export interface ReportMeta {
  runId: string;
  name: string;
  status: RunStatus;
  systemId: string;
  createdAt: string;
  finishedAt?: string;
  configPath?: string;
  /** The inputs, in order (index i), so per-input rows can show what was asked. */
  inputs?: InputValue[];
  stats?: RunStats;
  /** Whether an inconclusive verdict is accepted (CI passes on it): decides exit code and JUnit shape. */
  allowInconclusive?: boolean;
  /** The `--store` the command was given, repeated in the resume hint so it finds the run. */
  store?: string;
  /** The `--queue` the run was given (password hidden), repeated in the resume hint so the workers finish it. */
  queue?: string;
  /** People's grades of its grounded rules' claims: the stored batches made of the run (`assay audits import --run`), newest first. */
  claimGrading?: AuditSummary[];
}

export function reportMeta(run: RunRecord, stats?: RunStats, extra: { allowInconclusive?: boolean; store?: string; queue?: string } = {}): ReportMeta {
  return {
    runId: run.id,
    name: run.name,
    status: run.status,
    systemId: run.systemId,
    createdAt: run.createdAt,
    ...(run.finishedAt !== undefined ? { finishedAt: run.finishedAt } : {}),
    ...(run.configPath !== undefined ? { configPath: run.configPath } : {}),
    inputs: run.inputs,
    ...(stats ? { stats } : {}),
    ...(extra.allowInconclusive !== undefined ? { allowInconclusive: extra.allowInconclusive } : {}),
    ...(extra.store !== undefined ? { store: extra.store } : {}),
    ...(extra.queue !== undefined ? { queue: extra.queue } : {}),
  };
}

/**
 * Whether a verdict lets CI pass. Inconclusive means the data cannot show the rule holds (confident mode,
 * or no decided cell at all): it fails the job unless the user accepted it with --allow-inconclusive.
 * `error` (too many error cells for the verdict to hold however they resolve) never passes: exit 1.
 */
export function verdictPasses(v: Verdict, allowInconclusive = false): boolean {
  return v === 'pass' || (v === 'inconclusive' && allowInconclusive);
}

/**
 * A verdict as every report writes it. A point verdict (the paper's rate ≥ minSuccess, no interval behind it)
 * says so: "PASS (point)", "FAIL (point)". `error` and `inconclusive` are not decided by the point estimate.
 */
export function verdictLabel(verdict: Verdict | string, mode: VerdictMode, opts: { upper?: boolean } = {}): string {
  const word = opts.upper === false ? verdict : verdict.toUpperCase();
  return mode === 'point' && (verdict === 'pass' || verdict === 'fail') ? `${word} (point)` : word;
}

/** The documented exit code for a finished run: 130 interrupted, 1 a verdict not accepted, else 0. */
export function exitCodeFor(summary: RunSummary, status: RunStatus, allowInconclusive = false): number {
  if (status === 'interrupted') return ExitCode.INTERRUPTED;
  return summary.validators.every((v) => verdictPasses(v.verdict, allowInconclusive)) ? ExitCode.OK : ExitCode.VERDICT_FAILED;
}

/** Short text of an input for a table cell or a line: the one way inputs are shown (core/show.ts). */
export { inputLabel } from '../core/show.js';

/** "errors 8.5%" for a rate that leaves error cells out; '' when none did. Every shown rate carries it. */
export function errorShareText(r: Pick<RateWithCI, 'errorShare'>, digits = 1): string {
  return r.errorShare ? `errors ${formatRate(r.errorShare, digits)}` : '';
}

/**
 * An inconclusive verdict's next step: "~77 more samples decide it with 80% probability if the rates hold".
 * A sample is one output per input, as `samples:` counts them: with N inputs, the further outputs are spread
 * over them — "~26 more samples … (77 outputs over 3 inputs)" — so nobody raises `samples` N times too far.
 */
export function toDecideText(v: Pick<ValidatorSummary, 'toDecide' | 'errorShare'>, N = 1): string {
  const t = v.toDecide;
  if (!t) return '';
  if (t.outputs === Infinity)
    return v.errorShare
      ? `no number of further outputs decides it while errors stay at ${formatRate(v.errorShare)}`
      : 'no number of further outputs decides it at the observed rate';
  const inputs = Math.max(1, N);
  const spread = inputs > 1 ? ` (${t.outputs} outputs over ${inputs} inputs)` : '';
  return `~${Math.ceil(t.outputs / inputs)} more samples decide it with ${formatLevel(t.probability)} probability if the rates hold${spread}`;
}

/**
 * Where a sequential validator stopped, e.g. "stopped after 12 of 50 samples per input (48 outputs)"; '' for
 * one still undecided, whose reason already says how far it got ("undecided after 10 of 50 samples per input").
 */
export function stoppedText(v: Pick<ValidatorSummary, 'sequential'>, M: number): string {
  const q = v.sequential;
  if (!q || (q.reason !== 'lower-bound' && q.reason !== 'upper-bound')) return '';
  return `stopped after ${q.rounds} of ${M} samples per input (${q.outputs} outputs)`;
}

/** A corrected verdict, inconclusive: "about 240 grades in all would likely decide it if the rates hold"; '' otherwise. */
export function gradesToDecideText(v: Pick<ValidatorSummary, 'gradesToDecide' | 'grading'>): string {
  if (v.gradesToDecide === undefined) return '';
  if (v.gradesToDecide === null) return 'grading every output the rule decided would not narrow the corrected interval enough to decide it: a larger run would';
  const have = v.grading?.grades ?? 0;
  return v.gradesToDecide > have
    ? `plan: grade to ${v.gradesToDecide} in all (${v.gradesToDecide - have} more) — the grading look at ${v.gradesToDecide} grades would decide it if the rates hold (the verdict moves only at looks: 20, 40, 80, … grades)`
    : '';
}

/** Error groups an error verdict names; the rest are counted. */
export const CAUSES_SHOWN = 3;
const CAUSE_CHARS = 200;

/**
 * What an error verdict says about its cause, the one wording every surface uses (the Vitest message and its
 * annotation, JUnit, Markdown and the job summary, the terminal, HTML): the rule's largest error groups with their
 * counts and first message — `error causes: ×34 "…401 Unauthorized…", ×4 "…timed out…", and 2 more groups (3
 * errors)`. '' for any other verdict, or stats without per-rule groups.
 */
export function errorCausesText(v: Pick<ValidatorSummary, 'verdict' | 'k'>, stats: Pick<RunStats, 'ruleErrors'> | undefined): string {
  const e = v.verdict === 'error' ? stats?.ruleErrors?.[v.k] : undefined;
  if (!e?.groups.length) return '';
  const shown = e.groups.slice(0, CAUSES_SHOWN);
  const items = shown.map((g) => {
    const flat = g.message.replace(/\s+/g, ' ').trim();
    return `×${g.count} ${quoted(flat.length > CAUSE_CHARS ? `${flat.slice(0, CAUSE_CHARS - 1)}…` : flat)}`;
  });
  const rest = e.total - shown.reduce((n, g) => n + g.count, 0);
  const more = e.distinct - shown.length;
  if (rest > 0) items.push(`and ${more > 0 ? `${more} more group${more === 1 ? '' : 's'}` : 'more'} (${rest} error${rest === 1 ? '' : 's'})`);
  return `error causes: ${items.join(', ')}`;
}

/** Why a rule's verdict is what it is, as one line: the bound or rule that decided it, its causes, what would decide it. */
export function verdictWhy(v: ValidatorSummary, s: Pick<RunSummary, 'M' | 'N'>, stats: Pick<RunStats, 'ruleErrors'> | undefined): string {
  return [figureText(v), stoppedText(v, s.M), v.reason, errorCausesText(v, stats), toDecideText(v, s.N), gradesToDecideText(v)].filter(Boolean).join('; ');
}

/**
 * The K columns of a run as every report names them: "3 validators", "1 verifier", or "3 rules (2 validators, 1
 * verifier)" when both kinds are there. `kinds` is each column's kind, in order (a run record's validators).
 */
export function rulesText(kinds: readonly ('validator' | 'verifier' | undefined)[]): string {
  const verifiers = kinds.filter((k) => k === 'verifier').length;
  const validators = kinds.length - verifiers;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (verifiers === 0) return plural(validators, 'validator');
  if (validators === 0) return plural(verifiers, 'verifier');
  return `${plural(kinds.length, 'rule')} (${plural(validators, 'validator')}, ${plural(verifiers, 'verifier')})`;
}

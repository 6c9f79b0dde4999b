/**
 * summarize(): the reliability tensor → the report model (RunSummary) that every report, the terminal
 * table and the dashboard read. Pure; one pass over the cells for all counts.
 */
import { aggregateRates, aggregateTensor, pickAggregate } from './aggregate.js';
import { clusteredInterval, type ClusterSums } from './cluster.js';
import type { GradedOutput } from './grades.js';
import { gradesForWidth } from './grading-sample.js';
import { figureOf, gradingAtLook, gradingSummary } from './grading-summary.js';
import { DEFAULT_GRADING_DESIGN, lookGrades, lookLevel } from './grading-looks.js';
import { INTERVAL_METHODS, interval } from './intervals.js';
import { passKSummary } from './pass-k.js';
import { combinePerInput, floorUnderSequential, perInputFloors, perInputWithSequential } from './per-input.js';
import { sequenceBounds } from './sequence.js';
import { sequentialStatus } from './stopping.js';
import { populationRate, populationVerdict } from './population.js';
import type { AggregateMethod, Counts, Estimand, PooledRate, RateWithCI, StoppingRule, Verdict, VerdictMode } from './rate-types.js';
import type { GradingSummary, InputSummary, IterationSummary, RunSummary, SummaryOptions, ValidatorSummary } from './summary-types.js';
import type { ReliabilityTensor } from './tensor.js';
import type { ValidatorMeta } from './validator.js';
import { checkVerdictArguments, correctedVerdict, DEFAULT_MAX_ERROR_SHARE, DEFAULT_VERDICT_MODE, pctBeside, validatorVerdict } from './verdict.js';
import { errorShareOf, rateOf, tensorViews } from './views.js';
import { ArgumentError } from '../errors.js';
import { formatRate } from './show.js';
import { maxOf } from './arrays.js';

/** Clopper–Pearson and confident verdicts by default: they hold their level for every p and n (docs/verdicts.md). */
export const DEFAULT_SUMMARY_OPTIONS: SummaryOptions = {
  interval: 'clopper-pearson',
  level: 0.95,
  verdict: DEFAULT_VERDICT_MODE,
  aggregate: 'mean',
  maxErrorShare: DEFAULT_MAX_ERROR_SHARE,
  stopping: 'fixed',
  estimand: 'inputs',
};

const VERDICT_MODES: readonly VerdictMode[] = ['point', 'confident'];
const AGGREGATE_METHODS: readonly AggregateMethod[] = ['mean', 'weighted', 'min'];
const STOPPING_RULES: readonly StoppingRule[] = ['fixed', 'sequential'];
export const ESTIMANDS: readonly Estimand[] = ['inputs', 'population'];

/**
 * Why `estimand: population` cannot be decided with this stopping rule, or undefined when it can. A sequential
 * run stops on samples once the inputs-run sequence decides: its stopped per-input counts would bias the
 * population rate, and no sequence over inputs is implemented yet. One wording for the config, the flags and here.
 */
export function estimandProblem(estimand: Estimand | undefined, stopping: StoppingRule | undefined): string | undefined {
  if (estimand === 'population' && stopping === 'sequential')
    return 'expected stopping: fixed with estimand: population, found "sequential": a sequential run stops on samples, and the population claim needs a number of inputs fixed in advance (sequential stopping over inputs is not supported yet)';
  return undefined;
}

/** Defaults filled in and every option checked (an ArgumentError naming the option). */
export function resolveSummaryOptions(options: Partial<SummaryOptions> = {}): SummaryOptions {
  const o: SummaryOptions = { ...DEFAULT_SUMMARY_OPTIONS };
  for (const [key, value] of Object.entries(options)) if (value !== undefined) (o as unknown as Record<string, unknown>)[key] = value;
  if (!INTERVAL_METHODS.includes(o.interval))
    throw new ArgumentError(`options.interval must be one of ${INTERVAL_METHODS.join(', ')}, got ${JSON.stringify(o.interval)}`, { key: 'interval' });
  if (!(typeof o.level === 'number' && o.level > 0 && o.level < 1))
    throw new ArgumentError(`options.level must be a number in (0, 1), got ${JSON.stringify(o.level)}`, { key: 'level' });
  if (!VERDICT_MODES.includes(o.verdict))
    throw new ArgumentError(`options.verdict must be one of ${VERDICT_MODES.join(', ')}, got ${JSON.stringify(o.verdict)}`, { key: 'verdict' });
  if (!AGGREGATE_METHODS.includes(o.aggregate))
    throw new ArgumentError(`options.aggregate must be one of ${AGGREGATE_METHODS.join(', ')}, got ${JSON.stringify(o.aggregate)}`, { key: 'aggregate' });
  if (!(typeof o.maxErrorShare === 'number' && o.maxErrorShare >= 0 && o.maxErrorShare <= 1))
    throw new ArgumentError(`options.maxErrorShare must be a number in [0, 1], got ${JSON.stringify(o.maxErrorShare)}`, { key: 'maxErrorShare' });
  if (!STOPPING_RULES.includes(o.stopping))
    throw new ArgumentError(`options.stopping must be one of ${STOPPING_RULES.join(', ')}, got ${JSON.stringify(o.stopping)}`, { key: 'stopping' });
  if (!ESTIMANDS.includes(o.estimand))
    throw new ArgumentError(`options.estimand must be one of ${ESTIMANDS.join(', ')}, got ${JSON.stringify(o.estimand)}`, { key: 'estimand' });
  const estimand = estimandProblem(o.estimand, o.stopping);
  if (estimand) throw new ArgumentError(`options.estimand: ${estimand}`, { key: 'estimand' });
  // A sequential verdict is decided by the confidence sequence's bounds: a point verdict would undo its guarantee.
  if (o.stopping === 'sequential') {
    if (options.verdict === 'point')
      throw new ArgumentError('options.verdict: stopping "sequential" decides on confidence bounds; it needs verdict "confident", got "point"', {
        key: 'verdict',
      });
    o.verdict = 'confident';
  }
  return o;
}

/** A rate with its interval from counts (errors and pending excluded from n), and its error share. */
export function rateWithCI(counts: Counts, method: SummaryOptions['interval'], level: number): RateWithCI {
  return { rate: rateOf(counts), ci: interval(method, counts.pass, counts.pass + counts.fail, level), counts, errorShare: errorShareOf(counts) };
}

/** A pooled rate whose interval takes the output as the unit (core/cluster.ts). */
export function pooledRate(counts: Counts, clusters: ClusterSums, method: SummaryOptions['interval'], level: number): PooledRate {
  const { ci, effectiveN } = clusteredInterval(clusters, method, level);
  return { rate: rateOf(counts), ci, counts, errorShare: errorShareOf(counts), outputs: clusters.clusters, effectiveN };
}

/**
 * Grades (in all) at the first grading look after the current one whose interval, at that look's level and the
 * queue's design, would be narrow enough to decide `rate` against minSuccess if the rates hold; null when no look
 * within the judged outputs would; undefined without a rate.
 */
function gradesToDecideAtLooks(
  judged: { pass: number; n: number },
  rate: number | null,
  minSuccess: number,
  grading: GradingSummary,
  level: number,
): number | null | undefined {
  if (rate === null || judged.n === 0) return undefined;
  // The interval must shrink until it no longer straddles minSuccess: a width of twice the distance.
  const width = Math.min(1, 2 * Math.abs(rate - minSuccess));
  if (width < 0.002) return null;
  const a = grading.alignment;
  // People's PASS share within each judge verdict, as graded so far (½ where a verdict has no grades).
  const within = (judge: boolean): number => {
    const cells = judge ? [a.tp, a.fp] : [a.fn, a.tn];
    return cells[0] + cells[1] > 0 ? cells[0] / (cells[0] + cells[1]) : 0.5;
  };
  for (let e = (grading.corrected?.look?.index ?? 0) + 1; lookGrades(e) <= judged.n; e++) {
    const need = gradesForWidth({
      judged,
      ...(a.tpr && a.tnr ? { tpr: a.tpr.rate, tnr: a.tnr.rate } : {}),
      width,
      level: lookLevel(e, level),
      design: DEFAULT_GRADING_DESIGN,
      shares: [within(true), within(false)],
    });
    if (!Number.isFinite(need)) return null;
    if (need <= lookGrades(e)) return lookGrades(e);
  }
  return null;
}

/** Overall verdict: fail if any validator fails, else error if any is, else inconclusive if any is, else pass. */
export function overallVerdict(verdicts: readonly Verdict[]): Verdict {
  for (const v of ['fail', 'error', 'inconclusive'] as const) if (verdicts.includes(v)) return v;
  return 'pass';
}

/** A validator's verdict under sequential stopping: its confidence sequence over the complete rounds. */
function sequentialSummary(
  t: ReliabilityTensor,
  k: number,
  v: ValidatorMeta,
  r: RateWithCI,
  opts: SummaryOptions,
  maxErrorShare: number,
): Pick<ValidatorSummary, 'ci' | 'errorBounds' | 'verdict' | 'reason' | 'sequential'> {
  const st = sequentialStatus(t, k, { minSuccess: v.minSuccess, level: opts.level, ...(v.expect !== undefined ? { expect: v.expect } : {}) });
  const c = st.counts;
  const seq = sequenceBounds(c.pass, c.fail, opts.level, v.expect);
  const sequential = { reason: st.reason, rounds: st.rounds, outputs: c.pass + c.fail + c.error, counts: c };
  const base = { ci: seq ? { ...seq, method: 'confidence-sequence' as const, level: opts.level } : null, errorBounds: st.bounds, sequential };
  if (st.decision === 'pass')
    return {
      ...base,
      verdict: 'pass',
      reason: `sequence lower bound ${pctBeside(st.bounds!.low, v.minSuccess)} ≥ minSuccess ${formatRate(v.minSuccess)}${c.error ? ', errors counted as failures' : ''}`,
    };
  if (st.decision === 'fail')
    return {
      ...base,
      verdict: 'fail',
      reason: `sequence upper bound ${pctBeside(st.bounds!.high, v.minSuccess)} < minSuccess ${formatRate(v.minSuccess)}${c.error ? ', errors counted as passes' : ''}`,
    };
  const n = c.pass + c.fail + c.error;
  const share = n > 0 ? c.error / n : 0;
  const open =
    st.reason === 'samples' ? `undecided after all ${t.M} samples per input` : `undecided after ${st.rounds} of ${t.M} samples per input; samples remain`;
  if (n > 0 && (c.pass + c.fail === 0 || share > maxErrorShare))
    return { ...base, verdict: 'error', reason: `${open}; error share ${formatRate(share)} > maxErrorShare ${formatRate(maxErrorShare)}` };
  return { ...base, verdict: 'inconclusive', reason: r.rate === null && n === 0 ? 'nothing checked' : open };
}

/** A corrected verdict decided on the input population: its reason says so ("population upper bound …"). */
function onPopulationReason<T extends { reason: string }>(r: T): T {
  return { ...r, reason: r.reason.replace(/^(rate|lower bound|upper bound|bounds)\b/, 'population $1') };
}

/**
 * The report model of a tensor. `grades`, one list per rule k (core/grades.ts combineGrades), checks each
 * graded rule against people: its alignment, and its rate and verdict corrected by the grades (docs/judges.md).
 */
export function summarize(
  t: ReliabilityTensor,
  validators: readonly ValidatorMeta[],
  options?: Partial<SummaryOptions>,
  grades?: readonly (readonly GradedOutput[])[],
): RunSummary {
  if (validators.length !== t.K) {
    throw new ArgumentError(`summarize: the tensor has K = ${t.K} validator columns but ${validators.length} validators were given`, { key: 'validators' });
  }
  if (grades !== undefined && grades.length !== t.K)
    throw new ArgumentError(`summarize: grades must hold one list per validator (K = ${t.K}), got ${grades.length}`, { key: 'grades' });
  const opts = resolveSummaryOptions(options);
  const views = tensorViews(t);
  const rc = (c: Counts): RateWithCI => rateWithCI(c, opts.interval, opts.level);

  // The floors' exact tests need a number of samples fixed in advance (core/per-input.ts); config load refuses the pair.
  const floored = floorUnderSequential(opts.stopping, validators);
  if (floored !== undefined) throw new ArgumentError(perInputWithSequential(`validator ${JSON.stringify(validators[floored].name)}`), { key: 'perInput' });
  const validatorSummaries: ValidatorSummary[] = validators.map((v, k) => {
    const r = rc(views.perValidator[k]);
    const maxErrorShare = v.maxErrorShare ?? opts.maxErrorShare;
    checkVerdictArguments(v.minSuccess, maxErrorShare);
    const head = { k, name: v.name, message: v.message, kind: v.kind, minSuccess: v.minSuccess, weight: v.weight, maxErrorShare };
    const sequential = opts.stopping === 'sequential';
    // A sequential run's verdict is its confidence sequence's: grades are shown against it, never used to correct it.
    // Otherwise the corrected verdict moves only at grading looks, α spent over them (core/grading-looks.ts).
    const grading = grades?.[k]?.length
      ? sequential
        ? gradingSummary(t, k, grades[k], r.counts, opts.level, false)
        : gradingAtLook(t, k, grades[k], r.counts, opts.level, true)
      : undefined;
    const figure = figureOf(v.kind, grading, sequential);
    const graded: { figure?: string; grading?: typeof grading } = { ...(figure !== undefined ? { figure } : {}), ...(grading ? { grading } : {}) };
    if (sequential && v.passK)
      throw new ArgumentError(`validator ${JSON.stringify(v.name)}: passK cannot be estimated with stopping "sequential"; use stopping "fixed"`, {
        key: 'passK',
      });
    if (sequential) return { ...head, ...r, ...sequentialSummary(t, k, v, r, opts, maxErrorShare), ...graded };
    const verdictOptions = { mode: opts.verdict, interval: opts.interval, level: opts.level, maxErrorShare };
    const rows = views.rows.map((row) => row[k]);
    const population = populationRate(rows, opts.level);
    // Under estimand population the verdict is about the input population: a graded rule is decided on its corrected
    // rate's population form (core/population-corrected.ts) where it has one; where not, on the judge's, saying why.
    const onPopulation = opts.estimand === 'population';
    const corrected = onPopulation ? undefined : grading?.corrected;
    const correctedPop = onPopulation ? grading?.corrected?.population : undefined;
    const { verdict, reason, errorBounds, toDecide } = correctedPop
      ? onPopulationReason(correctedVerdict(r.counts, correctedPop, v.minSuccess, verdictOptions))
      : onPopulation
        ? populationVerdict(rows, v.minSuccess, { mode: opts.verdict, level: opts.level, maxErrorShare })
        : corrected
          ? correctedVerdict(r.counts, corrected, v.minSuccess, verdictOptions)
          : validatorVerdict(r.counts, v.minSuccess, verdictOptions);
    if (correctedPop) graded.figure = graded.figure?.replace(/^corrected by (.*?) grades/, 'corrected by $1 grades over the input population');
    else if (onPopulation && grading?.corrected)
      graded.figure = `judge's rate over the input population · grades not used: the corrected rate has no population form here (${grading.corrected.populationRefused ?? 'not computed'})`;
    const s: ValidatorSummary = { ...head, ...r, ...(population ? { population } : {}), errorBounds, verdict, reason, ...graded };
    if (toDecide !== undefined) s.toDecide = toDecide;
    // Graded, undecided by the grades (inconclusive at its look, or too few grades for a look): the next look that
    // would decide it if the rates hold — a plan of grades, each look at its own level.
    if (!onPopulation && grading && grading.grades > 0 && (corrected ? verdict === 'inconclusive' : grading.corrected === null)) {
      const need = gradesToDecideAtLooks(
        { pass: r.counts.pass, n: r.counts.pass + r.counts.fail },
        corrected?.rate ?? r.rate,
        v.minSuccess,
        grading,
        opts.level,
      );
      if (need !== undefined) s.gradesToDecide = need;
    }
    if (v.perInput) {
      const floors = perInputFloors(
        views.rows.map((row) => row[k]),
        v.perInput,
        { mode: opts.verdict, level: opts.level, maxErrorShare },
      );
      s.perInput = floors;
      s.verdict = combinePerInput(verdict, floors.verdict);
      s.reason = `${reason}; per input: ${floors.reason}`;
      // More outputs decide the aggregate; they need not decide the floors.
      if (floors.verdict !== 'pass') delete s.toDecide;
    }
    if (v.passK) {
      const pk = passKSummary(
        views.rows.map((row) => row[k]),
        v.passK,
        { mode: opts.verdict, level: opts.level, maxErrorShare },
      );
      s.passK = pk;
      // A gate on pass^k is part of the rule's verdict, as a per-input floor is.
      if (pk.verdict !== undefined) {
        s.verdict = combinePerInput(s.verdict, pk.verdict);
        s.reason = `${s.reason}; ${pk.reason}`;
        if (pk.verdict !== 'pass') delete s.toDecide;
      }
    }
    return s;
  });

  const inputs: InputSummary[] = views.perInput.map((c, i) => ({
    i,
    ...pooledRate(c, views.clusters.perInput[i], opts.interval, opts.level),
    allPass: rc(views.allPassPerInput[i]),
    perValidator: views.rows[i].map(rc),
  }));
  const iterations: IterationSummary[] = views.perIteration.map((c, j) => ({ j, ...pooledRate(c, views.clusters.perIteration[j], opts.interval, opts.level) }));

  const weights = validators.map((v) => v.weight);
  const byRates = aggregateRates(
    validatorSummaries.map((v) => v.rate),
    weights,
  );
  const tensor = aggregateTensor(t, weights, views);

  const summary: RunSummary = {
    N: t.N,
    M: t.M,
    K: t.K,
    options: opts,
    validators: validatorSummaries,
    inputs,
    iterations,
    allOutputs: pooledRate(views.all, views.clusters.all, opts.interval, opts.level),
    allPass: rc(views.allPass),
    overall: {
      ...byRates,
      method: opts.aggregate,
      value: pickAggregate(opts.aggregate, byRates),
      errorShare: errorShareOf(views.all),
      undecidedValidators: validatorSummaries.filter((v) => v.rate === null).length,
      tensor,
    },
    verdict: overallVerdict(validatorSummaries.map((v) => v.verdict)),
  };
  if (opts.stopping === 'sequential')
    summary.stoppedAfter = maxOf(
      validatorSummaries.map((v) => v.sequential!.rounds),
      0,
    );
  return summary;
}

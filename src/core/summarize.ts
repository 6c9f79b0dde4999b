/**
 * summarize(): the reliability tensor → the report model (RunSummary) that every report, the terminal
 * table and the dashboard read. Pure; one pass over the cells for all counts.
 */
import { aggregateRates, aggregateTensor, pickAggregate } from './aggregate.js';
import { INTERVAL_METHODS, interval } from './intervals.js';
import type {
  AggregateMethod,
  Counts,
  InputSummary,
  IterationSummary,
  RateWithCI,
  RunSummary,
  SummaryOptions,
  ValidatorSummary,
  Verdict,
  VerdictMode,
} from './summary-types.js';
import type { ReliabilityTensor } from './tensor.js';
import type { ValidatorMeta } from './validator.js';
import { validatorVerdict } from './verdict.js';
import { rateOf, tensorViews } from './views.js';

export const DEFAULT_SUMMARY_OPTIONS: SummaryOptions = {
  interval: 'wilson',
  level: 0.95,
  verdict: 'point',
  aggregate: 'mean',
};

const VERDICT_MODES: readonly VerdictMode[] = ['point', 'confident'];
const AGGREGATE_METHODS: readonly AggregateMethod[] = ['mean', 'weighted', 'min'];

/** Defaults filled in and every option checked (RangeError naming the option). */
export function resolveSummaryOptions(options: Partial<SummaryOptions> = {}): SummaryOptions {
  const o: SummaryOptions = { ...DEFAULT_SUMMARY_OPTIONS };
  for (const [key, value] of Object.entries(options)) if (value !== undefined) (o as unknown as Record<string, unknown>)[key] = value;
  if (!INTERVAL_METHODS.includes(o.interval)) throw new RangeError(`options.interval must be one of ${INTERVAL_METHODS.join(', ')}, got ${JSON.stringify(o.interval)}`);
  if (!(typeof o.level === 'number' && o.level > 0 && o.level < 1)) throw new RangeError(`options.level must be a number in (0, 1), got ${JSON.stringify(o.level)}`);
  if (!VERDICT_MODES.includes(o.verdict)) throw new RangeError(`options.verdict must be one of ${VERDICT_MODES.join(', ')}, got ${JSON.stringify(o.verdict)}`);
  if (!AGGREGATE_METHODS.includes(o.aggregate)) throw new RangeError(`options.aggregate must be one of ${AGGREGATE_METHODS.join(', ')}, got ${JSON.stringify(o.aggregate)}`);
  return o;
}

/** A rate with its interval from counts (errors and pending excluded from n). */
export function rateWithCI(counts: Counts, method: SummaryOptions['interval'], level: number): RateWithCI {
  return { rate: rateOf(counts), ci: interval(method, counts.pass, counts.pass + counts.fail, level), counts };
}

/** Overall verdict: fail if any validator fails, else inconclusive if any is, else pass. */
export function overallVerdict(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.includes('fail')) return 'fail';
  if (verdicts.includes('inconclusive')) return 'inconclusive';
  return 'pass';
}

export function summarize(t: ReliabilityTensor, validators: readonly ValidatorMeta[], options?: Partial<SummaryOptions>): RunSummary {
  if (validators.length !== t.K) {
    throw new RangeError(`summarize: the tensor has K = ${t.K} validator columns but ${validators.length} validators were given`);
  }
  const opts = resolveSummaryOptions(options);
  const views = tensorViews(t);
  const rc = (c: Counts): RateWithCI => rateWithCI(c, opts.interval, opts.level);

  const validatorSummaries: ValidatorSummary[] = validators.map((v, k) => {
    const r = rc(views.perValidator[k]);
    const { verdict, samplesToDecide } = validatorVerdict(r.counts.pass, r.counts.pass + r.counts.fail, v.minSuccess, {
      mode: opts.verdict,
      interval: opts.interval,
      level: opts.level,
    });
    const s: ValidatorSummary = {
      k,
      name: v.name,
      message: v.message,
      kind: v.kind,
      minSuccess: v.minSuccess,
      weight: v.weight,
      ...r,
      verdict,
    };
    if (samplesToDecide !== undefined) s.samplesToDecide = samplesToDecide;
    return s;
  });

  const inputs: InputSummary[] = views.perInput.map((c, i) => ({
    i,
    ...rc(c),
    allPass: rc(views.allPassPerInput[i]),
    perValidator: views.rows[i].map(rc),
  }));
  const iterations: IterationSummary[] = views.perIteration.map((c, j) => ({ j, ...rc(c) }));

  const weights = validators.map((v) => v.weight);
  const byRates = aggregateRates(
    validatorSummaries.map((v) => v.rate),
    weights,
  );
  const tensor = aggregateTensor(t, weights, views);

  return {
    N: t.N,
    M: t.M,
    K: t.K,
    options: opts,
    validators: validatorSummaries,
    inputs,
    iterations,
    allOutputs: rc(views.all),
    allPass: rc(views.allPass),
    overall: { ...byRates, method: opts.aggregate, value: pickAggregate(opts.aggregate, byRates), tensor },
    verdict: overallVerdict(validatorSummaries.map((v) => v.verdict)),
  };
}

import type { Command } from 'commander';
import type { ErrorPolicy } from '../core/independence.js';
import { planFromRates, type RatePlan } from '../core/retry.js';
import { planFromTensor, type TensorRetryPlan } from '../core/retry-tensor.js';
import { fixedSampleSize, MAX_PLANNED_SAMPLES, sequentialSampleSize } from '../core/sample-size.js';
import type { IntervalMethod } from '../core/summary-types.js';
import { intervalProblem } from '../core/verdict.js';
import { UsageError } from '../errors.js';
import { openStore, storeLocation } from '../store/open.js';
import { resolveRunId } from '../store/resolve.js';
import { STORE_FLAG, STORE_HELP } from './store-flag.js';
import { decimal, flagError, oneOfFlag, shareFlag, usdFlag } from './flags.js';
import { formatPopulationPlan, populationPlan } from './plan-population.js';
import { formatRate, NO_VALUE } from '../core/show.js';
import { maxOf } from '../core/arrays.js';

/**
 * `assay plan`: what the guard will cost (white paper §4.2). From validator rates (--rates) or from a stored
 * run's tensor (--run), with m = the maximum number of attempts including the first.
 */

interface PlanFlags {
  rates?: string;
  run?: string;
  minSuccess?: string;
  expect?: string;
  power: string;
  store?: string;
  confidence: string;
  level: string;
  interval: string;
  errors: string;
  alpha: string;
  populationWidth?: string;
  inputCost?: string;
  sampleCost?: string;
  json?: boolean;
}

/** Comma-separated rates in [0, 1], or a UsageError naming the flag, the position and what was found. */
export function parseRates(text: string): number[] {
  const parts = text.split(',').map((s) => s.trim());
  return parts.map((s, k) => {
    const p = decimal(s);
    if (!(p >= 0 && p <= 1)) throw flagError('--rates', 'comma-separated numbers in [0, 1]', s, `at position ${k + 1} of ${JSON.stringify(text)}`);
    return p;
  });
}

const num = (x: number | null | undefined, digits = 4) => (x === null || x === undefined ? '∞' : Number.isInteger(x) ? String(x) : x.toFixed(digits));
// The plan's probabilities need two decimals (99.95% is not 100.0%).
const pct = (x: number | null | undefined) => formatRate(x, 2);

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => maxOf(rows.map((r) => r[c].length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ')).join('\n');
}

export function formatRatePlan(p: RatePlan, rates: number[]): string {
  return [
    `validator rates        ${rates.join(', ')}`,
    `P_pass = Π p_k         ${p.p_pass > 0 && p.p_pass < 1e-6 ? p.p_pass.toExponential(3) : num(p.p_pass, 6)}`,
    `E[attempts] = 1/P_pass ${num(p.expected_attempts)}`,
    `E[retries]             ${num(p.expected_retries)}`,
    `m (max attempts, incl. the first) for ${pct(p.confidence)}: ${p.m ?? (p.p_pass > 0 ? 'more than 2^53 attempts (P_pass too small to plan for)' : 'unreachable (P_pass = 0)')}`,
    `P(success within m)    ${pct(p.p_success_within_m)}`,
  ].join('\n');
}

/** One row of the model table: NO_VALUE where there is no data, '∞' where the figure is unbounded (P_pass = 0). */
function modelRow(label: string, p: { p_pass: number; expected_attempts: number | null; m: number | null } | null | undefined): string[] {
  return p ? [label, num(p.p_pass), num(p.expected_attempts), num(p.m)] : [label, NO_VALUE, NO_VALUE, NO_VALUE];
}

export function formatTensorPlan(p: TensorRetryPlan & { run_id: string }, labels: string[]): string {
  const out: string[] = [
    `run ${p.run_id}: ${p.N} inputs × ${p.M} samples × ${p.K} validators; target ${pct(p.confidence)}; intervals ${pct(p.level)}; errors: ${p.errors}`,
  ];
  out.push(
    p.m === null
      ? `guard over these inputs: no m reaches ${pct(p.confidence)}${p.per_input ? ` (${p.per_input.unreachable_inputs} input(s) never passed)` : ' (no decided sample)'}`
      : `guard over these inputs: m = ${p.m} attempts (incl. the first) succeed on ${pct(p.p_success_within_m)} of calls; E[attempts] ${num(p.expected_attempts)}` +
          (p.per_input?.max_m != null && p.per_input.max_m > p.m ? `; each input on its own needs up to m = ${p.per_input.max_m}` : ''),
    '',
  );
  out.push(
    table([
      ['model', 'P_pass', 'E[attempts]', 'm'],
      modelRow('product of marginals (paper)', p.product),
      modelRow('empirical joint (pooled)', p.joint),
      modelRow('per input (mixture): headline', p.per_input),
    ]),
  );
  const short = p.joint?.per_input_success_within_m;
  if (p.joint?.m != null && short != null && short < p.confidence) {
    out.push(`(inputs differ: the pooled rate's m = ${p.joint.m} would succeed on only ${pct(short)} of calls, not ${pct(p.confidence)})`);
  }
  if (p.per_input && p.per_input.unreachable_inputs > 0) {
    out.push(`(${p.per_input.unreachable_inputs} input(s) never passed every validator: their attempts are unbounded)`);
  }
  out.push('', 'per input:');
  out.push(
    table([
      ['#', 'input', 'P_pass,i', 'CI', 'E[attempts]_i', 'm_i', 'm_i CI', 'n'],
      ...p.inputs.map((x) => [
        String(x.i + 1),
        (labels[x.i] ?? '').slice(0, 32),
        num(x.p_pass, 3),
        x.p_pass_ci ? `[${x.p_pass_ci.low.toFixed(3)}, ${x.p_pass_ci.high.toFixed(3)}]` : NO_VALUE,
        x.p_pass === null ? NO_VALUE : num(x.expected_attempts, 3),
        x.p_pass === null ? NO_VALUE : num(x.m),
        x.m_ci ? `[${num(x.m_ci.low)}, ${num(x.m_ci.high)}]` : NO_VALUE,
        String(x.samples),
      ]),
    ]),
  );
  const ind = p.independence;
  out.push(
    '',
    `independence: observed all-pass ${pct(ind.observed_rate)} vs product ${pct(ind.product_rate)} over ${ind.samples} samples; exact conditional p = ${ind.p_value.toPrecision(3)}${ind.within_input ? `, within inputs p = ${ind.within_input.p_value.toPrecision(3)}` : ''}`,
  );
  out.push(
    p.K < 2
      ? '  one validator: nothing to test'
      : ind.independent
        ? `  consistent with independence at α = ${ind.alpha}: the product formula is usable`
        : `  the product formula MISPREDICTS at α = ${ind.alpha}${ind.flagged_validators.length ? `; associated validators: ${ind.flagged_validators.join(', ')}` : ''} — use the empirical figures`,
  );
  for (const pr of ind.pairs) {
    out.push(
      `  ${pr.names[0]} × ${pr.names[1]}: phi ${pr.phi.toFixed(3)}, Fisher p ${pr.p_value.toPrecision(3)} (Holm ${pr.p_adjusted.toPrecision(3)})${pr.flagged ? '  ← flagged' : ''}`,
    );
  }
  return out.join('\n');
}

const label = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** What a verdict costs (`--min-success --expect --power`): the fixed n and the sequential design's expected and worst-case n. */
export interface SampleSizePlan {
  fixed: { n: number | null };
  sequential: { expected_n: number | null; max_n: number | null };
}

export function formatSampleSizePlan(
  p: SampleSizePlan,
  o: { minSuccess: number; expect: number; power: number; level: number; method?: IntervalMethod },
): string {
  const verdict = o.expect >= o.minSuccess ? 'pass' : 'fail';
  const n = (x: number | null) => (x === null ? `more than ${MAX_PLANNED_SAMPLES.toExponential(0)} (too close to minSuccess to plan)` : String(x));
  return [
    `to ${verdict} minSuccess ${pct(o.minSuccess)} with probability ${pct(o.power)} when the rate is ${pct(o.expect)}, at level ${pct(o.level)}:`,
    `fixed (confident verdict, ${o.method === 'wilson' ? 'Wilson' : 'Clopper–Pearson'})   n = ${n(p.fixed.n)} outputs`,
    `sequential (stopping: sequential, expect ${o.expect})   expected n = ${p.sequential.expected_n === null ? NO_VALUE : p.sequential.expected_n.toFixed(1)}, at most ${n(p.sequential.max_n)} outputs (set samples so that inputs × samples ≥ max n)`,
  ].join('\n');
}

/** `assay plan --min-success --expect`: sample sizes for a verdict (core/sample-size.ts). */
function sampleSizeCommand(flags: PlanFlags, level: number, method: IntervalMethod): void {
  // The plan is for the verdict a run would give: Wald is refused with confident verdicts (core/verdict.ts).
  const problem = intervalProblem(method, 'confident');
  if (problem) throw new UsageError(`--interval: ${problem}`, { path: '--interval' });
  if (flags.minSuccess === undefined || flags.expect === undefined) {
    throw new UsageError(`assay plan: --min-success and --expect go together, found only ${flags.minSuccess === undefined ? '--expect' : '--min-success'}`, {
      path: flags.minSuccess === undefined ? '--min-success' : '--expect',
    });
  }
  const minSuccess = shareFlag('--min-success', flags.minSuccess, { open: true })!;
  const expect = shareFlag('--expect', flags.expect, { open: true })!;
  const power = shareFlag('--power', flags.power, { open: true })!;
  if (expect === minSuccess)
    throw new UsageError(`--expect: expected a rate different from --min-success (${minSuccess}); no sample size tells a rate from itself`, {
      path: '--expect',
    });
  const options = { minSuccess, expect, power, level, method };
  const fixed = fixedSampleSize(options);
  const seq = sequentialSampleSize(options);
  const plan: SampleSizePlan = { fixed: { n: fixed?.n ?? null }, sequential: { expected_n: seq?.expected_n ?? null, max_n: seq?.max_n ?? null } };
  process.stdout.write(flags.json ? `${JSON.stringify(plan)}\n` : `${formatSampleSizePlan(plan, options)}\n`);
}

async function planCommand(flags: PlanFlags): Promise<void> {
  const confidence = shareFlag('--confidence', flags.confidence, { open: true })!;
  const level = shareFlag('--level', flags.level, { open: true })!;
  const alpha = shareFlag('--alpha', flags.alpha, { open: true })!;
  const method = oneOfFlag<IntervalMethod>('--interval', flags.interval, ['clopper-pearson', 'wilson', 'wald'])!;
  const errors = oneOfFlag<ErrorPolicy>('--errors', flags.errors, ['exclude', 'fail'])!;
  if ((flags.populationWidth !== undefined || flags.inputCost !== undefined || flags.sampleCost !== undefined) && flags.run === undefined)
    throw new UsageError('--population-width: plans from a pilot run: give --run <runId> with it', { path: '--population-width' });
  if (flags.populationWidth === undefined && (flags.inputCost !== undefined || flags.sampleCost !== undefined))
    throw new UsageError('--input-cost and --sample-cost price the designs of --population-width <w>: give it too', { path: '--population-width' });
  const modes = [
    flags.rates !== undefined && '--rates',
    flags.run !== undefined && '--run',
    (flags.minSuccess !== undefined || flags.expect !== undefined) && '--min-success/--expect',
  ].filter(Boolean);
  if (modes.length !== 1) {
    throw new UsageError(
      `assay plan: expected exactly one of --rates <list>, --run <runId> or --min-success <rate> --expect <rate>, found ${modes.length === 0 ? 'none' : modes.join(' and ')}`,
    );
  }
  if (flags.minSuccess !== undefined || flags.expect !== undefined) return sampleSizeCommand(flags, level, method);
  if (flags.rates !== undefined) {
    const rates = parseRates(flags.rates);
    const plan = planFromRates(rates, confidence);
    process.stdout.write(flags.json ? `${JSON.stringify({ rates, ...plan }, null, 2)}\n` : `${formatRatePlan(plan, rates)}\n`);
    return;
  }
  await using store = await openStore(storeLocation(flags.store), { readonly: true });
  const run = (await store.runs.get(await resolveRunId(store, flags.run!, '--run')))!;
  const tensor = await store.samples.tensor(run.id);
  if (flags.populationWidth !== undefined) {
    const width = shareFlag('--population-width', flags.populationWidth, { open: true, hint: 'e.g. 0.1' })!;
    const inputCost = flags.inputCost === undefined ? 0 : usdFlag('--input-cost', flags.inputCost)!;
    const sampleCost = flags.sampleCost === undefined ? 1 : usdFlag('--sample-cost', flags.sampleCost)!;
    const p = populationPlan(run, tensor, { width, level, inputCost, sampleCost });
    process.stdout.write(flags.json ? `${JSON.stringify(p, null, 2)}\n` : `${formatPopulationPlan(p)}\n`);
    return;
  }
  const plan = planFromTensor(tensor, { confidence, level, method, errors, alpha, names: run.validators.map((v) => v.name) });
  // The headline figures (the per-input mixture's) come first; the paper's product and the pooled rate beside them.
  const out = {
    run_id: run.id,
    name: run.name,
    ...plan,
    inputs: plan.inputs.map((x) => ({ ...x, input: run.inputs[x.i] })),
  };
  process.stdout.write(flags.json ? `${JSON.stringify(out, null, 2)}\n` : `${formatTensorPlan(out, run.inputs.map(label))}\n`);
}

export function register(program: Command): void {
  program
    .command('plan')
    .description('Predict what things cost: the attempts the guard makes (--rates, --run), or the outputs a verdict needs (--min-success --expect)')
    .option('--rates <list>', 'validator success rates, comma-separated, e.g. 0.95,0.90,0.85')
    .option('--run <runId>', 'plan from a stored run’s reliability tensor (per-input figures and an independence check)')
    .option('--min-success <rate>', 'sample sizes: the minimum success rate the verdict checks')
    .option('--expect <rate>', 'sample sizes: the rate the system is expected to have')
    .option('--power <p>', 'sample sizes: probability that the verdict comes out right (pass above minSuccess, fail below)', '0.8')
    .option(STORE_FLAG, STORE_HELP)
    .option('--confidence <c>', 'target probability of success within m attempts', '0.99')
    .option('--level <l>', 'confidence level of the intervals and of the verdict', '0.95')
    .option('--interval <method>', 'clopper-pearson | wilson | wald', 'clopper-pearson')
    .option('--errors <policy>', 'exclude (default) or fail: how error cells count', 'exclude')
    .option('--alpha <a>', 'significance level of the independence check', '0.01')
    .option(
      '--population-width <w>',
      'with --run: inputs against samples per input for an input-population interval at most this wide, from the run as a pilot',
    )
    .option('--input-cost <c>', 'with --population-width: the cost of one more input (default 0)')
    .option('--sample-cost <c>', 'with --population-width: the cost of one output (default 1)')
    .option('--json', 'print JSON')
    .action((flags: PlanFlags) => planCommand(flags));
}

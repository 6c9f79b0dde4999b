import { Outcome } from '../core/outcome.js';
import { formatRate, inputInline, quoted, formatLevel } from '../core/show.js';
import type { RunSummary } from '../core/summary-types.js';
import type { InputValue } from '../core/validator.js';
import { countsWhose, shownRate } from '../report/grading-text.js';
import { errorCausesText, errorShareText, stoppedText, toDecideText, verdictLabel } from '../report/meta.js';
import { passKRuleLines } from '../report/pass-k.js';
import { INPUTS_RUN, rulePopulationText } from '../report/population.js';
import { perInputHead, perInputItems } from '../report/per-input.js';
import type { RunStats } from '../run/stats.js';
import type { SampleRecord } from '../store/types.js';
import { storedWhen } from './when.js';

/**
 * What a reliability test says when it does not pass: the rule's verdict with its rate, interval and error
 * share (the figures every assay report shows, from the run's summary: nothing is decided here), why, what
 * would decide it, and the inputs that failed it most with one failing output each.
 */

/** Worst inputs named in a message. */
export const WORST_SHOWN = 3;
const OUTPUT_SHOWN = 120;

/** One input that failed the rule, with how often and an output that failed it. */
export interface WorstInput {
  i: number;
  rate: number | null;
  fail: number;
  decided: number;
  example?: string;
}

/** The inputs that failed rule k most often (lowest rate first), each with its first failing output. */
export function worstInputs(s: RunSummary, k: number, samples: readonly SampleRecord[], max = WORST_SHOWN): WorstInput[] {
  const rows = s.inputs
    .map((x) => ({ i: x.i, r: x.perValidator[k] }))
    .filter((x) => x.r && x.r.counts.fail > 0)
    .sort((a, b) => (a.r.rate ?? 1) - (b.r.rate ?? 1) || b.r.counts.fail - a.r.counts.fail || a.i - b.i)
    .slice(0, max);
  return rows.map(({ i, r }) => {
    const failed = samples.filter((x) => x.i === i && x.outcomes[k] === Outcome.FAIL && x.output !== undefined).sort((a, b) => a.j - b.j)[0];
    return {
      i,
      rate: r.rate,
      fail: r.counts.fail,
      decided: r.counts.pass + r.counts.fail,
      ...(failed ? { example: failed.output } : {}),
    };
  });
}

/** The verdict line of rule k: "no-apology-loop: FAIL · rate 62.0% [48.2%, 74.1%] (95% CI, inputs run) · minSuccess 95.0% · errors 0.0%". */
export function ruleHeadline(s: RunSummary, k: number): string {
  const v = s.validators[k];
  // The headline gives the claim the verdict is about: the inputs run, or (estimand population) the input population.
  const onPopulation = s.options.estimand === 'population' && v.population !== undefined;
  const shown = onPopulation ? (v.grading?.corrected?.population ?? v.population!) : shownRate(v);
  const level = `${formatLevel(s.options.level)} ${s.options.stopping === 'sequential' ? 'CS' : 'CI'}, ${onPopulation ? 'input population' : INPUTS_RUN}`;
  const interval = shown.low === null ? 'no interval' : `[${formatRate(shown.low)}, ${formatRate(shown.high)}] (${level})`;
  const counts = `${countsWhose(v)}${v.counts.pass} pass, ${v.counts.fail} fail, ${v.counts.error} error`;
  return `${v.name}: ${verdictLabel(v.verdict, s.options.verdict)} · rate ${formatRate(shown.rate)} ${interval} · minSuccess ${formatRate(v.minSuccess)} · errors ${formatRate(v.errorShare)} (${counts})`;
}

/** Why a run ended short of its N × M samples: a stop rule's cause (calls failing the same way), or runTimeoutMs. */
export type EarlyStop = { by: 'rule'; cause: string } | { by: 'runTimeoutMs'; ms: number };

/**
 * The line every rule's message carries when the run stopped early: after how many samples, and why, e.g.
 * "the run stopped early after 8 of 30 samples: 5 samples in a row failed the same way (invalid_response): …".
 */
export function earlyStopText(stop: EarlyStop, done: number, total: number, unit: 'samples' | 'calls' = 'samples'): string {
  const after = `after ${done} of ${total} ${unit}`;
  return stop.by === 'runTimeoutMs'
    ? `the run stopped at runTimeoutMs (${stop.ms} ms) ${after}; it is stored as interrupted (raise runTimeoutMs, or lower samples)`
    : `the run stopped early ${after}: ${stop.cause}`;
}

/**
 * The whole message of rule k: headline, why the run stopped early (if it did), reason, what would decide it
 * (inconclusive), where a sequential rule stopped, and the worst inputs with an example output each.
 */
export function ruleMessage(
  s: RunSummary,
  k: number,
  inputs: readonly InputValue[],
  samples: readonly SampleRecord[],
  opts: { single?: boolean; stopped?: string; stats?: Pick<RunStats, 'ruleErrors'>; fromCache?: string } = {},
): string {
  const v = s.validators[k];
  const lines = [ruleHeadline(s, k)];
  if (opts.stopped) lines.push(`  ${opts.stopped}`);
  if (opts.fromCache) lines.push(`  ${opts.fromCache}`);
  const why = [v.reason, errorCausesText(v, opts.stats), stoppedText(v, s.M), toDecideText(v, s.N)].filter(Boolean).join('; ');
  if (why) lines.push(`  ${why}`);
  // The other claim: the inputs you will meet, the input as the unit (the verdict rests on it under estimand population).
  const population = rulePopulationText(v);
  if (population) lines.push(`  ${population}`);
  // A per-input floor (perInput): its verdict and the inputs below it, as every report says them.
  if (v.perInput) {
    lines.push(`  ${perInputHead(v.perInput, s.options.verdict)}`);
    for (const item of perInputItems(v.perInput, inputs)) lines.push(`    ${item}`);
  }
  // pass^k (passK): the figures over inputs with their intervals, the gate, and the inputs lowest in it.
  for (const l of passKRuleLines(v, s.options.verdict, inputs, '  ')) lines.push(`  ${l}`);
  const worst = worstInputs(s, k, samples);
  // One call repeated (toHoldReliably): its input is nothing to show, a failing output is.
  if (opts.single) {
    if (worst[0]?.example !== undefined) lines.push(`  e.g. ${outputInline(worst[0].example)}`);
    return lines.join('\n');
  }
  if (worst.length) {
    lines.push(`  worst input${worst.length > 1 ? 's' : ''}:`);
    for (const w of worst) {
      const errs = s.inputs[w.i]?.perValidator[k];
      const share = errs ? errorShareText(errs) : '';
      // Passes over decided, then the rate, as the per-input floors write it ("19/40 = 47.5%"), then the failures.
      lines.push(
        `    #${w.i + 1} ${inputInline(inputs[w.i], 60)}: ${w.decided - w.fail}/${w.decided} = ${formatRate(w.rate)} (${w.fail} failed${share ? `, ${share}` : ''})`,
      );
      if (w.example !== undefined) lines.push(`       e.g. ${outputInline(w.example)}`);
    }
  }
  return lines.join('\n');
}

/** An output inside a message: quoted, one line, at most OUTPUT_SHOWN characters. */
export function outputInline(output: string, max = OUTPUT_SHOWN): string {
  const text = output.replace(/\s+/g, ' ').trim();
  return quoted(text.length > max ? `${text.slice(0, max - 1)}…` : text);
}

/**
 * The line a rule's message carries when answers came from the cache: how many, stored when, and whether the run
 * was a replay (no call made: not stored as a new run). undefined when nothing came from the cache.
 */
export function cacheText(l: { hits: number; misses: number; oldest?: string; newest?: string }, replay: boolean): string | undefined {
  if (l.hits === 0 || l.oldest === undefined) return undefined;
  const when = storedWhen(l.oldest, l.newest ?? l.oldest);
  const of = `${l.hits} of ${l.hits + l.misses} answers`;
  return replay
    ? `replayed from the cache: ${of}, stored ${when}; no call made, so this replay is not stored as a new run (ASSAY_CACHE=0 calls again)`
    : `from the cache: ${of}, stored ${when}; the other ${l.misses} called now`;
}

/** Said when calls ran out of time: the limit, where it came from and how to change it. */
export function callTimeoutText(ms: number, set: boolean): string {
  const limit = `${ms} ms (timeoutMs${set ? '' : ", assay/vitest's default"})`;
  return `calls to the system got no answer within ${limit}; a system that hangs is an error, not a failure — set timeoutMs in the block's options to allow longer`;
}

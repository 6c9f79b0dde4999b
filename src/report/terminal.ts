import { displayWidth } from './width.js';
import type { RateWithCI, RunSummary, Verdict } from '../core/summary-types.js';
import { errorSummaryLines } from '../run/error-groups.js';
import { errorSummaryOf } from '../run/stats.js';
import { costSummary } from './cost.js';
import { formatRate, inputInline, NO_VALUE, formatLevel } from '../core/show.js';
import { aggregatesWhose, alignmentText, confusionRows, disagreementHead, figureText, gradesText, reasonsText, shownRate } from './grading-text.js';
import { passKLines } from './pass-k.js';
import { estimandText, INPUTS_RUN, populationLines, populationPlanLines } from './population.js';
import { perInputLines } from './per-input.js';
import { agentLine } from './trajectory.js';
import { errorShareText, rulesText, verdictWhy, verdictLabel, verdictPasses, type ReportMeta } from './meta.js';
import { maxOf, pushAll } from '../core/arrays.js';
import { assayCommandLine } from '../invocation.js';

/** The terminal summary printed after a run (and by `assay show`). Plain text; colour only when asked. */

export interface TerminalOptions {
  /** ANSI colours for verdicts (on a TTY). */
  color?: boolean;
  /** Most IRP/ORP bars drawn before the sparkline is cut. */
  sparkWidth?: number;
}

const BARS = '▁▂▃▄▅▆▇█';

/** One character per rate, from ▁ (0) to █ (1); · where nothing was decided. */
export function sparkline(rates: (number | null)[], width = 60): string {
  const shown = rates.slice(0, width).map((r) => (r === null ? '·' : BARS[Math.min(BARS.length - 1, Math.floor(r * BARS.length))]));
  return shown.join('') + (rates.length > width ? '…' : '');
}

function ci(r: RateWithCI): string {
  return r.ci ? `[${formatRate(r.ci.low)}, ${formatRate(r.ci.high)}]` : NO_VALUE;
}

/** Disagreements listed per rule in the terminal (all are in the JSON report). */
const DISAGREEMENTS_SHOWN = 10;

/** Each graded rule against people: figure, confusion matrix, TPR/TNR, κ, disagreements with reasons, caveats. */
export function gradingLines(s: RunSummary): string[] {
  const lines: string[] = [];
  for (const v of s.validators) {
    const g = v.grading;
    if (!g) continue;
    lines.push(`${v.name}${v.kind === 'verifier' ? ' (verifier)' : ''} against people: ${gradesText(g)} · ${figureText(v)}`);
    pushAll(
      lines,
      table(confusionRows(v, g), new Set([1, 2])).map((l) => `  ${l}`),
    );
    lines.push(`  ${alignmentText(g)}`);
    for (const d of g.disagreements.slice(0, DISAGREEMENTS_SHOWN)) lines.push(`  ${disagreementHead(v, d)}: ${reasonsText(d, 120)}`);
    if (g.disagreements.length > DISAGREEMENTS_SHOWN)
      lines.push(`  and ${g.disagreements.length - DISAGREEMENTS_SHOWN} more disagreement(s) in the JSON report`);
    for (const c of g.caveats) lines.push(`  note: ${c}`);
  }
  return lines;
}

function paint(text: string, v: Verdict, color: boolean): string {
  if (!color) return text;
  const code = v === 'pass' ? 32 : v === 'fail' || v === 'error' ? 31 : 33;
  return `\x1b[${code}m${text}\x1b[0m`;
}

/** Columns aligned by display width (wide CJK and emoji count 2, ANSI colours 0). */
function table(rows: string[][], rightAlign: Set<number>): string[] {
  const widths = rows[0].map((_, c) => maxOf(rows.map((r) => displayWidth(r[c]))));
  return rows.map((r) =>
    r
      .map((cell, c) => {
        const pad = ' '.repeat(widths[c] - displayWidth(cell));
        return rightAlign.has(c) ? pad + cell : cell + pad;
      })
      .join('  ')
      .trimEnd(),
  );
}

/**
 * Lowest and highest entries of a profile, numbered from 1 as people count, each with its error share when
 * it left errors out, e.g. "min 84.0% (#3, errors 8.0%)  max 94.0% (#4)".
 */
function extremes(entries: { idx: number; rate: number | null; errorShare: number | null }[]): string {
  const decided = entries.filter((e) => e.rate !== null) as { idx: number; rate: number; errorShare: number | null }[];
  if (!decided.length) return 'nothing decided';
  let lo = decided[0];
  let hi = decided[0];
  for (const e of decided) {
    if (e.rate < lo.rate) lo = e;
    if (e.rate > hi.rate) hi = e;
  }
  const at = (e: (typeof decided)[number]) => `(#${e.idx + 1}${e.errorShare ? `, ${errorShareText(e)}` : ''})`;
  return `min ${formatRate(lo.rate)} ${at(lo)}  max ${formatRate(hi.rate)} ${at(hi)}`;
}

export function formatTerminalSummary(s: RunSummary, meta: ReportMeta, opts: TerminalOptions = {}): string {
  const color = opts.color ?? false;
  const width = opts.sparkWidth ?? 60;
  const o = s.options;
  const level = formatLevel(o.level);
  const lines: string[] = [];
  lines.push(`assay · ${meta.name} · run ${meta.runId} · ${meta.systemId} · ${meta.status}`);
  const sequential = o.stopping === 'sequential';
  lines.push(
    `N=${s.N} inputs × M=${s.M} samples × K=${rulesText(s.validators.map((v) => v.kind))} · ${sequential ? `confidence sequence ${level}, stopping: sequential` : `${o.interval} ${level}`} · verdict mode: ${o.verdict} · maxErrorShare ${formatRate(o.maxErrorShare)} · ${estimandText(s)}`,
  );
  lines.push('');
  const rows: string[][] = [['validator', 'rate', `${level} ${sequential ? 'CS' : 'CI'} (${INPUTS_RUN})`, 'errors', 'min', 'verdict', 'pass', 'fail', 'error']];
  for (const v of s.validators) {
    const shown = shownRate(v);
    rows.push([
      v.kind === 'verifier' ? `${v.name} (verifier)` : v.name,
      formatRate(shown.rate),
      shown.low === null ? NO_VALUE : `[${formatRate(shown.low)}, ${formatRate(shown.high)}]`,
      formatRate(v.errorShare),
      formatRate(v.minSuccess),
      paint(verdictLabel(v.verdict, o.verdict), v.verdict, color),
      String(v.counts.pass),
      String(v.counts.fail),
      String(v.counts.error),
    ]);
  }
  pushAll(lines, table(rows, new Set([1, 3, 4, 6, 7, 8])));
  // Why each verdict: the bound or rule that decided it, where a sequential validator stopped, what would decide it.
  for (const v of s.validators) lines.push(`  ${v.name}: ${verdictWhy(v, s, meta.stats)}`);
  lines.push('');
  const population = [...populationLines(s.validators), ...populationPlanLines(s.validators, s.M)];
  if (population.length) {
    pushAll(lines, population);
    lines.push('');
  }
  const floors = perInputLines(s.validators, o.verdict, meta.inputs);
  if (floors.length) {
    pushAll(lines, floors);
    lines.push('');
  }
  const passK = passKLines(s.validators, o.verdict, meta.inputs);
  if (passK.length) {
    pushAll(lines, passK);
    lines.push('');
  }
  const graded = gradingLines(s);
  if (graded.length) {
    pushAll(lines, graded);
    lines.push('');
  }
  const errs = (r: { errorShare: number | null }) => (r.errorShare ? ` (${errorShareText(r)})` : '');
  lines.push(
    `IRP (per input)     ${sparkline(
      s.inputs.map((x) => x.rate),
      width,
    )}  ${extremes(s.inputs.map((x) => ({ idx: x.i, rate: x.rate, errorShare: x.errorShare })))}`,
  );
  lines.push(
    `ORP (per sample)    ${sparkline(
      s.iterations.map((x) => x.rate),
      width,
    )}  ${extremes(s.iterations.map((x) => ({ idx: x.j, rate: x.rate, errorShare: x.errorShare })))}`,
  );
  const worst = [...s.inputs].filter((x) => x.allPass.rate !== null).sort((a, b) => a.allPass.rate! - b.allPass.rate!)[0];
  if (worst && meta.inputs)
    lines.push(
      `weakest input       #${worst.i + 1} all-pass ${formatRate(worst.allPass.rate)}${errs(worst.allPass)}  ${inputInline(meta.inputs[worst.i], 52)}`,
    );
  lines.push(
    `all validators at once  ${formatRate(s.allPass.rate)} ${ci(s.allPass)}${errs(s.allPass)}   pooled cells ${formatRate(s.allOutputs.rate)} ${ci(s.allOutputs)}${errs(s.allOutputs)}`,
  );
  const ov = s.overall;
  const undecided = ov.undecidedValidators ? ` · ${ov.undecidedValidators} of ${s.K} validator(s) with no decided cell left out` : '';
  lines.push(
    `overall  mean ${formatRate(ov.mean)}  weighted ${formatRate(ov.weighted)}  min ${formatRate(ov.min)}  (${[ov.method, aggregatesWhose(s.validators)].filter(Boolean).join(', ')}) · errors ${formatRate(ov.errorShare)} of checked cells${undecided}`,
  );
  if (sequential && s.stoppedAfter !== undefined) lines.push(`stopping: sequential · ${s.stoppedAfter} of ${s.M} samples per input run`);
  const st = meta.stats;
  if (st) {
    const lat = st.latencyMs.p50 === null ? NO_VALUE : `p50 ${Math.round(st.latencyMs.p50)} ms, p95 ${Math.round(st.latencyMs.p95 ?? 0)} ms`;
    lines.push(
      `generations ${st.samples} · retries ${st.retries} · generation errors ${st.generationErrors} · validator errors ${st.validatorErrors} · ${st.promptTokens + st.completionTokens > 0 ? `tokens ${st.promptTokens} in / ${st.completionTokens} out · ` : ''}latency ${lat}`,
    );
    const cost = costSummary(st, s.validators);
    if (cost) lines.push(cost);
    if (st.agent) lines.push(agentLine(st.agent));
    pushAll(lines, errorSummaryLines(errorSummaryOf(st), { top: 5 }));
  }
  lines.push('');
  lines.push(verdictLine(s, meta, color));
  return lines.join('\n') + '\n';
}

/**
 * The command that resumes the run, with the store it lives in when the command was given one. A run with no
 * config file on record (a Vitest block's, the library API's) needs one named: a bare --resume exits 2.
 */
export function resumeCommand(meta: Pick<ReportMeta, 'runId' | 'store' | 'queue' | 'configPath'>): string {
  const queue = meta.queue !== undefined ? ` --queue ${shellWord(meta.queue)}` : '';
  const config = meta.configPath === undefined ? '<config> ' : '';
  const command = `${assayCommandLine('run')} ${config}--resume ${meta.runId}${meta.store !== undefined ? ` --store ${shellWord(meta.store)}` : ''}${queue}`;
  return meta.configPath === undefined ? `${command} (no config file is on record for this run; a Vitest block finishes by re-running its test file)` : command;
}

/** A word as a POSIX shell reads it back: as it is when plain, else in single quotes. */
function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function verdictLine(s: RunSummary, meta: ReportMeta, color = false): string {
  const pending = s.validators[0] ? s.validators[0].counts.pending : 0;
  // Interrupted (Ctrl-C), or still marked running because its process was killed: partial results.
  if (meta.status === 'interrupted' || (meta.status === 'running' && pending > 0)) {
    const what = meta.status === 'interrupted' ? 'INTERRUPTED' : 'INCOMPLETE (running, or its process was killed)';
    return paint(`${what}: partial results, ${pending} of ${s.N * s.M} samples not run; resume with: ${resumeCommand(meta)}`, 'inconclusive', color);
  }
  const allow = meta.allowInconclusive ?? false;
  const bad = s.validators.filter((v) => !verdictPasses(v.verdict, allow));
  const failed = s.validators.filter((v) => v.verdict === 'fail').length;
  const errored = s.validators.filter((v) => v.verdict === 'error').length;
  const inc = s.validators.filter((v) => v.verdict === 'inconclusive').length;
  const mark = s.options.verdict === 'point' ? ' (point)' : '';
  if (!bad.length)
    return paint(
      `PASS${mark}: ${s.validators.length} validator(s) meet their minimum success rate${inc ? ` (${inc} inconclusive, accepted)` : ''}`,
      'pass',
      color,
    );
  const parts = [failed ? `${failed} failed` : '', errored ? `${errored} error (too many error cells to judge)` : '', inc ? `${inc} inconclusive` : '']
    .filter(Boolean)
    .join(', ');
  const head = failed ? `FAIL${mark}` : errored ? 'ERROR' : 'INCONCLUSIVE';
  return paint(
    `${head}: ${parts} of ${s.validators.length} validator(s): ${bad.map((v) => v.name).join(', ')}`,
    failed ? 'fail' : errored ? 'error' : 'inconclusive',
    color,
  );
}

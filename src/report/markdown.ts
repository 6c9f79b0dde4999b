import { visibleControls } from '../core/text.js';
import { writeFile } from 'node:fs/promises';
import type { RateWithCI, RunSummary, Verdict } from '../core/summary-types.js';
import { costSummary } from './cost.js';
import { aggregatesWhose, alignmentText, confusionRows, disagreementHead, figureText, gradesText, reasonsText, shownRate } from './grading-text.js';
import { errorShareText, rulesText, verdictWhy, inputLabel, verdictLabel, verdictPasses, type ReportMeta } from './meta.js';
import { passKMarkdown } from './pass-k.js';
import { estimandText, INPUTS_RUN, populationText } from './population.js';
import { perInputMarkdown } from './per-input.js';
import { agentLine } from './trajectory.js';
import { sparkline, verdictLine } from './terminal.js';
import { formatRate, NO_VALUE, formatLevel } from '../core/show.js';
import { pushAll } from '../core/arrays.js';

/**
 * Markdown report (`--markdown`), shaped for a CI job summary (e.g. append it to $GITHUB_STEP_SUMMARY):
 * a verdict heading, the validator table, then per-input and per-sample profiles folded in <details>.
 */

const MAX_ROWS = 100;

export function mdCell(s: string): string {
  return visibleControls(s)
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/[\r\n]+/g, ' ')
    .replace(/</g, '&lt;');
}

function icon(v: Verdict, accepted: boolean): string {
  return v === 'pass' ? '✅' : v === 'fail' ? '❌' : v === 'error' ? '🛑' : accepted ? '⚪' : '⚠️';
}

function ci(r: RateWithCI): string {
  return r.ci ? `${formatRate(r.ci.low)} – ${formatRate(r.ci.high)}` : NO_VALUE;
}

/** Disagreements listed per rule (all are in the JSON report). */
const DISAGREEMENTS_SHOWN = 20;

/** Each graded rule against people: the confusion matrix, TPR/TNR, κ, the disagreements with the judge's reasons, caveats. */
function gradingMarkdown(s: RunSummary): string[] {
  const L: string[] = [];
  for (const v of s.validators) {
    const g = v.grading;
    if (!g) continue;
    L.push(`### ${mdCell(v.name)} against people: ${mdCell(gradesText(g))}`);
    L.push('');
    L.push(`${mdCell(figureText(v))} · ${mdCell(alignmentText(g))}`);
    L.push('');
    const [head, ...rows] = confusionRows(v, g);
    L.push(`| ${head.join(' | ')} |`, '|---|--:|--:|');
    pushAll(
      L,
      rows.map((r) => `| ${r.join(' | ')} |`),
    );
    L.push('');
    if (g.disagreements.length) {
      L.push(`| Output | Disagreement | ${v.kind === 'verifier' ? "Judge's reasons" : 'Reasons'} |`, '|---|---|---|');
      for (const d of g.disagreements.slice(0, DISAGREEMENTS_SHOWN)) {
        const [where, ...rest] = disagreementHead(v, d).split(') ');
        L.push(`| ${mdCell(`${where})`)} | ${mdCell(rest.join(') '))} | ${mdCell(reasonsText(d, 300))} |`);
      }
      if (g.disagreements.length > DISAGREEMENTS_SHOWN) L.push('', `_${g.disagreements.length - DISAGREEMENTS_SHOWN} more disagreements in the JSON report._`);
      L.push('');
    }
    for (const c of g.caveats) L.push(`> ${mdCell(`Note: ${c}`)}`, '');
  }
  return L;
}

export function renderMarkdownReport(s: RunSummary, meta: ReportMeta): string {
  const allow = meta.allowInconclusive ?? false;
  const passed = meta.status !== 'interrupted' && s.validators.every((v) => verdictPasses(v.verdict, allow));
  const level = formatLevel(s.options.level);
  const head = meta.status === 'interrupted' ? '⏸️' : passed ? '✅' : s.verdict === 'fail' ? '❌' : s.verdict === 'error' ? '🛑' : '⚠️';
  const L: string[] = [];
  L.push(
    `## ${head} assay: ${mdCell(meta.name)}: ${meta.status === 'interrupted' ? 'INTERRUPTED' : verdictLabel(passed ? 'pass' : s.verdict, s.options.verdict)}`,
  );
  L.push('');
  const sequential = s.options.stopping === 'sequential';
  L.push(
    `Run \`${meta.runId}\` · system \`${mdCell(meta.systemId)}\` · ${s.N} inputs × ${s.M} samples × ${rulesText(s.validators.map((v) => v.kind))} · ${sequential ? `confidence sequences ${level}, stopping \`sequential\`${s.stoppedAfter !== undefined ? ` (${s.stoppedAfter} of ${s.M} samples per input run)` : ''}` : `${s.options.interval} ${level} intervals`} · verdict mode \`${s.options.verdict}\` · maxErrorShare ${formatRate(s.options.maxErrorShare)} · ${estimandText(s)}`,
  );
  L.push('');
  L.push(
    `| | Validator | Rate | ${level} ${sequential ? 'CS' : 'CI'} (${INPUTS_RUN}) | Input population | Errors | Min success | Verdict | Why | Pass | Fail | Error |`,
  );
  L.push('|---|---|--:|---|---|--:|--:|---|---|--:|--:|--:|');
  for (const v of s.validators) {
    const why = verdictWhy(v, s, meta.stats);
    const shown = shownRate(v);
    L.push(
      `| ${icon(v.verdict, verdictPasses(v.verdict, allow))} | ${mdCell(v.name)}${v.kind === 'verifier' ? ' _(verifier)_' : ''} | ${formatRate(shown.rate)} | ${shown.low === null ? NO_VALUE : `${formatRate(shown.low)} – ${formatRate(shown.high)}`} | ${v.population ? mdCell(populationText(v.population)) : NO_VALUE} | ${formatRate(v.errorShare)} | ${formatRate(v.minSuccess)} | ${verdictLabel(v.verdict, s.options.verdict, { upper: false })} | ${mdCell(why)} | ${v.counts.pass} | ${v.counts.fail} | ${v.counts.error} |`,
    );
  }
  L.push('');
  const ov = s.overall;
  const errs = (r: { errorShare: number | null }) => (r.errorShare ? `, ${errorShareText(r)}` : '');
  L.push(
    `**Overall** (${[ov.method, aggregatesWhose(s.validators)].filter(Boolean).join(', ')}): mean ${formatRate(ov.mean)}, weighted ${formatRate(ov.weighted)}, min ${formatRate(ov.min)} · errors ${formatRate(ov.errorShare)} of checked cells${ov.undecidedValidators ? ` · ${ov.undecidedValidators} validator(s) with no decided cell left out` : ''} · all validators at once ${formatRate(s.allPass.rate)} (${ci(s.allPass)}${errs(s.allPass)})`,
  );
  L.push('');
  L.push(`> ${mdCell(verdictLine(s, meta))}`);
  L.push('');
  pushAll(L, perInputMarkdown(s.validators, s.options.verdict, meta.inputs, mdCell));
  pushAll(L, passKMarkdown(s.validators, s.options.verdict, meta.inputs, mdCell));
  pushAll(L, gradingMarkdown(s));
  L.push(`<details><summary>Per input (IRP) <code>${sparkline(s.inputs.map((x) => x.rate))}</code></summary>`);
  L.push('');
  // The rate pools every rule's cells of the input; said once above the table, and in its column's name.
  if (s.K > 1) L.push(`_Rate: all ${s.K} rules' cells of the input pooled; All validators: the input's outputs that passed every rule._`, '');
  L.push(`| # | Input | ${s.K > 1 ? 'Rate (rules pooled)' : 'Rate'} | ${level} CI (per output) | All validators | Error | Errors |`);
  L.push('|--:|---|--:|---|--:|--:|--:|');
  for (const x of s.inputs.slice(0, MAX_ROWS)) {
    L.push(
      `| ${x.i + 1} | ${mdCell(inputLabel(meta.inputs?.[x.i]))} | ${formatRate(x.rate)} | ${ci(x)} | ${formatRate(x.allPass.rate)} | ${x.counts.error} | ${formatRate(x.errorShare)} |`,
    );
  }
  if (s.inputs.length > MAX_ROWS) L.push(`\n_${s.inputs.length - MAX_ROWS} more inputs in the JSON report._`);
  L.push('');
  L.push('</details>');
  L.push('');
  L.push(`<details><summary>Per sample (ORP) <code>${sparkline(s.iterations.map((x) => x.rate))}</code></summary>`);
  L.push('');
  L.push(`| Sample | ${s.K > 1 ? 'Rate (rules pooled)' : 'Rate'} | ${level} CI (per output) | Error | Errors |`);
  L.push('|--:|--:|---|--:|--:|');
  for (const x of s.iterations.slice(0, MAX_ROWS))
    L.push(`| ${x.j + 1} | ${formatRate(x.rate)} | ${ci(x)} | ${x.counts.error} | ${formatRate(x.errorShare)} |`);
  if (s.iterations.length > MAX_ROWS) L.push(`\n_${s.iterations.length - MAX_ROWS} more samples in the JSON report._`);
  L.push('');
  L.push('</details>');
  const st = meta.stats;
  if (st) {
    L.push('');
    if (st.topErrors.length) {
      L.push('**Why cells are errors** (counted apart, never as failures):');
      L.push('');
      for (const e of st.topErrors.slice(0, 10))
        L.push(
          `- ×${e.count}${e.variants > 1 ? ` (${e.variants} variants: ids or quoted answers differ)` : ''}: \`${e.message.replace(/\s+/g, ' ').replace(/`/g, "'").slice(0, 600)}\``,
        );
      const shown = st.topErrors.slice(0, 10).reduce((n, e) => n + e.count, 0);
      const rest = st.generationErrors + st.validatorErrors - shown;
      const more = st.distinctErrors - Math.min(10, st.topErrors.length);
      if (rest > 0)
        L.push(
          `- and ${more > 0 ? `${more} more distinct message${more === 1 ? '' : 's'}` : 'more'} (${rest} error${rest === 1 ? '' : 's'}) in the JSON report`,
        );
      L.push('');
    }
    L.push(
      `<sub>${st.samples} generations · ${st.retries} retries · ${st.generationErrors} generation errors · ${st.validatorErrors} validator errors · ${st.promptTokens} prompt / ${st.completionTokens} completion tokens${st.latencyMs.p50 !== null ? ` · latency p50 ${Math.round(st.latencyMs.p50)} ms, p95 ${Math.round(st.latencyMs.p95 ?? 0)} ms` : ''}</sub>`,
    );
    const cost = costSummary(st, s.validators);
    if (cost) L.push('', `<sub>${cost}</sub>`);
    if (st.agent) L.push('', `<sub>${mdCell(agentLine(st.agent))}</sub>`);
  }
  return L.join('\n') + '\n';
}

export async function writeMarkdownReport(path: string, s: RunSummary, meta: ReportMeta): Promise<void> {
  await writeFile(path, renderMarkdownReport(s, meta));
}

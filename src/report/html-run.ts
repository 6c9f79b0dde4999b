import { outcomeName } from '../core/outcome.js';
import type { Trajectory } from '../core/trajectory.js';
import { limitTrajectory } from '../core/trajectory-text.js';
import type { RunSummary, RateWithCI, ValidatorSummary } from '../core/summary-types.js';
import type { ReliabilityTensor } from '../core/tensor.js';
import type { InputValue } from '../core/validator.js';
import { formatRate, inputLabel, NO_VALUE, formatLevel } from '../core/show.js';
import type { ErrorSummary } from '../run/error-groups.js';
import type { RunStats } from '../run/stats.js';
import type { RunRecord, SampleRecord } from '../store/types.js';
import { BAR_STYLE, OUTCOME_STYLE, profileSvg, type BarStatus } from './charts.js';
import { heatmapSvg, isBinned, tensorCodes, zoomData } from './charts-heatmap.js';
import { costSummary } from './cost.js';
import { esc, scriptJson, tableHtml, verdictBadge } from './html-layout.js';
import {
  aggregatesWhose,
  alignmentText,
  confusionRows,
  disagreementHead,
  figureText,
  gradesText,
  ownRateNote,
  reasonsText,
  shownRate,
} from './grading-text.js';
import { errorShareText, verdictWhy } from './meta.js';
import { passKHtml } from './pass-k.js';
import { estimandText, INPUTS_RUN, populationHtml } from './population.js';
import { perInputHtml } from './per-input.js';
import { agentLine } from './trajectory.js';
import { maxOf } from '../core/arrays.js';

/** What the cell-detail view shows for one sample (also the body of GET /api/runs/:id/samples/:i/:j). */
export interface SampleView {
  i: number;
  j: number;
  input: InputValue;
  output?: string;
  /** An agent's steps: tool calls with arguments, results or errors (each result shortened, SampleViewOptions). */
  trajectory?: Trajectory;
  generationError?: string;
  outcomes: { validator: string; outcome: string; error?: string; reasons?: string[] }[];
  latencyMs: number;
  attempts: number;
}

/**
 * A tool result in a sample's view: up to 100,000 characters from the dashboard's API (one sample at a time), 2,000
 * in a static report (every sample embedded in one file); the JSON of the store keeps it whole up to its limit.
 */
export const VIEW_RESULT_MAX_CHARS = 100_000;
export const EMBEDDED_RESULT_MAX_CHARS = 2_000;

export function sampleView(run: RunRecord, s: SampleRecord, maxResult = VIEW_RESULT_MAX_CHARS): SampleView {
  return {
    i: s.i,
    j: s.j,
    input: run.inputs[s.i],
    output: s.output,
    ...(s.trajectory ? { trajectory: limitTrajectory(s.trajectory, maxResult, Infinity) } : {}),
    generationError: s.generationError,
    outcomes: run.validators.map((v, k) => ({
      validator: v.name,
      outcome: outcomeName(s.outcomes[k]),
      error: s.errors?.[k],
      reasons: s.reasons?.[k],
    })),
    latencyMs: s.latencyMs,
    attempts: s.attempts,
  };
}

function ci(r: RateWithCI): string {
  return r.ci ? `${formatRate(r.ci.low)} – ${formatRate(r.ci.high)}` : NO_VALUE;
}

/** A rate's error share as a table cell: "8.0%", "0.0%", or NO_VALUE ("–") when nothing was checked. */
function errorsCell(r: Pick<RateWithCI, 'errorShare'>): string {
  return formatRate(r.errorShare);
}

/** " · errors 8.0%" after a rate that left errors out; nothing when none did. */
function errorsNote(r: Pick<RateWithCI, 'errorShare'>): string {
  return r.errorShare ? ` <span class="muted nowrap">· ${errorShareText(r)}</span>` : '';
}

/** "64.8% 54.6% – 73.9%" with the interval muted (and the error share, when cells errored); NO_VALUE ("–") when nothing was decided. */
function withCi(r: RateWithCI): string {
  return (r.ci ? `${formatRate(r.rate)} <span class="muted nowrap">${ci(r)}</span>` : formatRate(r.rate)) + errorsNote(r);
}

export function legendHtml(binned = false): string {
  const items = Object.entries(OUTCOME_STYLE).map(
    ([name, s]) =>
      `<span><span class="sw" style="background:${s.color};color:${s.ink}" aria-hidden="true">${s.glyph}</span>${name === 'pending' ? 'not run' : name}</span>`,
  );
  if (binned) {
    items.push(
      `<span><span class="sw ramp" aria-hidden="true"></span>bins: share of failing cells, 0% to 100%</span>`,
      `<span><span class="sw corner" aria-hidden="true"></span>bin holds errors</span>`,
    );
  }
  return `<div class="legend" aria-label="legend">${items.join('')}</div>`;
}

export interface RunSectionsOptions {
  /** Dashboard: the detail view fetches `${sampleBase}/${i}/${j}`. */
  sampleBase?: string;
  /** Static report: samples embedded in the page. */
  samples?: SampleRecord[];
  /** Links to the trend page etc. (dashboard only). */
  links?: string;
  /** Operational figures, for the tokens, cost and cache line. */
  stats?: RunStats;
  /** Why cells are errors: shown as its own card, so nobody has to click cells to find out. */
  errors?: ErrorSummary;
}

/** Tokens, cost (system and each verifier) and cells from the cache, when the run has any. */
function spendLine(st: RunStats | undefined, summary: RunSummary): string {
  if (!st) return '';
  const tokens = st.promptTokens + st.completionTokens > 0 ? `tokens ${st.promptTokens} in / ${st.completionTokens} out` : '';
  const line = [tokens, costSummary(st, summary.validators) ?? ''].filter(Boolean).join(' · ');
  const agent = st.agent ? `<p class="muted" data-testid="agent">${esc(agentLine(st.agent))}</p>` : '';
  return (line ? `<p class="muted" data-testid="spend">${esc(line)}</p>` : '') + agent;
}

/** Error groups shown on the page; the rest are summed up in one line. */
const ERRORS_SHOWN = 10;

/** The run's error messages, grouped, with counts (nothing when the run has no error). */
export function errorsHtml(e: ErrorSummary | undefined): string {
  if (!e || e.total === 0) return '';
  const shown = e.groups.slice(0, ERRORS_SHOWN);
  const rows = shown.map((g) => [
    String(g.count),
    g.variants > 1 ? `${g.variants} <span class="muted">(ids or quoted answers differ)</span>` : '1',
    `<code>${esc(g.message)}</code>`,
  ]);
  const rest = e.total - shown.reduce((n, g) => n + g.count, 0);
  const more = e.distinct - shown.length;
  const tail =
    rest > 0
      ? `<p class="muted">and ${more > 0 ? `${more} more distinct message${more === 1 ? '' : 's'}` : 'more'} (${rest} error${rest === 1 ? '' : 's'}); the JSON report lists the 20 most frequent.</p>`
      : '';
  return `<section class="card" aria-label="errors"><h2>Errors: ${e.total} (${e.distinct} distinct)</h2>${tableHtml(
    [{ label: 'count', num: true }, { label: 'variants', num: true }, { label: 'message' }],
    rows,
    {
      label: 'errors',
      caption: 'Why cells are errors, most frequent first. Errors are counted apart, never as failures; messages that differ only in ids are one row.',
    },
  )}${tail}</section>`;
}

/** Disagreements listed per rule on the page (all are in the JSON report). */
const DISAGREEMENTS_SHOWN = 50;

/** Each graded rule against people: figure, confusion matrix, TPR/TNR, κ, the disagreements with the judge's reasons, caveats. */
export function gradingHtml(run: RunRecord, summary: RunSummary): string {
  const cards = summary.validators.flatMap((v) => {
    const g = v.grading;
    if (!g) return [];
    const [head, ...rows] = confusionRows(v, g);
    const matrix = `<table class="confusion" aria-label="${esc(v.name)}: confusion matrix against people" style="width:auto"><thead><tr>${head.map((h) => `<th${h ? ' class="num"' : ''}>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
      .map((r) => `<tr><th scope="row">${esc(r[0])}</th><td class="num">${esc(r[1])}</td><td class="num">${esc(r[2])}</td></tr>`)
      .join('')}</tbody></table>`;
    const shown = g.disagreements.slice(0, DISAGREEMENTS_SHOWN);
    const disagreements = shown.length
      ? tableHtml(
          [{ label: 'output (i, j)' }, { label: 'input' }, { label: 'disagreement' }, { label: v.kind === 'verifier' ? "judge's reasons" : 'reasons' }],
          shown.map((d) => {
            const [, what] = /^\([^)]*\) (.*)$/.exec(disagreementHead(v, d)) ?? [];
            return [`${d.i}, ${d.j}`, esc(inputLabel(run.inputs[d.i], 60)), esc(what ?? ''), esc(reasonsText(d, 400))];
          }),
          { label: `${v.name}: disagreements with people`, caption: 'Where the rule and the people differ, with the reasons the judge gave.' },
        ) + (g.disagreements.length > shown.length ? `<p class="muted">and ${g.disagreements.length - shown.length} more in the JSON report.</p>` : '')
      : '<p class="muted">No disagreement.</p>';
    const caveats = g.caveats.map((c) => `<p class="muted caveat">Note: ${esc(c)}</p>`).join('');
    return [
      `<section class="card grading" data-rule="${esc(v.name)}" aria-label="${esc(v.name)} against people"><h3>${esc(v.name)} against people: ${esc(gradesText(g))}</h3><p><strong>${esc(figureText(v))}</strong> · ${esc(alignmentText(g))}</p>${matrix}${disagreements}${caveats}</section>`,
    ];
  });
  const unchecked = summary.validators.filter((v) => v.kind === 'verifier' && !v.grading?.grades).map((v) => v.name);
  const none = unchecked.length
    ? `<p class="muted" data-testid="unchecked">${esc(unchecked.join(', '))}: judge not checked against people (no grades); grade outputs to measure and correct it (docs/judges.md).</p>`
    : '';
  if (!cards.length && !none) return '';
  return `<h2>Rules against people's grades</h2>${none}${cards.join('')}`;
}

/** The run page's content, shared by the dashboard and the static report (one rendering, two hosts). */
export function renderRunSections(run: RunRecord, summary: RunSummary, tensor: ReliabilityTensor, options: RunSectionsOptions = {}): string {
  const o = summary.overall;
  const fact = (term: string, value: string) => `<div><dt>${term}</dt><dd>${value}</dd></div>`;
  const head = `<h1>${esc(run.name)} ${verdictBadge(summary.verdict, summary.options.verdict)}</h1>
<section class="card" aria-label="run"><dl class="facts">${[
    fact(
      `Overall (${esc([o.method, aggregatesWhose(summary.validators)].filter(Boolean).join(', '))})`,
      `<strong>${formatRate(o.value)}</strong> <span class="muted nowrap">· errors ${formatRate(o.errorShare)} of checked cells${o.undecidedValidators ? ` · ${o.undecidedValidators} validator(s) with no decided cell left out` : ''}</span>`,
    ),
    fact('All validators at once', withCi(summary.allPass)),
    fact('All outputs pooled', withCi(summary.allOutputs)),
    fact('Shape N×M×K', `${tensor.N}×${tensor.M}×${tensor.K} <span class="muted">inputs × samples × validators</span>`),
  ].join('')}</dl>
<p class="muted">Run <code>${esc(run.id)}</code> · ${esc(run.createdAt.slice(0, 19).replace('T', ' '))} UTC · status ${esc(run.status)} · system <code>${esc(run.systemId)}</code> ·
validator rates: mean ${formatRate(o.mean)}, weighted ${formatRate(o.weighted)}, min ${formatRate(o.min)} · intervals ${summary.options.stopping === 'sequential' ? 'confidence sequence' : esc(summary.options.interval)} ${formatLevel(summary.options.level)} · verdict mode ${esc(summary.options.verdict)} · maxErrorShare ${formatRate(summary.options.maxErrorShare)} · ${esc(estimandText(summary))}${summary.options.stopping === 'sequential' ? ` · stopping sequential${summary.stoppedAfter !== undefined ? `: ${summary.stoppedAfter} of ${tensor.M} samples per input run` : ''}` : ''}</p>${spendLine(options.stats, summary)}${options.links ?? ''}</section>`;

  const vRows = summary.validators.map((v) => [
    `<strong>${esc(v.name)}</strong>${v.kind === 'verifier' ? ' <span class="muted">(verifier)</span>' : ''}<br><span class="muted">${esc(v.message)}</span>`,
    // Why: which figure, the bound or rule that decided it, where a sequential validator stopped, what would decide it.
    `${verdictBadge(v.verdict, summary.options.verdict)}<br><span class="muted why">${esc(verdictWhy(v, tensor, options.stats))}</span>${populationHtml(v)}`,
    formatRate(shownRate(v).rate),
    shownRate(v).low === null ? NO_VALUE : `${formatRate(shownRate(v).low)} – ${formatRate(shownRate(v).high)}`,
    formatRate(v.errorShare),
    formatRate(v.minSuccess),
    String(v.counts.pass),
    String(v.counts.fail),
    String(v.counts.error),
    String(v.counts.pending),
  ]);
  const vColumns = [
    { label: 'validator' },
    { label: 'verdict' },
    { label: 'rate', num: true },
    { label: `interval (${INPUTS_RUN})`, num: true },
    { label: 'errors', num: true },
    { label: 'min success', num: true },
    { label: 'pass', num: true },
    { label: 'fail', num: true },
    { label: 'error', num: true },
    { label: 'not run', num: true },
  ];
  const vTable = `<section class="card"><h2>Validators (VRP)</h2>${tableHtml(vColumns, vRows, {
    label: 'validators',
    rowHeader: true,
    caption:
      'Success rate over decided cells (pass ÷ (pass + fail)); errors are counted apart, never as failures, and a verdict must hold however they would have resolved (docs/verdicts.md).',
  })}</section>`;

  // One heatmap per validator, each the full width of its column; a large run is binned, and a bin opens
  // its block at full resolution (drawn by the page script from the embedded tensor).
  const binned = isBinned(tensor.N, tensor.M);
  const codes = binned ? undefined : tensorCodes(tensor);
  const heatmaps = summary.validators
    .map(
      (
        v,
      ) => `<figure class="card heatmap" data-k="${v.k}" data-validator="${esc(v.name)}"><figcaption>${esc(v.name)} ${verdictBadge(v.verdict, summary.options.verdict)} <span class="muted">${formatRate(v.rate)}${esc(ownRateNote(v))}</span></figcaption>
<div class="chart">${heatmapSvg(tensor, v.k, { label: v.name, codes })}</div>${binned ? '<div class="zoom" hidden></div>' : ''}</figure>`,
    )
    .join('');
  const detailAttrs = options.sampleBase ? ` data-sample-base="${esc(options.sampleBase)}"` : '';
  const binNote = binned
    ? `<p class="muted">${tensor.N} inputs × ${tensor.M} samples: too many cells to draw one by one, so each heatmap shows bins. Select a bin to open its inputs at full resolution, then a cell for its detail.</p>`
    : '';
  const zoom = binned
    ? `<script type="application/json" id="assay-tensor">${scriptJson(
        zoomData(
          tensor,
          summary.validators.map((v) => v.name),
        ),
      )}</script>`
    : '';
  const tensorSection = `<h2>Reliability tensor: inputs × samples, one heatmap per validator</h2>${legendHtml(binned)}${binNote}
<div class="layout"><div class="heatmaps">${heatmaps}</div><aside class="card" id="cell-detail" tabindex="-1" aria-live="polite" aria-label="selected cell"${detailAttrs}></aside></div>${zoom}`;

  const strictest = maxOf(
    run.validators.map((v) => v.minSuccess),
    0,
  );
  // The figure each verdict rests on: corrected, where people's grades corrected the rate.
  const vrp = profileSvg(
    summary.validators.map((v) => ({
      label: v.name,
      ...shownRate(v),
      errorShare: v.errorShare,
      threshold: v.minSuccess,
      status: vrpStatus(v),
    })),
    { title: 'Validator reliability profile (VRP)' },
  );
  const irp = profileSvg(
    summary.inputs.map((r) => ({
      label: `${r.i + 1}. ${inputLabel(run.inputs[r.i], 80)}`,
      rate: r.rate,
      low: r.ci?.low ?? null,
      high: r.ci?.high ?? null,
      errorShare: r.errorShare,
    })),
    // In a card of its own up to 12 inputs: labels above the bars, drawn at the card's size.
    { title: 'Input reliability profile (IRP)', line: strictest, columns: run.inputs.length > 25, axis: 'input', labelsAbove: run.inputs.length <= 12 },
  );
  const orp = profileSvg(
    summary.iterations.map((r) => ({ label: `sample ${r.j + 1}`, rate: r.rate, low: r.ci?.low ?? null, high: r.ci?.high ?? null, errorShare: r.errorShare })),
    { title: 'Output reliability profile (ORP)', line: strictest, columns: true, axis: 'sample' },
  );
  const key = (['pass', 'fail', ...(summary.validators.some((v) => vrpStatus(v) === 'floor') ? (['floor'] as const) : []), 'inconclusive'] as const)
    .map((s) => `<span style="color:${BAR_STYLE[s].color};font-weight:700">${BAR_STYLE[s].glyph}</span> ${BAR_STYLE[s].text}`)
    .join(', ');
  const profiles = `<h2>Profiles</h2><p class="muted">Bars: success rate; whiskers: ${esc(summary.options.interval)} ${formatLevel(summary.options.level)} interval; blue dashes: each validator's minimum success${strictest ? ` (on IRP and ORP, the strictest: ${formatRate(strictest)})` : ''}. Colour and glyph: ${key} (VRP: the validator's verdict). Hover or focus a bar for its figures.</p>
<div class="grid"><figure class="card wide"><figcaption>VRP: per validator</figcaption><div class="chart">${vrp}</div></figure>
<figure class="card${run.inputs.length > 12 ? ' wide' : ''}"><figcaption>IRP: per input</figcaption><div class="chart">${irp}</div></figure>
<figure class="card${tensor.M > 12 ? ' wide' : ''}"><figcaption>ORP: per sample iteration</figcaption><div class="chart">${orp}</div></figure></div>`;

  const glyphs = (i: number, j: number) =>
    run.validators.map((_, k) => OUTCOME_STYLE[(outcomeName(tensor.get(i, j, k)) as keyof typeof OUTCOME_STYLE) ?? 'pending'].glyph).join('');
  const tRows = (binned ? [] : summary.inputs)
    .map((r) => {
      const cells = Array.from({ length: tensor.M }, (_, j) => `<td>${glyphs(r.i, j)}</td>`).join('');
      return `<tr><th scope="row">${r.i + 1}. ${esc(inputLabel(run.inputs[r.i], 60))}</th><td class="num">${formatRate(r.rate)}</td><td class="num">${ci(r)}</td><td class="num">${errorsCell(r)}</td><td class="num">${formatRate(r.allPass.rate)}${errorsNote(r.allPass)}</td>${cells}</tr>`;
    })
    .join('');
  const table = binned
    ? `<p class="muted">No table view for a run this large (${tensor.N * tensor.M} samples): every cell is in the heatmaps' full-resolution blocks and in the JSON report.</p>`
    : `<details class="card"><summary>Table view (per input; glyphs per sample in validator order: ${esc(run.validators.map((v) => v.name).join(', '))})</summary>
<div class="scroll"><table><thead><tr><th>input</th><th class="num">IRP</th><th class="num">interval</th><th class="num">errors</th><th class="num">all pass</th>${Array.from({ length: tensor.M }, (_, j) => `<th>s${j + 1}</th>`).join('')}</tr></thead><tbody>${tRows}</tbody></table></div></details>`;

  let embedded = '';
  if (options.samples) {
    const byCell: Record<string, SampleView> = {};
    for (const s of options.samples) byCell[`${s.i},${s.j}`] = sampleView(run, s, EMBEDDED_RESULT_MAX_CHARS);
    embedded = `<script type="application/json" id="assay-samples">${scriptJson(byCell)}</script>`;
  }
  return (
    head +
    vTable +
    perInputHtml(summary, run.inputs) +
    passKHtml(summary, run.inputs) +
    gradingHtml(run, summary) +
    errorsHtml(options.errors) +
    tensorSection +
    profiles +
    table +
    embedded
  );
}

/**
 * A validator's bar on the VRP: its verdict, except a FAIL that its aggregate interval does not show (it lies at or
 * across the minimum) and an input below its per-input floor does: that failure has its own mark.
 */
export function vrpStatus(v: ValidatorSummary): BarStatus {
  if (v.verdict !== 'fail' || v.perInput?.verdict !== 'fail') return v.verdict;
  const shown = shownRate(v);
  const high = shown.high ?? shown.rate;
  return high !== null && high < v.minSuccess ? 'fail' : 'floor';
}

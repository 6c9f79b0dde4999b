import type { InputFloor, PerInputResult } from '../core/per-input.js';
import { formatRate, inputInline, inputLabel, NO_VALUE, formatLevel } from '../core/show.js';
import type { RunSummary, ValidatorSummary, VerdictMode } from '../core/summary-types.js';
import type { InputValue } from '../core/validator.js';
import { formatP } from './compare.js';
import { esc, tableHtml, verdictBadge } from './html-layout.js';
import { verdictLabel } from './meta.js';
import { pushAll } from '../core/arrays.js';

/**
 * Per-input floors (core/per-input.ts) as every report says them: a head line with the floors' verdict, and the
 * inputs that fail (or, when none fails, those still open), each with its text shortened as inputs are shown.
 */

/** Inputs listed per rule in the terminal, Markdown and JUnit (all are in the JSON report). */
export const INPUTS_SHOWN = 10;

/** "per input ≥ 80% (Holm, family-wise 95%)". */
export function perInputTitle(p: PerInputResult): string {
  return `per input ≥ ${formatRate(p.minSuccess)} (Holm, family-wise ${formatLevel(p.level)})`;
}

/** "per input ≥ 80% (Holm, family-wise 95%): FAIL" (the reason says the rest). */
export function perInputHead(p: PerInputResult, mode: VerdictMode): string {
  return `${perInputTitle(p)}: ${verdictLabel(p.verdict, mode)}`;
}

/** The inputs a reader should see: the failing ones worst first, else the undecided ones lowest rate first. */
export function inputsToShow(p: PerInputResult): InputFloor[] {
  if (p.failing.length) return p.failing.map((i) => p.inputs[i]);
  const open = p.inputs.filter((x) => x.verdict === 'inconclusive' || x.verdict === 'error');
  return open.sort((a, b) => (a.rate ?? -1) - (b.rate ?? -1) || a.input - b.input);
}

/** One input: `#3 "I want a refund…" 25/50 = 50.0% [35.5%, 64.5%], 2 errors, Holm p = 3.1e-7`, numbered from 1. */
export function inputFloorText(x: InputFloor, inputs: readonly InputValue[] | undefined, max = 52): string {
  const text = inputs?.[x.input] !== undefined ? ` ${inputInline(inputs[x.input], max)}` : '';
  const rate = x.rate === null ? 'no decided output' : `${x.successes}/${x.n} = ${formatRate(x.rate)}`;
  const ci = x.low !== null && x.high !== null ? ` [${formatRate(x.low)}, ${formatRate(x.high)}]` : '';
  const errors = x.errors ? `, ${x.errors} error${x.errors === 1 ? '' : 's'}` : '';
  const p = x.adjusted !== null ? `, Holm p = ${formatP(x.adjusted)}` : '';
  return `#${x.input + 1}${text} ${rate}${ci}${errors}${p}`;
}

/** The shown inputs, one text each, and "and 3 more in the JSON report" past `limit`. */
export function perInputItems(p: PerInputResult, inputs: readonly InputValue[] | undefined, limit = INPUTS_SHOWN, max = 52): string[] {
  const shown = inputsToShow(p);
  const items = shown.slice(0, limit).map((x) => `${x.verdict === 'fail' ? 'below its floor' : x.verdict}: ${inputFloorText(x, inputs, max)}`);
  if (shown.length > limit) items.push(`and ${shown.length - limit} more in the JSON report`);
  return items;
}

/** Terminal lines of every rule with a floor: its head, then its inputs indented. */
export function perInputLines(validators: readonly ValidatorSummary[], mode: VerdictMode, inputs: readonly InputValue[] | undefined): string[] {
  const lines: string[] = [];
  for (const v of validators) {
    if (!v.perInput) continue;
    lines.push(`${v.name} ${perInputHead(v.perInput, mode)}`);
    for (const item of perInputItems(v.perInput, inputs)) lines.push(`  ${item}`);
  }
  return lines;
}

/** Markdown: a heading per rule with a floor and its inputs as a list (cells escaped as the rest of the report). */
export function perInputMarkdown(
  validators: readonly ValidatorSummary[],
  mode: VerdictMode,
  inputs: readonly InputValue[] | undefined,
  cell: (s: string) => string,
): string[] {
  const L: string[] = [];
  for (const v of validators) {
    if (!v.perInput) continue;
    L.push(`### ${cell(v.name)} ${cell(perInputHead(v.perInput, mode))}`, '', cell(v.perInput.reason), '');
    const items = perInputItems(v.perInput, inputs, INPUTS_SHOWN, 80);
    if (items.length) {
      pushAll(
        L,
        items.map((x) => `- ${cell(x)}`),
      );
      L.push('');
    }
  }
  return L;
}

/** Inputs listed per rule on the HTML page (all are in the JSON report). */
const INPUTS_SHOWN_HTML = 50;

/** HTML: a card per rule with a floor, its reason and a table of the inputs that fail it (or are still open). */
export function perInputHtml(summary: RunSummary, inputs: readonly InputValue[] | undefined): string {
  const mode = summary.options.verdict;
  const cards = summary.validators.flatMap((v) => {
    const p = v.perInput;
    if (!p) return [];
    const shown = inputsToShow(p);
    const rows = shown
      .slice(0, INPUTS_SHOWN_HTML)
      .map((x) => [
        `${x.input + 1}. ${esc(inputLabel(inputs?.[x.input], 60))}`,
        verdictBadge(x.verdict, mode),
        x.rate === null ? NO_VALUE : `${x.successes}/${x.n} = ${formatRate(x.rate)}`,
        x.low === null || x.high === null ? NO_VALUE : `${formatRate(x.low)} – ${formatRate(x.high)}`,
        String(x.errors),
        formatP(x.adjusted),
      ]);
    const table = rows.length
      ? tableHtml(
          [
            { label: 'input' },
            { label: 'verdict' },
            { label: 'rate', num: true },
            { label: 'interval', num: true },
            { label: 'errors', num: true },
            { label: 'Holm p', num: true },
          ],
          rows,
          {
            label: `${v.name}: inputs ${p.failing.length ? 'below the floor' : 'not yet decided'}`,
            caption: `${p.failing.length ? 'Inputs shown below the floor' : 'Inputs not yet shown at or below the floor'}; Holm p is the adjusted p-value of "below the floor" (an input fails when it is ≤ ${formatP(p.alpha)}).`,
          },
        ) + (shown.length > rows.length ? `<p class="muted">and ${shown.length - rows.length} more in the JSON report.</p>` : '')
      : '';
    return [
      `<section class="card per-input" data-rule="${esc(v.name)}" aria-label="${esc(v.name)} per input"><h3>${esc(v.name)} ${esc(perInputTitle(p))}: ${verdictBadge(p.verdict, mode)}</h3><p>${esc(p.reason)}</p>${table}</section>`,
    ];
  });
  return cards.length ? `<h2>Per-input floors</h2>${cards.join('')}` : '';
}

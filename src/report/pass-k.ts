import type { PassKInput, PassKInterval, PassKSummary } from '../core/pass-k.js';
import { formatLevel, formatRate, inputInline, inputLabel } from '../core/show.js';
import type { RunSummary, ValidatorSummary, VerdictMode } from '../core/summary-types.js';
import type { InputValue } from '../core/validator.js';
import { esc, tableHtml, verdictBadge } from './html-layout.js';
import { verdictLabel } from './meta.js';
import { pushAll } from '../core/arrays.js';

/**
 * pass^k and pass@k (core/pass-k.ts) as every report says them: one line per rule with the figures over inputs and
 * their intervals, the gate's verdict when it has one, and the inputs least likely to get k tries right.
 */

/** Inputs listed per rule in the terminal, Markdown and the Vitest message (all are in the JSON report). */
export const PASS_K_INPUTS_SHOWN = 3;

const interval = (ci: PassKInterval | null) => (ci ? ` [${formatRate(ci.low)}, ${formatRate(ci.high)}]` : '');

/** "pass^5 59.0% [52.1%, 65.6%] · pass@5 99.9% [99.0%, 100.0%] over 80 inputs (95% CI, inputs as the unit)". */
export function passKText(p: PassKSummary): string {
  const head = `pass^${p.k} ${formatRate(p.passK)}${interval(p.ci)} · pass@${p.k} ${formatRate(p.passAtK)}${interval(p.atCi)}`;
  const left = p.leftOut ? `; ${p.leftOut} input${p.leftOut === 1 ? '' : 's'} with fewer than ${p.k} decided tries left out` : '';
  return `${head} over ${p.inputs} input${p.inputs === 1 ? '' : 's'} (${formatLevel(p.level)} CI, inputs as the unit${left})`;
}

/** The gate, when the rule has one: "pass^5 ≥ 80%: FAIL". */
export function passKGate(p: PassKSummary, mode: VerdictMode): string | undefined {
  return p.minSuccess === undefined || p.verdict === undefined ? undefined : `pass^${p.k} ≥ ${formatRate(p.minSuccess)}: ${verdictLabel(p.verdict, mode)}`;
}

/** The inputs with the lowest pass^k, lowest first (inputs without an estimate last, and not listed). */
export function lowestInputs(p: PassKSummary, limit = PASS_K_INPUTS_SHOWN): PassKInput[] {
  return p.perInput
    .filter((x) => x.passK !== null && x.passK < 1)
    .sort((a, b) => a.passK! - b.passK! || a.i - b.i)
    .slice(0, limit);
}

/** One input: `#3 "Refund my order" pass^5 0.0% [0.0%, 12.2%] (4/10 tries)`. */
export function passKInputText(x: PassKInput, k: number, inputs: readonly InputValue[] | undefined, max = 52): string {
  const text = inputs?.[x.i] !== undefined ? ` ${inputInline(inputs[x.i], max)}` : '';
  const errors = x.errors ? `, ${x.errors} error${x.errors === 1 ? '' : 's'}` : '';
  return `#${x.i + 1}${text} pass^${k} ${formatRate(x.passK)}${interval(x.ci)} (${x.successes}/${x.n} tries${errors})`;
}

/** The lines of one rule: its figures (and gate), then its lowest inputs indented. */
export function passKRuleLines(v: ValidatorSummary, mode: VerdictMode, inputs: readonly InputValue[] | undefined, indent = '  '): string[] {
  const p = v.passK;
  if (!p) return [];
  const gate = passKGate(p, mode);
  const lines = [`${passKText(p)}${gate ? ` · ${gate}` : ''}`];
  const low = lowestInputs(p);
  if (low.length) lines.push(`${indent}lowest: ${low.map((x) => passKInputText(x, p.k, inputs)).join('; ')}`);
  return lines;
}

/** Terminal lines of every rule with pass^k. */
export function passKLines(validators: readonly ValidatorSummary[], mode: VerdictMode, inputs: readonly InputValue[] | undefined): string[] {
  return validators.flatMap((v) => {
    const [head, ...rest] = passKRuleLines(v, mode, inputs);
    return head ? [`${v.name} ${head}`, ...rest] : [];
  });
}

/** Markdown: a line per rule with pass^k, its lowest inputs as a list. */
export function passKMarkdown(
  validators: readonly ValidatorSummary[],
  mode: VerdictMode,
  inputs: readonly InputValue[] | undefined,
  cell: (s: string) => string,
): string[] {
  const L: string[] = [];
  for (const v of validators) {
    const p = v.passK;
    if (!p) continue;
    const gate = passKGate(p, mode);
    L.push(`### ${cell(v.name)}: pass^${p.k}`, '', `${cell(passKText(p))}${gate ? ` · **${cell(gate)}**` : ''}`, '');
    const low = lowestInputs(p);
    if (low.length) {
      pushAll(
        L,
        low.map((x) => `- lowest: ${cell(passKInputText(x, p.k, inputs, 80))}`),
      );
      L.push('');
    }
  }
  return L;
}

/** Inputs listed per rule on the HTML page. */
const INPUTS_SHOWN_HTML = 20;

/** HTML: a card per rule with pass^k: the figures, the gate, and a table of the inputs lowest in pass^k. */
export function passKHtml(summary: RunSummary, inputs: readonly InputValue[] | undefined): string {
  const mode = summary.options.verdict;
  const cards = summary.validators.flatMap((v) => {
    const p = v.passK;
    if (!p) return [];
    const low = lowestInputs(p, INPUTS_SHOWN_HTML);
    const rows = low.map((x) => [
      `${x.i + 1}. ${esc(inputLabel(inputs?.[x.i], 60))}`,
      `${x.successes}/${x.n}`,
      `${formatRate(x.passK)} <span class="muted nowrap">${esc(interval(x.ci).trim())}</span>`,
      `${formatRate(x.passAtK)} <span class="muted nowrap">${esc(interval(x.atCi).trim())}</span>`,
      String(x.errors),
    ]);
    const table = rows.length
      ? tableHtml(
          [
            { label: 'input' },
            { label: 'tries', num: true },
            { label: `pass^${p.k}`, num: true },
            { label: `pass@${p.k}`, num: true },
            { label: 'errors', num: true },
          ],
          rows,
          { label: `${v.name}: inputs lowest in pass^${p.k}`, caption: `Inputs least likely to get ${p.k} tries in a row right, with exact intervals.` },
        )
      : '';
    const gate = p.verdict !== undefined && p.minSuccess !== undefined ? ` ≥ ${formatRate(p.minSuccess)}: ${verdictBadge(p.verdict, mode)}` : '';
    return [
      `<section class="card pass-k" data-rule="${esc(v.name)}" aria-label="${esc(v.name)} pass^${p.k}"><h3>${esc(v.name)}: pass^${p.k}${gate}</h3><p data-testid="pass-k">${esc(passKText(p))}</p>${p.reason ? `<p class="muted">${esc(p.reason)}</p>` : ''}${table}</section>`,
    ];
  });
  return cards.length
    ? `<h2>pass^k and pass@k</h2><p class="muted">pass^k: all k of k tries succeed; pass@k: at least one does. Over inputs: the mean of each input's unbiased estimate, with a betting interval that holds its level at any number of inputs (docs/verdicts.md).</p>${cards.join('')}`
    : '';
}

/**
 * Plain-text renderings of SPADE results for the terminal (`assay spade select` and `evaluate`).
 */
import { assertionStats } from './metrics.js';
import type { SelectionResult } from './select.js';
import type { EvaluationMatrix } from './types.js';
import { orNoValue } from '../core/show.js';
import { maxOf } from '../core/arrays.js';

const num = (x: number | null) => orNoValue(x, (v) => v.toFixed(3));
const ok = (b: boolean) => (b ? '✓' : '✗');

/** The selection: a summary line, then one line per selected assertion with its own counts. */
export function formatSelection(r: SelectionResult, m: EvaluationMatrix, o: { alpha: number; tau: number }): string[] {
  const lines: string[] = [];
  const name = `${r.method}${r.objective ? ` (${r.objective})` : ''}`;
  if (r.status === 'infeasible') lines.push(`${name}: infeasible: ${r.infeasibility!.message}`);
  else {
    lines.push(
      `${name}: ${r.selected.length} of ${m.assertions.length} selected; ` +
        `FFR ${num(r.ffr)} ${ok(r.meetsFfr)} (τ ${o.tau}), coverage ${num(r.coverage)} ${ok(r.meetsCoverage)} (α ${o.alpha}); ` +
        `excluded and not subsumed ${r.nExcludedNotSubsumed}; solved in ${r.solveMs.toFixed(1)} ms`,
    );
    const stats = new Map(assertionStats(m).map((s) => [s.id, s]));
    const width = Math.min(
      48,
      maxOf(
        r.selected.map((s) => s.length),
        0,
      ),
    );
    for (const id of r.selected) {
      const s = stats.get(id)!;
      const err = s.errors ? `, ${s.errors} ERROR cells` : '';
      lines.push(`  ${id.padEnd(width)}  flags ${s.goodFailed}/${s.goodRun} good, catches ${s.badFailed}/${s.badRun} bad${err}`);
    }
  }
  if (r.unevaluated.length) lines.push(`not evaluated (every cell ERROR, never selected): ${r.unevaluated.join(', ')}`);
  return lines;
}

/** Error cells per assertion, with the first reason, for the evaluate summary. */
export function formatErrors(m: EvaluationMatrix): string[] {
  const A = m.assertions.length;
  const per = new Map<number, { n: number; first: string }>();
  for (const [key, why] of Object.entries(m.errors ?? {})) {
    const a = Number(key.split(':')[1]);
    const x = per.get(a);
    if (x) x.n++;
    else per.set(a, { n: 1, first: why });
  }
  return [...per.entries()]
    .sort(([a], [b]) => a - b)
    .filter(([a]) => a >= 0 && a < A)
    .map(([a, x]) => `  ${m.assertions[a]}: ${x.n}/${m.examples.length} ERROR (${x.first})`);
}

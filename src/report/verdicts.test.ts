import { describe, expect, it } from 'vitest';
import { Outcome, type OutcomeCode } from '../core/outcome.js';
import { summarize } from '../core/summarize.js';
import type { RunSummary, SummaryOptions } from '../core/summary-types.js';
import { ReliabilityTensor } from '../core/tensor.js';
import type { ValidatorMeta } from '../core/validator.js';
import type { RunRecord } from '../store/types.js';
import { renderHtmlReport } from './html.js';
import { buildJsonReport } from './json.js';
import { renderJunitReport } from './junit.js';
import { renderMarkdownReport } from './markdown.js';
import { exitCodeFor, type ReportMeta } from './meta.js';
import { formatTerminalSummary } from './terminal.js';

const { PASS: P, FAIL: F, ERROR: E, PENDING: _ } = Outcome;

/** One input × M samples; column k's cells from `columns[k]` (a string of P, F, E, _). */
function tensorOf(columns: string[]): ReliabilityTensor {
  const M = columns[0].length;
  const t = new ReliabilityTensor(1, M, columns.length);
  const code: Record<string, OutcomeCode> = { P, F, E, _ };
  columns.forEach((col, k) => [...col].forEach((c, j) => t.set(0, j, k, code[c])));
  return t;
}

const meta: ReportMeta = { runId: 'r1', name: 'verdicts', status: 'complete', systemId: 'simulated', createdAt: '2026-01-01T00:00:00.000Z', inputs: ['x'] };
const v = (name: string, minSuccess: number): ValidatorMeta => ({ name, message: `${name} failed`, minSuccess, weight: 1, kind: 'validator' });

function record(s: RunSummary, metas: ValidatorMeta[]): RunRecord {
  return {
    id: meta.runId,
    name: meta.name,
    config: {},
    inputs: ['x'],
    samples: s.M,
    validators: metas,
    systemId: 'simulated',
    status: 'complete',
    createdAt: meta.createdAt,
    N: s.N,
    M: s.M,
    K: s.K,
  };
}

/** Every report of one summary. */
function all(t: ReliabilityTensor, metas: ValidatorMeta[], options: Partial<SummaryOptions>) {
  const s = summarize(t, metas, options);
  return {
    s,
    terminal: formatTerminalSummary(s, meta),
    json: buildJsonReport(s, meta),
    junit: renderJunitReport(s, meta),
    markdown: renderMarkdownReport(s, meta),
    html: renderHtmlReport(record(s, metas), s, t),
  };
}

describe('every report shows the same verdicts and every rate with its error share', () => {
  // Confident mode, 60 outputs: 60/60 vs 0.9 (Clopper–Pearson low 0.9404) passes; 30/60 fails; 50 passes and
  // 10 errors vs 0.8 is an error (low with errors as failures 0.715, share 16.7% > 5%); 57/60 vs 0.9 is
  // inconclusive ([0.861, 0.990]).
  const metas = [v('always', 0.9), v('half', 0.9), v('parser', 0.8), v('close', 0.9)];
  const t = tensorOf(['P'.repeat(60), 'PF'.repeat(30), 'P'.repeat(50) + 'E'.repeat(10), 'P'.repeat(57) + 'F'.repeat(3)]);
  const r = all(t, metas, { verdict: 'confident' });
  const expected = ['pass', 'fail', 'error', 'inconclusive'] as const;

  it('the summary and the JSON report', () => {
    expect(r.s.validators.map((x) => x.verdict)).toEqual(expected);
    expect(r.json.validators.map((x) => x.verdict)).toEqual(expected);
    expect(r.json.validators[2]).toMatchObject({ errorShare: 1 / 6, reason: expect.stringMatching(/error share 16\.7% > maxErrorShare 5\.0%/) });
    expect(r.json.validators[3].toDecide).toMatchObject({ probability: 0.8 });
    expect(r.json.verdict).toBe('fail');
    expect(r.json.passed).toBe(false);
  });

  it('terminal: verdicts, the error share column and a line of why per validator', () => {
    for (const [k, name] of ['always', 'half', 'parser', 'close'].entries()) {
      const row = r.terminal.split('\n').find((l) => l.startsWith(`${name} `))!;
      expect(row).toContain(expected[k].toUpperCase());
    }
    expect(r.terminal.split('\n').find((l) => l.startsWith('parser '))).toMatch(/16\.7%/);
    expect(r.terminal).toMatch(/ {2}parser: error share 16\.7% > maxErrorShare 5\.0%/);
    expect(r.terminal).toMatch(/ {2}close: bounds \[86\.\d%, 99(\.\d)?%\] straddle minSuccess 90\.0%; ~\d+ more samples decide it with 80% probability/);
    expect(r.terminal).toContain('FAIL: 1 failed, 1 error (too many error cells to judge), 1 inconclusive of 4 validator(s): half, parser, close');
  });

  it('JUnit: passed, failure, error (error share) and failure (inconclusive)', () => {
    const cases = r.junit.split('<testcase ').slice(1);
    expect(cases[0]).not.toMatch(/<failure|<error/);
    expect(cases[1]).toMatch(/<failure type="below-min-success"/);
    expect(cases[2]).toMatch(/<error type="error-share" message="error: error share 16\.7% &gt; maxErrorShare 5\.0%/);
    expect(cases[3]).toMatch(/<failure type="inconclusive"/);
    // --allow-inconclusive skips the inconclusive one, never the error.
    const lenient = renderJunitReport(r.s, { ...meta, allowInconclusive: true })
      .split('<testcase ')
      .slice(1);
    expect(lenient[2]).toMatch(/<error type="error-share"/);
    expect(lenient[3]).toMatch(/<skipped/);
  });

  it('Markdown and HTML', () => {
    expect(r.markdown).toMatch(/\| ✅ \| always \|/);
    expect(r.markdown).toMatch(/\| ❌ \| half \|/);
    expect(r.markdown).toMatch(/\| 🛑 \| parser \| 100\.0% \| [^|]+ \| [^|]+ \| 16\.7% \|/);
    expect(r.markdown).toMatch(/\| ⚠️ \| close \|/);
    for (const verdict of expected) expect(r.html).toContain(`<span class="badge ${verdict}"`);
    expect(r.html).toContain('error share 16.7% &gt; maxErrorShare 5.0%');
  });

  it('exit code: an error verdict is never accepted, not even with --allow-inconclusive', () => {
    const onlyError = summarize(tensorOf(['P'.repeat(50) + 'E'.repeat(10)]), [v('parser', 0.8)]);
    expect(onlyError.verdict).toBe('error');
    expect(exitCodeFor(onlyError, 'complete')).toBe(1);
    expect(exitCodeFor(onlyError, 'complete', true)).toBe(1);
    expect(buildJsonReport(onlyError, { ...meta, allowInconclusive: true }).passed).toBe(false);
  });
});

describe('a point verdict is marked as such in every report (the default is confident)', () => {
  // 19 of 20 vs 0.9: a point PASS (95% ≥ 90%), which the interval [75.1%, 99.9%] cannot confirm; 10 of 20 a point FAIL.
  const metas = [v('lucky', 0.9), v('half', 0.9)];
  const t = tensorOf(['P'.repeat(19) + 'F', 'PF'.repeat(10)]);
  const r = all(t, metas, { verdict: 'point' });
  const d = all(t, metas, {});

  it('terminal, JSON, JUnit, Markdown and HTML say "(point)"; confident verdicts carry no mark', () => {
    expect(r.s.validators.map((x) => x.verdict)).toEqual(['pass', 'fail']);
    expect(r.terminal.split('\n').find((l) => l.startsWith('lucky '))).toContain('PASS (point)');
    expect(r.terminal.split('\n').find((l) => l.startsWith('half '))).toContain('FAIL (point)');
    expect(r.terminal).toContain('FAIL (point): 1 failed of 2 validator(s): half');
    expect(r.json.validators.map((x) => [x.verdict, x.verdictMode])).toEqual([
      ['pass', 'point'],
      ['fail', 'point'],
    ]);
    expect(r.junit).toContain('<system-out>pass (point): ');
    expect(r.junit).toContain('message="half failed: fail (point) (');
    expect(r.markdown.split('\n')[0]).toBe('## ❌ assay: verdicts: FAIL (point)');
    expect(r.markdown).toContain('| pass (point) |');
    expect(r.html).toContain('<span class="badge pass" title="verdict: pass (point)">✓ pass (point)</span>');
    expect(r.html).toContain('<span class="badge fail" title="verdict: fail (point)">✗ fail (point)</span>');

    expect(d.s.validators.map((x) => x.verdict)).toEqual(['inconclusive', 'fail']);
    expect(d.json.validators.map((x) => x.verdictMode)).toEqual(['confident', 'confident']);
    for (const text of [d.terminal, d.junit, d.markdown, d.html]) expect(text).not.toContain('(point)');
  });
});

describe('a run where 4 of 5 validators errored on every cell does not headline "overall mean 100.0%" alone', () => {
  const metas = ['ok', 'a', 'b', 'c', 'd'].map((n) => v(n, 0.9));
  const t = tensorOf(['P'.repeat(20), ...Array(4).fill('E'.repeat(20))]);
  const r = all(t, metas, {});

  it('every report gives the error share beside the headline and the verdict is error', () => {
    expect(r.terminal).toContain(
      'overall  mean 100.0%  weighted 100.0%  min 100.0%  (mean) · errors 80.0% of checked cells · 4 of 5 validator(s) with no decided cell left out',
    );
    expect(r.markdown).toContain('mean 100.0%, weighted 100.0%, min 100.0% · errors 80.0% of checked cells · 4 validator(s) with no decided cell left out');
    expect(r.html).toMatch(
      /<strong>100\.0%<\/strong> <span class="muted nowrap">· errors 80\.0% of checked cells · 4 validator\(s\) with no decided cell left out/,
    );
    expect(r.json.overall).toMatchObject({ mean: 1, errorShare: 0.8, undecidedValidators: 4 });
    expect(r.json.allOutputs.errorShare).toBe(0.8);
    expect(r.s.verdict).toBe('error');
    // ok's 20 of 20 cannot show 0.9 at 95% (lower bound 83.2%): inconclusive, beside the four errors.
    expect(r.terminal).toContain('ERROR: 4 error (too many error cells to judge), 1 inconclusive of 5 validator(s): ok, a, b, c, d');
    expect(exitCodeFor(r.s, 'complete')).toBe(1);
  });
});

describe('a sequential run shows where and why each validator stopped', () => {
  // 150 samples of one input: `early` passes every output and is decided after 98; `late` fails every other one.
  const metas = [v('early', 0.95), v('late', 0.95)];
  const t = tensorOf(['P'.repeat(98) + '_'.repeat(52), 'PF'.repeat(75)]);
  const r = all(t, metas, { stopping: 'sequential' });
  const lateRounds = r.s.validators[1].sequential!.rounds;

  it('in every report', () => {
    expect(r.json.validators[0].sequential).toEqual({ reason: 'lower-bound', rounds: 98, outputs: 98, counts: { pass: 98, fail: 0, error: 0 } });
    expect(r.json.validators[0].ci!.method).toBe('confidence-sequence');
    expect(r.json.options).toMatchObject({ stopping: 'sequential', verdict: 'confident' });
    const stop = 'stopped after 98 of 150 samples per input (98 outputs)';
    expect(r.terminal).toContain(`  early: ${stop}; sequence lower bound`);
    expect(r.terminal).toContain(`  late: stopped after ${lateRounds} of 150 samples per input`);
    expect(r.terminal).toContain('confidence sequence 95%, stopping: sequential');
    expect(r.markdown).toContain(stop);
    expect(r.junit).toContain(stop);
    expect(r.html).toContain(stop);
    expect(r.s.validators.map((x) => x.verdict)).toEqual(['pass', 'fail']);
  });
});

/** N inputs × M samples; cell (i, j, k) from `rows[i][k][j]` (P, F, E, _). */
function tensorOfInputs(rows: string[][]): ReliabilityTensor {
  const M = rows[0][0].length;
  const t = new ReliabilityTensor(rows.length, M, rows[0].length);
  const code: Record<string, OutcomeCode> = { P, F, E, _ };
  rows.forEach((cols, i) => cols.forEach((col, k) => [...col].forEach((c, j) => t.set(i, j, k, code[c]))));
  return t;
}

describe('the per-input and per-sample profiles show their error shares', () => {
  // Two inputs × 10 samples, one validator: input 1 passes all 10; input 2 passes 9 and errors once (10%).
  const metas = [v('parser', 0.8)];
  const t = tensorOfInputs([['P'.repeat(10)], ['P'.repeat(9) + 'E']]);
  const s = summarize(t, metas, {});
  const terminal = formatTerminalSummary(s, { ...meta, inputs: ['x', 'y'] });
  const html = renderHtmlReport({ ...record(s, metas), inputs: ['x', 'y'] }, s, t);

  it('terminal: the IRP and ORP extremes carry the error share of the entry they name', () => {
    // Every rate is 100%: the first entry is both min and max; the entries that errored say so.
    expect(terminal).toMatch(/IRP \(per input\) +\S+ {2}min 100\.0% \(#1\) {2}max 100\.0% \(#1\)/);
    const t2 = tensorOfInputs([['P'.repeat(9) + 'E'], ['P'.repeat(10)]]);
    const s2 = summarize(t2, metas, {});
    const out = formatTerminalSummary(s2, { ...meta, inputs: ['x', 'y'] });
    expect(out).toMatch(/IRP \(per input\) +\S+ {2}min 100\.0% \(#1, errors 10\.0%\) {2}max 100\.0% \(#1, errors 10\.0%\)/);
    expect(out).toMatch(/ORP \(per sample\) +\S+ {2}min 100\.0% \(#1\) {2}max 100\.0% \(#1\)/);
  });

  it('HTML: profile bars name their error share, and the table view has an errors column', () => {
    expect(html).toContain('<title>2. y: 100.0% (interval 66.4%–100.0%), errors 10.0%: ');
    expect(html).toContain('<title>sample 10: 100.0% (interval 2.5%–100.0%), errors 50.0%: ');
    expect(html).toContain('<title>parser: 100.0% (interval 82.4%–100.0%), errors 5.0%, minimum 80.0%');
    expect(html).toMatch(/<th class="num">interval<\/th><th class="num">errors<\/th><th class="num">all pass<\/th>/);
    expect(html).toMatch(
      /<th scope="row">2\. y<\/th><td class="num">100\.0%<\/td><td class="num">[^<]+<\/td><td class="num">10\.0%<\/td><td class="num">100\.0% <span class="muted nowrap">· errors 10\.0%<\/span><\/td>/,
    );
  });
});

describe('an undecided sequential validator says how far it got once', () => {
  // 150 samples of one input, 40 run: a rate near 0.95 is not decided by the sequence after 40.
  const metas = [v('open', 0.95)];
  const t = tensorOf(['P'.repeat(38) + 'FF' + '_'.repeat(110)]);
  const r = all(t, metas, { stopping: 'sequential' });

  it('in the summary and every report', () => {
    expect(r.s.validators[0]).toMatchObject({ verdict: 'inconclusive', reason: 'undecided after 40 of 150 samples per input; samples remain' });
    for (const text of [r.terminal, r.markdown, r.junit, r.html]) {
      expect(text).toContain('undecided after 40 of 150 samples per input; samples remain');
      expect(text.match(/undecided after/g)!.length).toBe(text === r.junit ? 2 : 1); // JUnit: the failure and system-out
    }
  });

  it('when every sample was run', () => {
    const full = summarize(tensorOf(['P'.repeat(38) + 'FF']), metas, { stopping: 'sequential' });
    expect(full.validators[0]).toMatchObject({ verdict: 'inconclusive', reason: 'undecided after all 40 samples per input' });
    expect(formatTerminalSummary(full, meta)).toContain('  open: undecided after all 40 samples per input\n');
  });
});

describe('an inconclusive verdict counts the further samples per input', () => {
  // Three inputs × 20 samples at 57 of 60 against 0.9: toDecide counts outputs, which three inputs share.
  const metas = [v('close', 0.9)];
  const t = tensorOfInputs([['P'.repeat(19) + 'F'], ['P'.repeat(19) + 'F'], ['P'.repeat(19) + 'F']]);
  const s = summarize(t, metas, { verdict: 'confident' });
  const outputs = s.validators[0].toDecide!.outputs;
  const perInput = Math.ceil(outputs / 3);
  const meta3 = { ...meta, inputs: ['x', 'y', 'z'] };

  it('in every report, with the outputs beside', () => {
    expect(outputs).toBeGreaterThan(3);
    const text = `~${perInput} more samples decide it with 80% probability if the rates hold (${outputs} outputs over 3 inputs)`;
    expect(formatTerminalSummary(s, meta3)).toContain(text);
    expect(renderMarkdownReport(s, meta3)).toContain(text);
    expect(renderJunitReport(s, meta3)).toContain(text);
    expect(renderHtmlReport({ ...record(s, metas), inputs: ['x', 'y', 'z'] }, s, t)).toContain(text);
  });
});

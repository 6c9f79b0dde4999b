import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { combineGrades, type PersonGrade } from '../core/grades.js';
import { Outcome } from '../core/outcome.js';
import { summarize } from '../core/summarize.js';
import { ReliabilityTensor } from '../core/tensor.js';
import type { ValidatorMeta } from '../core/validator.js';
import type { RunRecord } from '../store/types.js';
import { renderHtmlReport } from './html.js';
import { buildJsonReport } from './json.js';
import { renderJunitReport } from './junit.js';
import { renderMarkdownReport } from './markdown.js';
import type { ReportMeta } from './meta.js';
import { formatTerminalSummary } from './terminal.js';

const addFormats = addFormatsModule as unknown as (a: Ajv) => Ajv;
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
addFormats(ajv);
const validate = ajv.compile(JSON.parse(readFileSync(new URL('../../schemas/report.schema.json', import.meta.url), 'utf8')) as object);

// 40 inputs × 5 samples; `polite` (a judge) passes everything, `kind` (a judge) too, `short` (a rule) fails 1 in 10.
const [N, M] = [40, 5];
const rules: ValidatorMeta[] = [
  { name: 'short', message: 'at most 50 words', minSuccess: 0.8, weight: 1, kind: 'validator' },
  { name: 'polite', message: 'answers politely', minSuccess: 0.95, weight: 1, kind: 'verifier' },
  { name: 'kind', message: 'answers kindly', minSuccess: 0.9, weight: 1, kind: 'verifier' },
];
const t = new ReliabilityTensor(N, M, 3);
for (let i = 0; i < N; i++) for (let j = 0; j < M; j++) for (let k = 0; k < 3; k++) t.set(i, j, k, k === 0 && (i + j) % 10 === 0 ? Outcome.FAIL : Outcome.PASS);

// People graded 40 outputs (every 4th) of `polite`: one in five is rude, which the judge let through.
const grades: PersonGrade[] = Array.from({ length: 40 }, (_, n) => ({
  i: Math.floor((n * 4) / M),
  j: (n * 4) % M,
  k: 1,
  pass: n % 5 !== 0,
  grader: 'ada',
  probability: 0.25,
}));
const graded = combineGrades(grades, 3).map((outs) => outs.map((o) => ({ ...o, reasons: [`Polite & <b>calm</b> (${o.i}.${o.j})`] })));
const summary = summarize(t, rules, { verdict: 'confident' }, graded);
const meta: ReportMeta = {
  runId: '20260101-000000-abcd',
  name: 'graded',
  status: 'complete',
  systemId: 'simulated',
  createdAt: '2026-01-01T00:00:00.000Z',
  finishedAt: '2026-01-01T00:00:02.000Z',
  inputs: Array.from({ length: N }, (_, i) => `Question ${i}`),
};
const run: RunRecord = {
  id: meta.runId,
  name: meta.name,
  status: 'complete',
  createdAt: meta.createdAt,
  config: {},
  inputs: meta.inputs!,
  samples: M,
  validators: rules,
  systemId: 'simulated',
  N,
  M,
  K: 3,
};
const NOT_CHECKED = 'judge not checked against people';

describe('every report format says which figure it shows and how the rule fares against people', () => {
  it('the summary: polite corrected by its 40 grades (a grading look) to a FAIL, kind not checked', () => {
    expect(summary.validators.map((v) => [v.name, v.verdict, v.figure])).toEqual([
      ['short', 'pass', undefined],
      ['polite', 'fail', 'corrected by 40 grades (grading look 2 at 98.75%; the next at 80 grades)'],
      ['kind', 'pass', `judge's rate · ${NOT_CHECKED}`],
    ]);
  });

  it('terminal', () => {
    const text = formatTerminalSummary(summary, meta);
    expect(text).toMatch(/^polite \(verifier\)\s+8\d\.\d%\s+\[\S+, \S+\]/m); // the corrected rate, not the judge's 100%
    expect(text).toMatch(
      /^ {2}polite: corrected by 40 grades \(grading look 2 at 98\.75%; the next at 80 grades\) \(judge's rate 100\.0% \[\S+, 100\.0%\]; pass, fail and error counts are the judge's verdicts\); upper bound \S+ \(corrected by 40 grades\) < minSuccess 95\.0%/m,
    );
    expect(text).toContain(`  kind: judge's rate · ${NOT_CHECKED}; lower bound`);
    // The aggregates are of the verdicts as given, not of the corrected rate shown in polite's row: they say so.
    expect(text).toMatch(/^overall {2}mean \S+ .*\(mean, of the verdicts as given, not the rate corrected by grades\)/m);
    expect(text).toContain(
      'polite (verifier) against people: 40 grade(s): 32 agree, 8 disagree · corrected by 40 grades (grading look 2 at 98.75%; the next at 80 grades)',
    );
    expect(text).toMatch(/^ {2}judge PASS\s+32\s+8$/m);
    expect(text).toMatch(/^ {2}judge FAIL\s+0\s+0$/m);
    expect(text).toMatch(/TPR 100\.0% \[\S+, 100\.0%\] · TNR 0\.0% \[0\.0%, \S+\] · agreement 80\.0% · κ 0\.00/);
    expect(text).toContain('  (i=0, j=0) judge PASS, people FAIL: Polite & <b>calm</b> (0.0)');
    expect(text).not.toMatch(/^short against people/m);
    expect(text).not.toContain('weighted by the draw');
    // Grades drawn with unequal probabilities (a stratified draw): the rates are weighted, and it says so.
    const strat = combineGrades(
      grades.map((g, n) => ({ ...g, probability: n % 2 ? 0.1 : 0.4 })),
      3,
    );
    expect(formatTerminalSummary(summarize(t, rules, { verdict: 'confident' }, strat), meta)).toMatch(/κ \S+ \(weighted by the draw’s probabilities\)/);
  });

  it('JSON: alignment and corrected per graded rule, the figure per rule, valid against the schema', () => {
    const r = buildJsonReport(summary, meta);
    expect(validate(r), JSON.stringify(validate.errors)).toBe(true);
    const [short, polite, kind] = r.validators;
    expect(short.figure).toBeUndefined();
    expect(short.alignment).toBeUndefined();
    expect(kind.figure).toBe(`judge's rate · ${NOT_CHECKED}`);
    expect(kind.corrected).toBeUndefined();
    expect(polite.rate).toBe(1);
    expect(polite.alignment).toMatchObject({ n: 40, tp: 32, fp: 8, fn: 0, tn: 0, tpr: { rate: 1 }, tnr: { rate: 0 }, kappa: 0 });
    expect(polite.corrected).toMatchObject({ grades: 40, method: expect.any(String), look: { index: 2, of: 40, next: 80 } });
    expect(polite.corrected!.rate).toBeCloseTo(0.8, 6);
    // Whose the counts and the aggregates are, beside the corrected rate (issue 26, item 5).
    expect(polite.countsOf).toBe("judge's verdicts");
    expect(short.countsOf).toBeUndefined();
    expect(r.overall.of).toBe('of the verdicts as given, not the rate corrected by grades');
    expect(polite.grading).toMatchObject({ grades: 40, notRandom: 0, disputed: 0, undecided: 0, caveats: [] });
    expect(polite.grading!.disagreements[0]).toEqual({ i: 0, j: 0, judge: true, person: false, disputed: false, reasons: ['Polite & <b>calm</b> (0.0)'] });
  });

  it('Markdown', () => {
    const md = renderMarkdownReport(summary, meta);
    expect(md).toMatch(/\| ❌ \| polite _\(verifier\)_ \| 8\d\.\d% \|/);
    expect(md).toContain(`judge's rate · ${NOT_CHECKED}`);
    expect(md).toContain('### polite against people: 40 grade(s): 32 agree, 8 disagree');
    expect(md).toContain('| judge PASS | 32 | 8 |');
    expect(md).toContain('**Overall** (mean, of the verdicts as given, not the rate corrected by grades): mean');
    expect(md).toContain("pass, fail and error counts are the judge's verdicts");
    expect(md).toContain('| (i=0, j=0) | judge PASS, people FAIL | Polite & &lt;b>calm&lt;/b> (0.0) |');
  });

  it('HTML (the static report and the dashboard share it)', () => {
    const html = renderHtmlReport(run, summary, t);
    expect(html).toContain(`kind: ${NOT_CHECKED}`);
    expect(html).toContain(`judge&#39;s rate · ${NOT_CHECKED}`);
    expect(html).toContain('data-rule="polite"');
    expect(html).toContain('<strong>corrected by 40 grades (grading look 2 at 98.75%; the next at 80 grades) (judge&#39;s rate 100.0%');
    expect(html).toMatch(/<th scope="row">judge PASS<\/th><td class="num">32<\/td><td class="num">8<\/td>/);
    expect(html).toContain('Polite &amp; &lt;b&gt;calm&lt;/b&gt; (0.0)');
    // The heatmap is of the judge's verdicts: beside the corrected verdict its rate says whose it is.
    expect(html).toMatch(/<figcaption>polite <span class="badge[^"]*"[^>]*>[^<]*<\/span> <span class="muted">100\.0% judge&#39;s rate<\/span><\/figcaption>/);
    expect(html).not.toContain('<b>calm</b>');
  });

  it('JUnit', () => {
    const xml = renderJunitReport(summary, meta);
    const kindCase = xml.slice(xml.indexOf('name="kind"'));
    expect(kindCase).toContain(`judge&apos;s rate · ${NOT_CHECKED}`);
    const politeCase = xml.slice(xml.indexOf('name="polite"'), xml.indexOf('name="kind"'));
    expect(politeCase).toMatch(
      /<failure type="below-min-success" message="answers politely: fail \(rate 8\d\.\d% \[\S+, \S+\] \(corrected by 40 grades \(grading look 2/,
    );
    expect(politeCase).toContain('against people: 40 grade(s): 32 agree, 8 disagree, TPR 100.0%');
    // Its counts are the judge's verdicts, not the corrected rate's.
    expect(politeCase).toContain('judge&apos;s verdicts: 200 pass, 0 fail, 0 error');
  });
});

describe('an inconclusive corrected verdict says what would decide it', () => {
  // polite graded 40 times, 36 PASS: corrected 90% against minSuccess 90%, which no number of grades of these outputs decides.
  const tie: PersonGrade[] = Array.from({ length: 40 }, (_, n) => ({ i: n, j: 0, k: 1, pass: n >= 4, grader: 'ada', probability: 0.2 }));
  const s = summarize(t, [rules[0], { ...rules[1], minSuccess: 0.9 }, rules[2]], {}, combineGrades(tie, 3));
  it('in the terminal, Markdown and JSON (null: grading every output would not)', () => {
    const polite = s.validators[1];
    expect([polite.verdict, polite.gradesToDecide]).toEqual(['inconclusive', null]);
    const said = 'grading every output the rule decided would not narrow the corrected interval enough to decide it: a larger run would';
    expect(formatTerminalSummary(s, meta)).toContain(said);
    expect(renderMarkdownReport(s, meta)).toContain(said);
    const json = buildJsonReport(s, meta);
    expect(json.validators[1].gradesToDecide).toBeNull();
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JsonReport } from '../report/json.js';
import { openSqliteStore } from '../store/sqlite.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

/**
 * `assay spade select --run RUN`: people's grades in a real SQLite store as SPADE's labelled outputs (EvalGen),
 * with each candidate's agreement with them (issue 16, item 5). The run is made by `assay run` and graded by
 * `assay grades import`, as a user would.
 */

const tmp = useConfigDir('assay-spade-grades-');
const cli = (...args: string[]) => captureCli(args);
const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

// Eight support-call summaries; the run's own rules (short, polite) let the bad ones through. People graded
// seven: i3 quotes a dollar price, i4 names no customer, i5 a euro price (FAIL on short); i6 is rude (PASS on
// short, FAIL on polite: bad over all rules); i2 is disputed (two PASS, one FAIL: the majority says PASS).
const OUTPUTS = [
  ['Ada', '- Ada asked for a refund\n- Refund approved'],
  ['Bob', "- Bob's router fixed"],
  ['Cy', '- Cy cancelled the order'],
  ['Dee', '- Refund of $40 for Dee'],
  ['Eve', '- The customer wants a refund'],
  ['Fay', '- Fay was quoted 40 € for the repair'],
  ['Gus', '- Gus, stop being stupid'],
  ['Hal', '- Hal asked about opening hours'],
] as const;
const GRADES = [
  ...[0, 1, 2, 6].map((i) => ({ input: i, sample: 0, rule: 'short', grade: 'pass', grader: 'reviewer-1' })),
  ...[3, 4, 5].map((i) => ({ input: i, sample: 0, rule: 'short', grade: 'fail', grader: 'reviewer-1' })),
  { input: 2, sample: 0, rule: 'short', grade: 'fail', grader: 'reviewer-2' },
  { input: 2, sample: 0, rule: 'short', grade: 'pass', grader: 'reviewer-3' },
  { input: 6, sample: 0, rule: 'polite', grade: 'fail', grader: 'reviewer-1' },
];
const CANDIDATES = [
  { id: 'names_customer', description: 'Names the customer', form: { kind: 'js', source: '(o, i) => o.includes(i.customer)' } },
  { id: 'no_currency_sign', description: 'No currency sign', form: { kind: 'js', source: 'o => !/[$€£]/.test(o)' } },
  { id: 'no_dollar_amount', description: 'No dollar amount', form: { kind: 'check', check: { type: 'regex', pattern: '[$][0-9]', mustMatch: false } } },
  { id: 'polite_words', description: 'No insult', form: { kind: 'check', check: { type: 'not-contains', value: 'stupid', ignoreCase: true } } },
  { id: 'broken', description: 'Always throws', form: { kind: 'js', source: 'o => { throw new Error("boom") }' } },
];

let db = '';
let cands = '';
let runId = '';
beforeAll(async () => {
  db = join(tmp.dir(), 'runs.db');
  tmp.config('calls.jsonl', jsonl(OUTPUTS.map(([customer, output]) => ({ input: { customer }, output }))));
  const config = tmp.config(
    'summaries.yaml',
    `name: summaries
system: { replay: { file: calls.jsonl } }
inputs:
${OUTPUTS.map(([c]) => `  - { customer: ${c} }`).join('\n')}
verdict: point
validators:
  - { name: short, check: { type: words, max: 40 }, minSuccess: 0.9 }
  - { name: polite, check: { type: not-contains, value: idiot }, minSuccess: 0.9 }
`,
  );
  const run = await cli('run', config, '--store', db, '--no-progress');
  expect(run.code, run.out + run.err).toBe(0);
  runId = /run (\S+):/.exec(run.err)![1];
  const imported = await cli('grades', 'import', tmp.config('grades.jsonl', jsonl(GRADES)), '--run', 'latest', '--store', db);
  expect(imported.code, imported.err).toBe(0);
  cands = tmp.config('cands.json', JSON.stringify({ candidates: CANDIDATES }));
});

type Agreement = {
  id: string | null;
  alignment: { n: number; tp: number; fp: number; fn: number; tn: number; kappa: number | null; agreement: { rate: number; low: number; high: number } | null };
  errors: number;
};
const select = (...args: string[]) =>
  cli('spade', 'select', '--run', 'latest', '--store', db, '--candidates', cands, '--method', 'cov', '--alpha', '1', '--tau', '0', ...args);

describe('spade select --run: people’s grades as the labelled outputs', () => {
  it('labels from every rule’s grades: coverage and FFR against them, each candidate’s agreement, the set’s, and a self-check of the graded outputs', async () => {
    const json = join(tmp.dir(), 'all.json');
    const exported = join(tmp.dir(), 'graded-selected.yaml');
    const r = await select('--json', json, '--export', exported);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain(
      `labelled by people's grades of run ${runId}: 7 outputs (3 good = graded PASS, 4 bad = graded FAIL); short 4 PASS / 3 FAIL, polite 0 PASS / 1 FAIL`,
    );
    expect(r.out).toMatch(/ {2}1 output graded PASS on one rule and FAIL on another: bad/);
    expect(r.out).toMatch(/ {2}1 output disputed among graders: the majority decided/);
    expect(r.out).toMatch(/5 candidates evaluated on 7 graded outputs \(7 error cells, not counted as failures\)/);
    expect(r.out).toMatch(/cov: 3 of 5 selected; FFR 0\.000 ✓ \(τ 0\), coverage 1\.000 ✓ \(α 1\)/);
    expect(r.out).toMatch(/not evaluated \(every cell ERROR, never selected\): broken/);
    expect(r.out).toContain(`agreement with people's grades of run ${runId} (PASS = good; TPR = 1 − FFR, TNR = coverage, over non-error cells):`);
    expect(r.out).toMatch(/✓ names_customer {6}7 {3}3 {3}3 {3}0 {3}1 {2}0\.571 \[0\.184, 0\.901\] {3}1\.000 0\.250 {2}0\.22/);
    expect(r.out).toMatch(/ {2}no_dollar_amount +7 +3 +3 +0 +1 /);
    expect(r.out).toMatch(/ {2}broken {14}0 {3}0 {3}0 {3}0 {3}0 {2}– {5}– {20}– {5}– {5}– {2}\(7 ERROR cells left out\)/);
    expect(r.out).toMatch(/ {2}selected set +7 +3 +0 +0 +4 {2}1\.000 \[0\.590, 1\.000\]/);

    const out = JSON.parse(readFileSync(json, 'utf8')) as { selected: string[]; labels: unknown; agreement: { assertions: Agreement[]; set: Agreement } };
    expect(out.selected).toEqual(['names_customer', 'no_currency_sign', 'polite_words']);
    expect(out.labels).toEqual({ run: runId });
    const byId = new Map(out.agreement.assertions.map((a) => [a.id, a]));
    // Counts by hand from the table above; κ = (p_o − p_e)/(1 − p_e): names_customer 6/27, no_currency_sign 12/26.
    expect(byId.get('names_customer')!.alignment).toMatchObject({ n: 7, tp: 3, fp: 3, fn: 0, tn: 1 });
    expect(byId.get('names_customer')!.alignment.kappa).toBeCloseTo(6 / 27, 12);
    // Clopper–Pearson for 4 of 7 (scipy.stats.binomtest(4, 7).proportion_ci(0.95, 'exact')).
    expect(byId.get('names_customer')!.alignment.agreement!.low).toBeCloseTo(0.18405156764007, 9);
    expect(byId.get('names_customer')!.alignment.agreement!.high).toBeCloseTo(0.9010117215575631, 9);
    expect(byId.get('no_currency_sign')!.alignment).toMatchObject({ tp: 3, fp: 2, fn: 0, tn: 2 });
    expect(byId.get('no_currency_sign')!.alignment.kappa).toBeCloseTo(12 / 26, 12);
    expect(byId.get('polite_words')!.alignment).toMatchObject({ tp: 3, fp: 3, fn: 0, tn: 1 });
    expect(byId.get('broken')).toMatchObject({ alignment: { n: 0, kappa: null, agreement: null }, errors: 7 });
    expect(out.agreement.set).toMatchObject({ id: null, alignment: { n: 7, tp: 3, fp: 0, fn: 0, tn: 4, kappa: 1 } });

    // The self-check replays the three outputs people passed, each with its own input.
    const replay = readFileSync(exported.replace(/\.yaml$/, '.replay.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(replay.map((x) => [x.id, x.input])).toEqual([
      ['i0/j0', { customer: 'Ada' }],
      ['i1/j0', { customer: 'Bob' }],
      ['i2/j0', { customer: 'Cy' }],
    ]);
    const report = join(tmp.dir(), 'self-check.json');
    const run = await cli('run', exported, '--store', join(tmp.dir(), 'self-check.db'), '--json', report, '--no-progress');
    expect(run.code, run.out + run.err).toBe(0);
    expect((JSON.parse(readFileSync(report, 'utf8')) as JsonReport).validators.map((v) => [v.name, v.counts.pass, v.counts.fail])).toEqual([
      ['names_customer', 3, 0],
      ['no_currency_sign', 3, 0],
      ['polite_words', 3, 0],
    ]);
  });

  it('--rule: one rule’s grades only; an assertion that fails an output people passed on it is held to τ', async () => {
    const json = join(tmp.dir(), 'short.json');
    const r = await select('--rule', 'short', '--json', json);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain(`7 outputs (4 good = graded PASS, 3 bad = graded FAIL); short 4 PASS / 3 FAIL`);
    expect(r.out).toContain(`agreement with people's grades of run ${runId} (rule short)`);
    expect(r.out).toMatch(/cov: 2 of 5 selected; FFR 0\.000 ✓ \(τ 0\), coverage 1\.000 ✓ \(α 1\)/);
    const out = JSON.parse(readFileSync(json, 'utf8')) as { selected: string[]; agreement: { assertions: Agreement[] } };
    expect(out.selected).toEqual(['names_customer', 'no_currency_sign']);
    // polite_words fails Gus's output, which people passed on `short`: a false failure (fn), FFR 1/4 > τ.
    expect(out.agreement.assertions.find((a) => a.id === 'polite_words')!.alignment).toMatchObject({ tp: 3, fp: 3, fn: 1, tn: 0 });
  });

  it('evaluate --run writes a matrix labelled by the grades; select --matrix on it shows the agreement with them', async () => {
    const matrix = join(tmp.dir(), 'graded-matrix.json');
    const ev = await cli('spade', 'evaluate', '--candidates', cands, '--run', runId.slice(0, 12), '--store', db, '--out', matrix);
    expect(ev.code, ev.out + ev.err).toBe(0);
    expect(ev.out).toMatch(/5 candidates × 7 examples → .*graded-matrix\.json \(7 error cells/);
    const m = JSON.parse(readFileSync(matrix, 'utf8')) as { examples: { id: string; label: string }[]; labels: unknown };
    expect(m.labels).toEqual({ run: runId });
    expect(m.examples.map((e) => `${e.id} ${e.label}`)).toEqual(['i0/j0 good', 'i1/j0 good', 'i2/j0 good', 'i3/j0 bad', 'i4/j0 bad', 'i5/j0 bad', 'i6/j0 bad']);
    const r = await cli('spade', 'select', '--matrix', matrix, '--method', 'cov', '--alpha', '1', '--tau', '0');
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain(`agreement with people's grades of run ${runId} (PASS = good;`);
    expect(r.out).toMatch(/selected set +7 +3 +0 +0 +4/);
  });

  it('labels from a file: the agreement table only when asked (--agreement)', async () => {
    const ex = tmp.config(
      'file-ex.jsonl',
      jsonl(OUTPUTS.slice(0, 5).map(([customer, output], i) => ({ id: `x${i}`, input: { customer }, output, label: i < 3 ? 'good' : 'bad' }))),
    );
    const matrix = join(tmp.dir(), 'file-matrix.json');
    expect((await cli('spade', 'evaluate', '--candidates', cands, '--examples', ex, '--out', matrix)).code).toBe(0);
    const plain = await cli('spade', 'select', '--matrix', matrix, '--alpha', '1', '--tau', '0');
    expect(plain.out).not.toMatch(/agreement with/);
    const asked = await cli('spade', 'select', '--matrix', matrix, '--alpha', '1', '--tau', '0', '--agreement');
    expect(asked.out).toMatch(/agreement with the labels \(PASS = good;/);
    expect(asked.out).toMatch(/✓ names_customer +5 +3 +1 +0 +1 /);
  });

  it('errors name what is wrong (exit 2): no grades, an unknown rule, --rule alone, --run with --matrix, --examples or roots, no candidates, no store', async () => {
    // A second run of the same experiment, with no grades.
    const again = await cli('run', join(tmp.dir(), 'summaries.yaml'), '--store', db, '--no-progress');
    expect(again.code).toBe(0);
    const ungraded = /run (\S+):/.exec(again.err)![1];
    const base = ['spade', 'select', '--store', db, '--candidates', cands];
    const cases: [string[], RegExp][] = [
      [
        [...base, '--run', ungraded],
        new RegExp(`--run: run ${ungraded} has no grades to take as labelled examples; grade some of its outputs first \\(assay grade ${ungraded}`),
      ],
      [[...base, '--run', runId, '--rule', 'polite_words'], new RegExp(`--rule: run ${runId} has no rule "polite_words" \\(its rules: short, polite\\)`)],
      [[...base, '--rule', 'short'], /--rule: expected --run <run> whose grades of this rule are the labels, found no --run/],
      [[...base, '--run', runId, '--matrix', 'm.json'], /expected --matrix or --run, found both/],
      [[...base, '--run', runId, '--examples', 'x.jsonl'], /expected --examples or --run, found both/],
      [[...base, '--run', runId, '--method', 'roots'], /--method roots uses no labelled examples: leave out --run/],
      [['spade', 'select', '--store', db, '--run', runId], /--run: expected --candidates <file>/],
      [[...base, '--run', runId, '--store', join(tmp.dir(), 'absent.db')], /--store: expected an assay store at .*absent\.db, found no file/],
      [['spade', 'evaluate', '--candidates', cands, '--out', join(tmp.dir(), 'never.json')], /expected --examples <file> or --run <run>/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(...args);
      expect(r.code, args.join(' ') + '\n' + r.out + r.err).toBe(2);
      expect(r.err, args.join(' ')).toMatch(message);
    }
    expect(existsSync(join(tmp.dir(), 'never.json'))).toBe(false);
    // One rule's grades with no good output: said so, and coverage alone decides.
    const polite = await cli(...base, '--run', runId, '--rule', 'polite', '--method', 'cov', '--alpha', '1', '--tau', '0');
    expect(polite.code, polite.out + polite.err).toBe(0);
    expect(polite.out).toMatch(/1 output \(0 good = graded PASS, 1 bad = graded FAIL\); polite 0 PASS \/ 1 FAIL/);
    expect(polite.out).toMatch(/no good output among the graded: the false failure rate is undefined until one is graded/);
    expect(polite.out).toMatch(/cov: 1 of 5 selected; FFR –/);
  });

  it('the store is read, never written: the run and its grades are unchanged', async () => {
    await using store = openSqliteStore(db, { readonly: true });
    expect(await store.grades.list(runId)).toHaveLength(GRADES.length);
    expect((await store.runs.get(runId))!.status).toBe('complete');
  });
});

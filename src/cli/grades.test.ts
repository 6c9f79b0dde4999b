import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { writeGradedFixture } from '../grades/testing/fixture.js';
import { startServer } from '../server/start.js';
import { openSqliteStore } from '../store/sqlite.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

const tmp = useConfigDir('assay-cli-grades-');
const cli = (...args: string[]) => captureCli(args);

async function fixtureStore(config: Record<string, unknown> = {}) {
  const path = join(tmp.dir(), `s${Math.random().toString(36).slice(2)}.db`);
  const store = openSqliteStore(path);
  const run = await writeGradedFixture(store, {
    N: 4,
    M: 3,
    cell: (i, j) => ((i + j) % 3 ? Outcome.PASS : Outcome.FAIL),
    config,
    failed: (i, j) => i === 3 && j === 2,
  });
  await store.close();
  return { path, runId: run.id };
}

const line = (i: number, j: number, grade: string, extra = '') =>
  `{"input": ${i}, "sample": ${j}, "rule": "polite", "grade": "${grade}", "grader": "reviewer-1"${extra}}`;

describe('assay grades import / export', () => {
  it('imports JSONL, exports it again as JSONL and CSV, and a second import of the export stores nothing twice', async () => {
    const { path, runId } = await fixtureStore();
    const file = tmp.config('g.jsonl', [line(0, 0, 'fail'), line(1, 2, 'pass', ', "probability": 0.25, "design": "uniform, seed 3"')].join('\n') + '\n');
    const r = await cli('grades', 'import', file, '--run', runId.slice(0, 15), '--store', path);
    expect(r.err).toMatch(new RegExp(`imported 2 grade\\(s\\) into run ${runId}; 1 without a probability count as hand-picked`));
    expect(r.code).toBe(0);

    const out = await cli('grades', 'export', '--run', 'latest', '--store', path);
    expect(out.code).toBe(0);
    const rows = out.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows).toEqual([
      { input: 0, sample: 0, rule: 'polite', grade: 'fail', grader: 'reviewer-1', gradedAt: expect.any(String) },
      { input: 1, sample: 2, rule: 'polite', grade: 'pass', grader: 'reviewer-1', gradedAt: expect.any(String), probability: 0.25, design: 'uniform, seed 3' },
    ]);
    const csv = join(tmp.dir(), 'g.csv');
    expect((await cli('grades', 'export', '--run', runId, '--store', path, '--out', csv)).err).toMatch(/wrote 2 grade\(s\)/);
    expect(readFileSync(csv, 'utf8').split('\n')[0]).toBe('input,sample,rule,grade,grader,gradedAt,probability,design');

    const again = await cli('grades', 'import', csv, '--run', runId, '--store', path);
    expect(again.code).toBe(0);
    expect(again.err).toMatch(/imported 0 grade\(s\) into run \S+ \(2 already stored, skipped\)/);
    const store = openSqliteStore(path, { readonly: true });
    expect((await store.grades.list(runId)).length).toBe(2);
    await store.close();
    expect((await cli('grades', 'export', '--run', runId, '--store', path, '--rule', 'short')).out).toBe('');
    expect((await cli('grades', 'export', '--run', runId, '--store', path, '--rule', 'nope')).err).toMatch(
      /--rule: run \S+ has no rule "nope" \(its rules: short, polite\)/,
    );
  });

  it('a bad line anywhere stores nothing, and the error names the file, the line and the field', async () => {
    const { path, runId } = await fixtureStore();
    const cases: [string, RegExp][] = [
      [
        line(4, 0, 'fail'),
        /g2\.jsonl: line 3: field "input": run \S+: grade of output \(4, 0\): input index i must be a whole number in 0\.\.3; nothing was imported/,
      ],
      [line(0, 0, 'fail').replace('polite', 'kind'), /line 3: field "rule": .*rule "kind" is not one of the run's \("short", "polite"\)/],
      [line(3, 2, 'fail'), /line 3: field "input": .*generation failed \(HTTP 503\), so there is no output to grade/],
      [line(0, 0, 'meh'), /g2\.jsonl: line 3: field "grade": expected "pass" or "fail", found "meh"/],
      [
        line(1, 0, 'fail', ', "gradedAt": "yesterday"'),
        /g2\.jsonl: line 3: field "gradedAt": .*ISO 8601 date and time, found "yesterday"; nothing was imported/,
      ],
    ];
    for (const [bad, message] of cases) {
      const file = tmp.config('g2.jsonl', [line(0, 0, 'fail'), line(0, 1, 'pass'), bad].join('\n'));
      const r = await cli('grades', 'import', file, '--run', runId, '--store', path);
      expect(r.err).toMatch(message);
      expect(r.code).toBe(2);
    }
    const store = openSqliteStore(path, { readonly: true });
    expect(await store.grades.list(runId)).toEqual([]);
    await store.close();
  });

  it('uses --grader for lines without one, and refuses what it cannot use', async () => {
    const { path, runId } = await fixtureStore();
    const csv = tmp.config('g3.csv', 'input,sample,rule,grade\n0,1,short,PASS\n');
    expect((await cli('grades', 'import', csv, '--run', runId, '--store', path, '--grader', 'Grace')).code).toBe(0);
    const store = openSqliteStore(path, { readonly: true });
    expect((await store.grades.list(runId)).map((g) => [g.rule, g.grade, g.grader])).toEqual([['short', 'pass', 'Grace']]);
    await store.close();

    const missing = await cli('grades', 'import', join(tmp.dir(), 'none.jsonl'), '--run', runId, '--store', path);
    expect([missing.code, missing.err]).toEqual([2, expect.stringMatching(/none\.jsonl: expected a readable grades file \(it does not exist\)/)]);
    const txt = await cli('grades', 'import', tmp.config('g.txt', 'x'), '--run', runId, '--store', path);
    expect([txt.code, txt.err]).toEqual([2, expect.stringMatching(/g\.txt: expected a \.jsonl or \.csv file \(or say which with --format jsonl\|csv\)/)]);
    const noRun = await cli('grades', 'import', csv, '--run', 'nope', '--store', path, '--grader', 'x');
    expect([noRun.code, noRun.err]).toEqual([2, expect.stringMatching(/--run: no run with id "nope"/)]);
    const noStore = await cli('grades', 'import', csv, '--run', runId, '--store', join(tmp.dir(), 'missing.db'), '--grader', 'x');
    expect([noStore.code, noStore.err]).toEqual([2, expect.stringMatching(/--store: expected an assay store at .*missing\.db, found no file/)]);
    const fmt = await cli('grades', 'export', '--run', runId, '--store', path, '--format', 'xml');
    expect([fmt.code, fmt.err]).toEqual([2, expect.stringMatching(/--format: expected jsonl or csv/)]);
  });

  it('refuses grades for a run with stopping: sequential, saying why', async () => {
    const { path, runId } = await fixtureStore({ stopping: 'sequential', verdict: 'confident' });
    const file = tmp.config('g4.jsonl', line(0, 0, 'fail'));
    const r = await cli('grades', 'import', file, '--run', runId, '--store', path);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/used stopping: sequential, which takes no grades: .*confidence sequence .*grade a run of the same experiment with stopping: fixed/);
  });
});

describe('grades in the reports of a stored run', () => {
  it('assay show reflects grades given after the run: not checked, then corrected (and the verdict follows)', async () => {
    // polite's judge passes every output (minSuccess 0.8): PASS on the judge's word alone.
    const path = join(tmp.dir(), 'show.db');
    const store = openSqliteStore(path);
    const run = await writeGradedFixture(store, { N: 20, M: 5, cell: () => Outcome.PASS, config: { verdict: 'confident' } });
    await store.close();
    const before = await cli('show', run.id, '--store', path, '--json', '-');
    expect(before.code).toBe(0);
    expect(before.err).toContain("polite: judge's rate · judge not checked against people; lower bound");
    const j0 = JSON.parse(before.out) as { validators: { name: string; figure?: string; corrected?: unknown }[] };
    expect(j0.validators[1]).toMatchObject({ name: 'polite', figure: "judge's rate · judge not checked against people" });
    expect(j0.validators[1].corrected).toBeUndefined();

    // People grade 40 outputs drawn at random: half of them are rude.
    const lines = Array.from({ length: 40 }, (_, n) =>
      line(Math.floor(n / 2), n % 2, n % 2 ? 'fail' : 'pass', ', "probability": 0.4, "design": "uniform, seed 1"'),
    );
    expect((await cli('grades', 'import', tmp.config('half.jsonl', lines.join('\n')), '--run', run.id, '--store', path)).code).toBe(0);
    const after = await cli('show', run.id, '--store', path, '--json', '-', '--markdown', join(tmp.dir(), 'show.md'));
    expect(after.code).toBe(1);
    expect(after.err).toMatch(
      /polite: corrected by 40 grades \(grading look 2 at 98\.75%; the next at 80 grades\) \(judge's rate 100\.0% \[\S+, 100\.0%\]; pass, fail and error counts are the judge's verdicts\); upper bound \S+ \(corrected by 40 grades\) < minSuccess 80\.0%/,
    );
    expect(after.err).toContain('polite (verifier) against people: 40 grade(s): 20 agree, 20 disagree');
    expect(after.err).toContain('(i=0, j=1) judge PASS, people FAIL: judge says polite (0.1)');
    const j1 = JSON.parse(after.out) as { validators: { verdict: string; corrected: { grades: number; rate: number } }[] };
    expect(j1.validators[1].verdict).toBe('fail');
    expect(j1.validators[1].corrected.grades).toBe(40);
    expect(j1.validators[1].corrected.rate).toBeCloseTo(0.5, 6);
    expect(readFileSync(join(tmp.dir(), 'show.md'), 'utf8')).toContain('### polite against people: 40 grade(s): 20 agree, 20 disagree');
  });

  it('a stratified queue graded, then one output graded by hand: show, runs and grade still read the run, saying so', async () => {
    // polite's judge fails outputs with j = 0; a stratified queue's lines carry each verdict's own probability.
    const path = join(tmp.dir(), 'mixed.db');
    const store = openSqliteStore(path);
    const run = await writeGradedFixture(store, { N: 20, M: 5, cell: (_i, j) => (j === 0 ? Outcome.FAIL : Outcome.PASS) });
    await store.close();
    const drawn = [
      ...Array.from({ length: 8 }, (_, n) => line(n, 1 + (n % 4), n % 4 ? 'pass' : 'fail', ', "probability": 0.1, "design": "stratified"')),
      ...Array.from({ length: 6 }, (_, n) => line(n, 0, n % 2 ? 'pass' : 'fail', ', "probability": 0.3, "design": "stratified"')),
    ];
    expect((await cli('grades', 'import', tmp.config('queue.jsonl', drawn.join('\n')), '--run', run.id, '--store', path)).code).toBe(0);
    const byHand = await cli('grades', 'import', tmp.config('hand.jsonl', line(19, 4, 'fail')), '--run', run.id, '--store', path);
    expect(byHand.code, byHand.err).toBe(0);
    const shown = await cli('show', run.id, '--store', path, '--json', '-');
    expect(shown.err).not.toMatch(/internal error/);
    expect([0, 1]).toContain(shown.code);
    const polite = (JSON.parse(shown.out) as { validators: { grading: { grades: number; notRandom: number; caveats: string[] } }[] }).validators[1];
    expect([polite.grading.grades, polite.grading.notRandom]).toEqual([15, 1]);
    expect(polite.grading.caveats[0]).toMatch(/^1 of 15 grades were not drawn at random/);
    const listed = await cli('runs', '--store', path);
    expect(listed.err).not.toMatch(/cannot be read/);
    expect(listed.out).toContain(run.id);
    const queue = await cli('grade', run.id, '--store', path, '--print', '--suggest', '3');
    expect(queue.code, queue.err).toBe(0);
    expect(queue.err).toMatch(/\(15 graded so far\)/);
  });

  it("assay grade and the grading page say the same number of grades needed, from the judge's measured error rates", async () => {
    // 1,000 outputs, half passed by the judge; 60 graded at random, every grade agreeing with the judge.
    const path = join(tmp.dir(), 'plan.db');
    const store = openSqliteStore(path);
    const run = await writeGradedFixture(store, { N: 100, M: 10, cell: (i, j) => ((i + j) % 2 ? Outcome.FAIL : Outcome.PASS) });
    await store.close();
    const j = (n: number) => Math.floor(n / 10);
    const lines = Array.from({ length: 60 }, (_, n) => line(n, j(n), (n + j(n)) % 2 ? 'fail' : 'pass', ', "probability": 0.06, "design": "uniform"'));
    expect((await cli('grades', 'import', tmp.config('plan.jsonl', lines.join('\n')), '--run', run.id, '--store', path)).code).toBe(0);
    const printed = await cli('grade', run.id, '--store', path, '--print', '--suggest', '5', '--design', 'uniform');
    const need = Number(/needs about (\d+) grades of polite, drawn uniform \(60 so far\)/.exec(printed.err)?.[1]);
    expect(need, printed.err).toBeGreaterThan(60);
    expect(need).toBeLessThan(200); // a judge that agreed 60 times of 60 leaves far fewer to grade than the worst case (401)
    const reader = openSqliteStore(path, { readonly: true });
    const server = await startServer({ port: 0, store: reader, log: false });
    try {
      const q = (await (await fetch(`${server.url}/api/runs/${run.id}/grading?count=5&design=uniform`)).json()) as { gradesNeeded: { grades: number | null } };
      expect(q.gradesNeeded.grades).toBe(need);
    } finally {
      await server.close();
      await reader.close();
    }
  });

  it('a sequential run that holds grades (stored through the library) is not resumed: exit 2, saying why', async () => {
    const path = join(tmp.dir(), 'seq.db');
    const cfg = tmp.config(
      'seq.yaml',
      `name: seq
system:
  simulated:
    seed: 3
    outputs:
      - { text: "It is fine.", weight: 1 }
inputs: ["a", "b"]
samples: 30
stopping: sequential
validators:
  - name: no_contractions
    predicate: "o => !o.includes(\\"'\\")"
    minSuccess: 0.5
`,
    );
    const first = await cli('run', cfg, '--store', path, '--no-progress', '--json', '-');
    const runId = (JSON.parse(first.out) as { runId: string }).runId;
    const store = openSqliteStore(path);
    await store.grades.record(runId, { i: 0, j: 0, rule: 'no_contractions', grade: 'pass', grader: 'lib' });
    await store.close();
    const resumed = await cli('run', '--resume', runId, '--store', path, '--no-progress');
    expect(resumed.code).toBe(2);
    expect(resumed.err).toMatch(/--resume \S+: run \S+ used stopping: sequential, which takes no grades, and it has some: .*confidence sequence/);
    // show still reads it: alignment shown, the verdict the sequence's
    const shown = await cli('show', runId, '--store', path);
    expect(shown.out).toMatch(/no_contractions: rule's rate · its 1 grades are not used: a sequential run's verdict rests on its confidence sequence/);
  });
});

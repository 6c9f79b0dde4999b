import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { writeGradedFixture } from '../grades/testing/fixture.js';
import { parseKeys } from '../grades/session.js';
import { openSqliteStore } from '../store/sqlite.js';
import { useConfigDir } from './testing/config-dir.js';

/** The real built CLI (npm run build; `npm test` builds first), fed keys through a pipe as a user's script would. */
const BIN = new URL('../../dist/cli/main.js', import.meta.url).pathname;
const tmp = useConfigDir('assay-cli-grade-');

function assay(args: string[], keys = ''): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
    child.stdin.end(keys);
  });
}

async function fixture(config: Record<string, unknown> = {}) {
  const path = join(tmp.dir(), `g${Math.random().toString(36).slice(2)}.db`);
  const store = openSqliteStore(path);
  // polite's judge passes outputs whose i + j is even and fails the rest
  const run = await writeGradedFixture(store, { N: 12, M: 5, cell: (i, j) => ((i + j) % 2 ? Outcome.FAIL : Outcome.PASS), config });
  await store.close();
  return { path, runId: run.id };
}

async function grades(path: string, runId: string) {
  await using store = openSqliteStore(path, { readonly: true });
  return await store.grades.list(runId);
}

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run npm run build first`);
});

describe('assay grade (keys piped into the built CLI)', () => {
  it('p, f, s, u, arrows and q act as on the page; each grade is stored with its draw; the verdict shows only once graded', async () => {
    const { path, runId } = await fixture();
    const args = ['grade', runId, '--store', path, '--grader', 'ada', '--suggest', '6', '--seed', '7', '--design', 'uniform'];
    // pass #1, fail #2, skip #3, undo (#2's fail, back to #2), pass #2 (on to #3), → to #4, ← ← to #2 (graded: shows it), q
    const r = await assay(args, 'pfsup\x1b[C\x1b[D\x1b[Dq');
    expect(r.code).toBe(0);
    expect(r.err).toMatch(
      // 60 outputs, the judge's error rates not yet measured: even all of them would not make the interval that narrow
      /queue of 6 of the 60 outputs polite decided that nobody graded yet, drawn uniform \(--seed 7 draws it again\); a corrected interval 10 points wide at 95% would need more grades than the outputs polite decided \(0 graded so far\)/,
    );
    expect(r.err).toMatch(/2 grade\(s\) stored by ada; 2 of the queue's 6 graded by ada/);
    const stored = await grades(path, runId);
    expect(stored.map((g) => g.grade)).toEqual(['pass', 'pass']);
    expect(stored.every((g) => g.rule === 'polite' && g.grader === 'ada' && g.probability === 0.1 && /uniform/.test(g.design ?? ''))).toBe(true);
    const screens = r.out.split('\n── ');
    const [first, second] = [screens[1], screens[2]];
    // Before grading: the judge's verdict and reasons are hidden.
    expect(first).toMatch(/^1 of 6 · output \(i=\d+, j=\d+\) · 0 graded · rule polite \(verifier\) · grader ada/);
    expect(first).toContain('rule asks: LLM judge mock: Is the answer polite?');
    expect(first).not.toContain('judged the output FAIL');
    expect(first).toMatch(/input:\n {2}Question \d+: how do I reset my password\?\noutput:\n {2}Answer \d+\.\d+: open Settings, then Security\./);
    expect(first).toContain("judge's verdict: hidden until you grade");
    expect(first.slice(0, first.indexOf('  you:'))).not.toMatch(/judge says/);
    // After: the judge's verdict, agreement and reasons.
    const [, i, j] = /output \(i=(\d+), j=(\d+)\)/.exec(first)!.map(Number);
    const judge = (i + j) % 2 ? 'FAIL' : 'PASS';
    expect(first).toContain(
      `  you: PASS · judge: ${judge} · ${judge === 'PASS' ? '✓ agree' : '✗ DISAGREE'} · judge's reasons: judge says ${judge === 'PASS' ? 'polite' : 'rude'} (${i}.${j})`,
    );
    expect(second).toMatch(/ {2}you: FAIL · judge: (PASS|FAIL)/);
    expect(r.out).toMatch(/Undone: your FAIL of output \(i=\d+, j=\d+\)\./);
    // ← back to a graded output shows its grade beside the verdict
    expect(screens[screens.length - 1]).toMatch(/^2 of 6 .*\n[\s\S]*graded: you: PASS · judge: (PASS|FAIL)/);

    // The same command now draws a new batch from the outputs nobody graded yet.
    const again = await assay(args, 'q');
    expect(again.err).toMatch(/queue of 6 of the 58 outputs polite decided that nobody graded yet/);
    expect(again.err).toMatch(/\(2 graded so far\)/);
    const wide = await assay([...args, '--width', '0.5'], 'q');
    expect(wide.err).toMatch(/a corrected interval 50 points wide at 95% needs about \d+ grades of polite, drawn uniform \(2 so far\)/);
    const gradedCells = stored.map((g) => `${g.i},${g.j}`);
    for (const m of again.out.matchAll(/output \(i=(\d+), j=(\d+)\)/g)) expect(gradedCells).not.toContain(`${m[1]},${m[2]}`);
    expect(again.out).toMatch(/── 1 of 6 · output/);
  });

  it('grades a whole queue from a pipe and ends by itself; EOF quits', async () => {
    const { path, runId } = await fixture();
    const r = await assay(['grade', runId, '--store', path, '--grader', 'bob', '--suggest', '4', '--design', 'stratified', '--rule', 'short'], 'pfpf');
    expect(r.code).toBe(0);
    expect(r.out).toContain('End of the queue: all 4 graded.');
    const stored = await grades(path, runId);
    expect(stored.map((g) => [g.rule, g.grade])).toEqual([
      ['short', 'pass'],
      ['short', 'fail'],
      ['short', 'pass'],
      ['short', 'fail'],
    ]);
    expect(stored.every((g) => /stratified/.test(g.design ?? ''))).toBe(true);
    expect(r.out).toContain("rule's verdict: hidden until you grade");
    const eof = await assay(['grade', runId, '--store', path, '--grader', 'cy', '--suggest', '4'], 'p');
    expect(eof.code).toBe(0);
    expect((await grades(path, runId)).filter((g) => g.grader === 'cy')).toHaveLength(1);
  });

  it('--print writes the queue in the import format, grading nothing', async () => {
    const { path, runId } = await fixture();
    const r = await assay(['grade', runId, '--store', path, '--suggest', '3', '--seed', '11', '--print', '--design', 'uniform']);
    expect(r.code).toBe(0);
    const picks = r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(picks).toHaveLength(3);
    for (const p of picks)
      expect(p).toEqual({ input: expect.any(Number), sample: expect.any(Number), rule: 'polite', probability: 0.05, design: expect.stringMatching(/uniform/) });
    expect(await grades(path, runId)).toEqual([]);
    const same = await assay(['grade', runId, '--store', path, '--suggest', '3', '--seed', '11', '--print', '--design', 'uniform']);
    expect(same.out).toBe(r.out);
    // The default design is stratified by the judge's verdict: each verdict's picks carry its own probability.
    const strat = await assay(['grade', runId, '--store', path, '--suggest', '10', '--print']);
    expect(strat.err).toMatch(/drawn stratified/);
    const lines = strat.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { input: number; sample: number; probability: number });
    const probs = (pass: boolean) => new Set(lines.filter((p) => (p.input + p.sample) % 2 === (pass ? 0 : 1)).map((p) => p.probability));
    expect([probs(true).size, probs(false).size]).toEqual([1, 1]);
    expect([...probs(true)][0] * 30 + [...probs(false)][0] * 30).toBeCloseTo(10, 9); // 30 PASS and 30 FAIL verdicts, 10 picks
  });

  it('refuses what it cannot grade: exit 2 with the reason', async () => {
    const { path, runId } = await fixture();
    const bad = async (args: string[], message: RegExp) => {
      const r = await assay(['grade', ...args, '--grader', 'x'], 'q');
      expect(r.err).toMatch(message);
      expect(r.code).toBe(2);
    };
    await bad([runId, '--store', path, '--rule', 'kind'], /--rule: run \S+ has no rule "kind" \(its rules: short, polite\)/);
    await bad([runId, '--store', path, '--design', 'random'], /--design: expected uniform or stratified, found "random"/);
    await bad([runId, '--store', path, '--suggest', '0'], /--suggest: expected a whole number from 1 to 999999, found "0"/);
    await bad(
      [runId, '--store', path, '--width', '2'],
      /--width: expected an interval width strictly between 0 and 1 \(or a percentage such as 10%\), found "2"/,
    );
    await bad(['nope', '--store', path], /run: no run with id "nope"/);
    const seq = await fixture({ stopping: 'sequential', verdict: 'confident' });
    await bad([seq.runId, '--store', seq.path], /used stopping: sequential, which takes no grades/);
  });
});

describe('parseKeys', () => {
  it('reads letters, arrow escape sequences and control keys; ignores the rest', () => {
    expect(parseKeys('pF s\nU\x1b[C\x1b[D\x1b[A\x1b[B\x1bOCjkxq\x03\x04')).toEqual([
      'pass',
      'fail',
      'skip',
      'undo',
      'next',
      'prev',
      'prev',
      'next',
      'next',
      'next',
      'prev',
      'quit',
      'quit',
      'quit',
    ]);
  });
});

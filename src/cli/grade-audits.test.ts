import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from './main.js';

/**
 * People grade grounding audits in the terminal (issue 27, item 5): a real batch from `assay analyze --answers …
 * --json`, keys piped into the CLI as a user's script would, grades kept in a JSON Lines file, and the detector's
 * alignment with them and the corrected unsupported rate printed and in JSON.
 */
const ROOT = resolve(import.meta.dirname, '../..');
let root = '';
let batch = '';

function assay(args: string[], keys = ''): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => done({ code, out, err }));
    child.stdin.end(keys);
  });
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'assay-grade-audits-'));
  await mkdir(join(root, 'docs'));
  await writeFile(
    join(root, 'docs', 'returns.md'),
    'Opened routers can be returned within 14 days of purchase with the receipt. Unopened routers can be returned within 30 days. After a firmware update the router reboots in two minutes.\n',
  );
  const printed: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((s) => (printed.push(String(s)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    expect(await main(['kb', 'ingest', join(root, 'docs'), '--kb', join(root, 'kb')])).toBe(0);
    await writeFile(
      join(root, 'answers.jsonl'),
      [
        {
          id: 'returns',
          query: 'Can I return it?',
          answer: 'Opened routers can be returned within 14 days of purchase with the receipt. Unopened routers can be returned within 60 days.',
        },
        { id: 'reboot', query: 'How long is a reboot?', answer: 'After a firmware update the router reboots in two minutes. The router is waterproof.' },
      ]
        .map((x) => JSON.stringify(x))
        .join('\n') + '\n',
    );
    batch = join(root, 'batch.json');
    await main(['analyze', '--kb', join(root, 'kb'), '--answers', join(root, 'answers.jsonl'), '--json', batch]);
  } finally {
    spy.mockRestore();
    err.mockRestore();
  }
}, 60_000);
afterAll(() => rm(root, { recursive: true, force: true }));

describe('assay grade --audits', () => {
  it('grades claims in a seeded order (p, f, s, q), keeps each grade at once, and reports the detector against them', async () => {
    const grades = join(root, 'grades.jsonl');
    // grade the first two claims shown, skip the third, quit
    const r = await assay(['grade', '--audits', batch, '--grades', grades, '--grader', 'ada', '--seed', '3'], 'pfsq');
    expect(r.err).toMatch(/2 grade\(s\) by ada added to/);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/claim 1 of 4 to grade — answer (returns|reboot), claim [12]\n {2}\S/);
    expect(r.out).toMatch(/evidence: /);
    // the detector's status shows only once graded
    expect(r.out.split('claim 1 of 4')[1].split('graded ')[0]).not.toMatch(/STRONG|WEAK|UNSUPPORTED|CONTRADICTED/);
    expect(r.out).toMatch(/graded supported; the detector said (STRONG|WEAK|UNSUPPORTED|CONTRADICTED)/);
    const lines = (await readFile(grades, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ supported: true, grader: 'ada' });
    expect(lines[1]).toMatchObject({ supported: false, grader: 'ada' });
    expect(r.out).toMatch(/2 of 4 audited claims graded by people/);
    expect(r.out).toMatch(/TPR .* · TNR .* · κ/);
    expect(r.out).toMatch(/unsupported claims: detector 50\.0%; corrected by the grades \d+\.\d% \[/);

    // the same seed shows the rest, the graded claims left out; --summary --json gives the figures
    const again = await assay(['grade', '--audits', batch, '--grades', grades, '--seed', '3'], 'q');
    expect(again.out).toMatch(/claim 1 of 2 to grade/);
    const s = await assay(['grade', '--audits', batch, '--grades', grades, '--summary', '--json']);
    expect(s.code).toBe(0);
    const j = JSON.parse(s.out);
    expect(j).toMatchObject({ schema: 'assay-grounding-grading/1', claims: 4, graded: 2, unsupported_rate: 0.5, level: 0.95 });
    expect(j.alignment.tp + j.alignment.fp + j.alignment.fn + j.alignment.tn).toBe(2);
    expect(j.corrected_unsupported_rate).toMatchObject({ grades: 2, method: 'ppi++-stratified-beta' });
  }, 60_000);

  it('names what it cannot use (exit 2)', async () => {
    await writeFile(join(root, 'bad.jsonl'), '{"answer": "returns", "claim": 9, "supported": true}\n');
    await writeFile(join(root, 'run.json'), '{"schema": "assay-run/1"}');
    for (const [args, message] of [
      [['grade', '--audits', batch], /--audits: needs --grades <file>/],
      [['grade', '--audits', batch, '--grades', join(root, 'bad.jsonl'), '--summary'], /answer "returns" has no claim 9 in the audits/],
      [['grade', '--audits', join(root, 'run.json'), '--grades', join(root, 'g2.jsonl')], /expected the JSON of assay analyze --answers … --json/],
      [['grade', '--audits', batch, '--grades', join(root, 'g2.jsonl'), '--rule', 'x'], /--audits: takes no --rule/],
      [['grade', '--summary'], /--summary: goes with --audits/],
      [['grade'], /expected a run id \(or "latest"\), or --audits <file>/],
    ] as const) {
      const r = await assay([...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toMatch(message);
    }
  }, 120_000);
});

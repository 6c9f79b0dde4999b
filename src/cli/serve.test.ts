import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { createLexicalEmbedder } from '../ground/embedders/lexical.js';
import { ingest } from '../ground/kb/ingest.js';
import { writeFixtureRun } from '../server/testing/fixtures.js';
import { openSqliteStore } from '../store/sqlite.js';
import { main } from './main.js';
import { START_MS } from '../testing/time.js';
import { cliCommand } from './testing/process.js';

let dir: string;
let kbDir: string;
let db: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'assay-serve-'));
  const docs = join(dir, 'docs');
  mkdirSync(docs);
  writeFileSync(join(docs, 'tower.md'), '# The tower\n\nThe Eiffel Tower is in Paris. It was completed in 1889. It is 330 metres tall.\n');
  kbDir = join(dir, 'kb');
  await ingest(kbDir, [docs], { embedder: createLexicalEmbedder(), cwd: dir });
  db = join(dir, 'assay.db');
  const store = openSqliteStore(db);
  await writeFixtureRun(store, { name: 'served', inputs: ['q1', 'q2'], samples: 3, validators: [{ name: 'v' }], cell: () => Outcome.PASS });
  await store.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  process.exitCode = undefined;
  vi.restoreAllMocks();
});

describe('assay serve --judge', () => {
  it("checks each claim of POST /analyze with the LLM judge on the server's main thread, the analysis in a worker, cost in the answer", async () => {
    const { startMock } = await import('../mock/index.js');
    const { mockResponder } = await import('../mock/rules.js');
    const judge = await startMock('openai', {
      chat: mockResponder({
        rules: [
          { regex: 'output-[0-9a-f]+>\\nThe Eiffel Tower is made of wood', judge: 'fail', reasons: ['CONTRADICTED: the evidence says iron'] },
          { regex: 'output-[0-9a-f]+>\\nIt is 330 metres tall', judge: 'pass' },
        ],
      }),
    });
    writeFileSync(join(dir, 'judge.yaml'), `openai:\n  model: gpt-4o-mini\n  baseURL: "${judge.baseURL}"\n`);
    const child = spawn(process.execPath, [...cliCommand(), 'serve', '--kb', kbDir, '--judge', join(dir, 'judge.yaml'), '--port', '0', '--workers', '1'], {
      cwd: process.cwd(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 20_000);
        child.stderr!.on('data', (d) => {
          stderr += d;
          const m = /serving on (http:\/\/\S+)/.exec(stderr);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
      });
      const res = await fetch(`${url}/analyze`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'Where is the Eiffel Tower?', answer: 'The Eiffel Tower is made of wood. It is 330 metres tall.' }),
      });
      expect(res.status).toBe(200);
      const report = await res.json();
      expect(report.claims_analysis.map((c: { status: string; check: { verdict: string } }) => [c.status, c.check.verdict])).toEqual([
        ['CONTRADICTED', 'contradicted'],
        ['STRONG', 'entailed'],
      ]);
      expect(report.checker).toMatchObject({ kind: 'llm', checked: 2, errors: 0, cost_usd: expect.any(Number) });
      expect(report.checker.cost_usd).toBeGreaterThan(0);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      await judge.close();
    }
  });

  it('refuses --judge with --nli-model, and a judge file naming no provider (exit 2)', async () => {
    writeFileSync(join(dir, 'nojudge.yaml'), 'gpt: { model: x }\n');
    const err: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
    expect(await main(['serve', '--kb', kbDir, '--judge', join(dir, 'nojudge.yaml'), '--nli-model', dir, '--port', '0'])).toBe(2);
    expect(await main(['serve', '--kb', kbDir, '--judge', join(dir, 'nojudge.yaml'), '--port', '0'])).toBe(2);
    expect(err.join('')).toMatch(/--judge and --nli-model: expected one claim checker[\s\S]*nojudge\.yaml: --judge: expected exactly one of openai/);
  });
});

describe('assay serve', () => {
  it('serves /analyze over a real KB and the dashboard over the store, and stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, [...cliCommand(), 'serve', '--kb', kbDir, '--store', db, '--port', '0'], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), START_MS);
      child.stderr.on('data', (d) => {
        stderr += d;
        const m = /serving on (http:\/\/\S+)/.exec(stderr);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    });
    try {
      const res = await fetch(`${url}/analyze`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'Where is the Eiffel Tower?', answer: 'The Eiffel Tower is in Paris. It was completed in 1889.' }),
      });
      expect(res.status).toBe(200);
      const report = await res.json();
      expect(report.claims_analysis).toHaveLength(2);
      expect(report.claims_analysis[0].evidence.source).toContain('tower.md');
      const runs = await (await fetch(`${url}/api/runs`)).json();
      expect(runs.runs.map((r: { name: string }) => r.name)).toEqual(['served']);
      expect((await fetch(`${url}/analyze`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(400);
    } finally {
      child.kill('SIGTERM');
    }
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.path === '/analyze').map((l) => l.status)).toEqual([200, 400]);
    expect(lines.some((l) => l.event === 'stopped')).toBe(true);
    expect(stdout).not.toContain('Eiffel');
  });

  it('exits 2 when asked to listen beyond loopback without a token, or with an unset token variable', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await main(['serve', '--store', db, '--host', '0.0.0.0', '--port', '0'])).toBe(2);
    delete process.env.ASSAY_TEST_UNSET_TOKEN;
    expect(await main(['serve', '--store', db, '--host', '0.0.0.0', '--port', '0', '--token-env', 'ASSAY_TEST_UNSET_TOKEN'])).toBe(2);
    expect(await main(['serve', '--store', join(dir, 'nope.db'), '--port', '0'])).toBe(2);
    expect(await main(['serve', '--store', db, '--port', 'eighty'])).toBe(2);
    expect(await main(['serve', '--kb', kbDir, '--port', '0', '--llm-model', 'm', '--temperature', '0.5'])).toBe(2);
    expect(await main(['serve', '--kb', kbDir, '--port', '0', '--llm', join(dir, 'no-llm.yaml')])).toBe(2);
    // Both ways of naming the LLM at once, with a file that exists and is valid: refused for the conflict itself.
    const llmFile = join(dir, 'llm.yaml');
    writeFileSync(llmFile, 'openai: { model: m, baseURL: "http://127.0.0.1:9/v1" }\n');
    const said = vi.mocked(process.stderr.write);
    said.mockClear();
    expect(await main(['serve', '--kb', kbDir, '--port', '0', '--llm', llmFile, '--llm-model', 'm'])).toBe(2);
    expect(said.mock.calls.map((c) => String(c[0])).join('')).toMatch(/--llm .* and --llm-model: expected one of them/);
    expect(await main(['serve', '--kb', join(dir, 'docs', 'tower.md'), '--port', '0'])).toBe(2);
    said.mockClear();
    expect(await main(['serve', '--kb', kbDir, '--port', '0', '--workers', '0'])).toBe(2);
    expect(await main(['serve', '--kb', kbDir, '--port', '0', '--queue', '-1'])).toBe(2);
    expect(await main(['serve', '--kb', kbDir, '--port', '0', '--worker-memory', '8'])).toBe(2);
    expect(said.mock.calls.map((c) => String(c[0]))).toEqual([
      'assay: --workers: expected a whole number from 1 to 256, found "0"\n',
      'assay: --queue: expected a whole number ≥ 0, found "-1"\n',
      'assay: --worker-memory: expected a whole number ≥ 16, found "8"\n',
    ]);
  });

  it('--grading opens the store for writing: the grading page stores grades (and a missing store is exit 2)', async () => {
    const child = spawn(process.execPath, [...cliCommand(), 'serve', '--store', db, '--grading', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout.resume();
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), START_MS);
      child.stderr.on('data', (d) => {
        stderr += d;
        const m = /serving on (http:\/\/\S+) \(dashboard, grading\)/.exec(stderr);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    });
    try {
      const runs = await (await fetch(`${url}/api/runs`)).json();
      const id = runs.runs[0].id as string;
      const res = await fetch(`${url}/api/runs/${id}/grades`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ i: 1, j: 2, rule: 'v', grade: 'fail', grader: 'ada' }),
      });
      expect(res.status).toBe(201);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)))).toBe(0);
    const store = openSqliteStore(db, { readonly: true });
    const [run] = await store.runs.list();
    expect((await store.grades.list(run.id)).map((g) => [g.i, g.j, g.grade, g.grader])).toEqual([[1, 2, 'fail', 'ada']]);
    await store.close();
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await main(['serve', '--store', join(dir, 'none.db'), '--grading', '--port', '0'])).toBe(2);
  });

  it('exits 2 with one line naming the port when the port is in use', async () => {
    const blocker = createNetServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    const err: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
    try {
      expect(await main(['serve', '--store', db, '--port', String(port)])).toBe(2);
    } finally {
      blocker.close();
    }
    expect(err).toEqual([
      `assay: port ${port} is already in use on 127.0.0.1: stop the other process, or choose another port with --port (0 picks a free one)\n`,
    ]);
    expect(await main(['serve', '--store', db, '--port', '0', '--headers-timeout', '70000'])).toBe(2);
  });
});

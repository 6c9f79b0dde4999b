import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { openSqliteStore } from '../store/sqlite.js';
import { startMockOpenAI, type MockOpenAI } from '../mock/openai.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';
import { SLOW_MS, START_MS } from '../testing/time.js';
import { cliCommand } from './testing/process.js';

// Interruptions as a user meets them, in a real child process: kill -9 then --resume, and Ctrl-C.

const tmp = useConfigDir('assay-cli-resume-');
const config = tmp.config;

const cli = (...args: string[]) => captureCli(args);

describe('assay run: kill -9 in the middle, then --resume', () => {
  let mock: MockOpenAI;
  afterEach(async () => mock?.close());

  it('resumes with nothing lost and nothing duplicated', async () => {
    // After 30 answers the first run's calls stall (SLOW_MS): however late the kill comes on a loaded machine,
    // it comes mid-run. The resume (model "second") is answered at once.
    mock = await startMockOpenAI({
      chat: (view, n) => ({ content: 'fine', delayMs: view.model === 'first' && n > 30 ? SLOW_MS : 40 }),
    });
    const store = join(tmp.dir(), 'killed.db');
    const body = (model: string) => `name: killed
system: { openai: { baseURL: "${mock.baseURL}", model: ${model} } }
inputs: ["a", "b", "c", "d", "e"]
samples: 40
concurrency: 4
validators:
  - { name: nonempty, predicate: "o => o.length > 0", minSuccess: 0.9 }
  - { name: no_x, check: { type: not-contains, value: x }, minSuccess: 0.9 }
`;
    const file = config('killed.yaml', body('first'));
    const child = spawn(process.execPath, [...cliCommand(), 'run', file, '--store', store], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));

    // Wait until some samples are stored, then kill -9.
    let runId: string | undefined;
    const deadline = Date.now() + START_MS;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`child never stored samples; stderr: ${stderr}`);
      runId ??= /run (\S+):/.exec(stderr)?.[1];
      if (runId) {
        const s = openSqliteStore(store, { readonly: true });
        const n = (await s.samples.list(runId)).length;
        await s.close();
        if (n >= 15) break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const s1 = openSqliteStore(store, { readonly: true });
    const kept = await s1.samples.list(runId!);
    expect((await s1.runs.get(runId!))?.status).toBe('running'); // it never got to say otherwise
    await s1.close();
    expect(kept.length).toBeGreaterThanOrEqual(15);
    expect(kept.length).toBeLessThan(200);

    // Resume under another model name, to count exactly the calls the resume makes.
    writeFileSync(file, body('second'));
    const r = await cli('run', '--resume', runId!, '--store', store);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`resuming: ${kept.length} of 200 samples already stored`);
    expect(mock.requests.filter((q) => (q.body as { model: string }).model === 'second')).toHaveLength(200 - kept.length);

    const s2 = openSqliteStore(store, { readonly: true });
    const all = await s2.samples.list(runId!);
    const tensor = await s2.samples.tensor(runId!);
    expect((await s2.runs.get(runId!))?.status).toBe('complete');
    await s2.close();
    expect(all).toHaveLength(200);
    expect(new Set(all.map((x) => `${x.i},${x.j}`)).size).toBe(200);
    expect(Array.from(tensor.cells).every((c) => c === Outcome.PASS)).toBe(true);
    // The samples stored before the kill are untouched.
    for (const k of kept) expect(all.find((x) => x.i === k.i && x.j === k.j)?.finishedAt).toBe(k.finishedAt);
  });

  it('SIGINT stops cleanly: exit 130, run marked interrupted, finished samples kept', async () => {
    // After 20 answers the calls stall, so the SIGINT comes mid-run however slow the machine.
    mock = await startMockOpenAI({ chat: (_view, n) => ({ content: 'fine', delayMs: n > 20 ? SLOW_MS : 40 }) });
    const store = join(tmp.dir(), 'sigint.db');
    const file = config(
      'sigint.yaml',
      `name: sigint
system: { openai: { baseURL: "${mock.baseURL}", model: m } }
inputs: ["a", "b", "c", "d"]
samples: 40
concurrency: 4
validators:
  - { name: nonempty, predicate: "o => o.length > 0", minSuccess: 0.9 }
`,
    );
    const child = spawn(process.execPath, [...cliCommand(), 'run', file, '--store', store], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + START_MS;
    // Past the 20 answered calls: some samples are finished, the rest stalled.
    while (mock.requests.length <= 20) {
      if (Date.now() > deadline) throw new Error(`no progress; stderr: ${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stdout).toContain('INTERRUPTED');
    const runId = /run (\S+):/.exec(stderr)![1];
    // The hint finds the run: it repeats the --store the run was given.
    expect(stdout).toContain(`resume with: assay run --resume ${runId} --store ${store}`);
    const s = openSqliteStore(store, { readonly: true });
    expect((await s.runs.get(runId))?.status).toBe('interrupted');
    const kept = await s.samples.list(runId);
    await s.close();
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(160);
    expect(kept.every((x) => x.generationError === undefined && x.outcomes[0] === Outcome.PASS)).toBe(true);
  });
});

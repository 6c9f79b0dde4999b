import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { DuplicateSampleError } from './errors.js';
import { openStore } from './open.js';
import { F, grade, guardCall, newRun, P, sample } from './testing/fixtures.js';

/**
 * What survives, for the persistent adapters: reopening, a second connection writing at the same time,
 * read-only opening, and a writer killed with SIGKILL. `fresh` gives where a fresh, empty store can be
 * made (a SQLite path, a postgres:// URL), opened with openStore.
 */
export function persistenceContract(fresh: () => Promise<string>): void {
  describe('persistence', () => {
    it('keeps runs and samples across close and reopen, and opens read-only', async () => {
      const at = await fresh();
      const s1 = await openStore(at);
      const run = await s1.runs.create(newRun());
      await s1.samples.record(run.id, sample(1, 1, [P, F]));
      await s1.guard.recordCall(guardCall('c1'));
      const g = await s1.grades.record(run.id, grade(1, 1, { probability: 0.5, design: 'uniform, seed 1' }));
      await s1.close();
      await using ro = await openStore(at, { readonly: true });
      expect((await ro.runs.get(run.id))!.name).toBe('exp');
      expect(await ro.grades.list(run.id)).toEqual([g]);
      expect((await ro.samples.tensor(run.id)).get(1, 1, 1)).toBe(F);
      expect((await ro.guard.getCall('c1'))!.output).toBe('Call us');
      await expect(ro.runs.create(newRun())).rejects.toThrow(/read-?only/i);
    });

    it('two connections writing overlapping samples at once: each (i, j) stored once, every loser told so', async () => {
      const at = await fresh();
      await using a = await openStore(at);
      await using b = await openStore(at);
      const run = await a.runs.create(newRun({ inputs: Array.from({ length: 10 }, (_, i) => `in ${i}`), samples: 10 }));
      // a writes every sample, b every second one, interleaved in flight.
      const writes = [...Array(100).keys()].flatMap((x) => {
        const [i, j] = [Math.floor(x / 10), x % 10];
        const w = [a.samples.record(run.id, sample(i, j, [P, P], { output: 'a' }))];
        if (x % 2 === 0) w.push(b.samples.record(run.id, sample(i, j, [F, F], { output: 'b' })));
        return w;
      });
      const settled = await Promise.allSettled(writes);
      expect(settled.filter((w) => w.status === 'fulfilled')).toHaveLength(100);
      for (const w of settled) if (w.status === 'rejected') expect(w.reason).toBeInstanceOf(DuplicateSampleError);
      const stored = await b.samples.list(run.id);
      expect(stored).toHaveLength(100);
      expect(new Set(stored.map((s) => `${s.i},${s.j}`)).size).toBe(100);
      // The tensor agrees with the samples that won.
      const t = await a.samples.tensor(run.id);
      for (const s of stored) expect(t.get(s.i, s.j, 0)).toBe(s.output === 'a' ? P : F);
    });

    it('two processes opening a new store at once both find it ready (migrations run once)', async () => {
      const at = await fresh();
      const opened = await Promise.all([openStore(at), openStore(at), openStore(at)]);
      const runs = await Promise.all(opened.map((s) => s.runs.create(newRun())));
      expect(new Set(runs.map((r) => r.id)).size).toBe(3);
      expect(await opened[0].runs.count()).toBe(3);
      for (const s of opened) await s.close();
    });

    killedWriterTests(fresh);
    killedGraderTest(fresh);
  });
}

const scratch = mkdtempSync(join(tmpdir(), 'assay-store-contract-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let scripts = 0;

/**
 * Run `body` in a child process with `s`, the store at `at`, open; collect the lines it prints (one per
 * acknowledged write) and kill it with SIGKILL once it has printed `killAfter` of them.
 */
async function killedMidway(at: string, body: string, killAfter: number): Promise<string[]> {
  const script = join(scratch, `child-${scripts++}.mts`);
  writeFileSync(
    script,
    `import { openStore } from ${JSON.stringify(new URL('./open.ts', import.meta.url).pathname)};
const s = await openStore(${JSON.stringify(at)});
${body}
`,
  );
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const acked: string[] = [];
  let buf = '';
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop()!;
      acked.push(...lines);
      if (acked.length >= killAfter && !child.killed) child.kill('SIGKILL');
    });
    child.on('exit', () => resolve());
  });
  return acked;
}

// A child stores grades one by one (as a person grading does), printing each id once grades.record has resolved.
function killedGraderTest(fresh: () => Promise<string>) {
  it('loses no acknowledged grade when the process storing them is killed with SIGKILL', async () => {
    const at = await fresh();
    const setup = await openStore(at);
    const run = await setup.runs.create(newRun({ inputs: Array.from({ length: 20 }, (_, i) => `in ${i}`), samples: 5 }));
    for (let i = 0; i < 20; i++) for (let j = 0; j < 5; j++) await setup.samples.record(run.id, sample(i, j, [P, F]));
    await setup.close();
    const acked = (
      await killedMidway(
        at,
        `for (let n = 0; n < 100000; n++) {
  const g = await s.grades.record(${JSON.stringify(run.id)}, { i: n % 20, j: Math.floor(n / 20) % 5, rule: 'v1', grade: n % 3 ? 'pass' : 'fail', grader: 'g' + (n % 4) });
  process.stdout.write(g.id + '\\n');
}`,
        200,
      )
    ).map(Number);
    expect(acked.length).toBeGreaterThanOrEqual(200);
    expect(acked.length).toBeLessThan(100000);
    await using after = await openStore(at);
    const ids = new Set((await after.grades.list(run.id)).map((g) => g.id));
    for (const id of acked) expect(ids.has(id)).toBe(true);
    await after.grades.record(run.id, grade(0, 0)); // still writable after the crash
  });
}

// A child writes 50 × 40 samples, printing each (i, j) once samples.record has resolved; we kill -9 it
// mid-stream. One writer awaits each sample in turn; the other keeps 32 in flight, as the runner does,
// so samples share group commits.
const writers = {
  'one at a time': `for (let i = 0; i < 50; i++) for (let j = 0; j < 40; j++) await write(i, j);`,
  '32 in flight': `let next = 0;
await Promise.all(Array.from({ length: 32 }, async () => {
  while (next < 2000) {
    const x = next++;
    await new Promise((r) => setTimeout(r, Math.random() * 2));
    await write(Math.floor(x / 40), x % 40);
  }
}));`,
};

function killedWriterTests(fresh: () => Promise<string>) {
  for (const [shape, loop] of Object.entries(writers)) {
    it(`loses no acknowledged sample when a process writing ${shape} is killed with SIGKILL`, async () => {
      const at = await fresh();
      const setup = await openStore(at);
      const run = await setup.runs.create(newRun({ inputs: Array.from({ length: 50 }, (_, i) => `in ${i}`), samples: 40 }));
      await setup.close();
      const acked = await killedMidway(
        at,
        `async function write(i: number, j: number) {
  await s.samples.record(${JSON.stringify(run.id)}, { i, j, outcomes: [1, 2], output: 'x'.repeat(200), latencyMs: 1, attempts: 1 });
  process.stdout.write(i + ',' + j + '\\n');
}
${loop}`,
        300,
      );
      expect(acked.length).toBeGreaterThanOrEqual(300);
      expect(acked.length).toBeLessThan(2000); // it really was killed mid-run

      await using after = await openStore(at);
      const stored = await after.samples.list(run.id);
      const keys = new Set(stored.map((s) => `${s.i},${s.j}`));
      for (const a of acked) expect(keys.has(a)).toBe(true); // every acknowledged write survived
      expect(keys.size).toBe(stored.length); // no duplicates
      const t = await after.samples.tensor(run.id);
      expect(Array.from(t.cells).filter((c) => c !== Outcome.PENDING).length).toBe(stored.length * 2);
      // the store is still writable and consistent after the crash
      const next = [...Array(50 * 40).keys()].map((x) => [Math.floor(x / 40), x % 40]).find(([i, j]) => !keys.has(`${i},${j}`))!;
      await after.samples.record(run.id, sample(next[0], next[1], [Outcome.PASS, Outcome.PASS]));
    });
  }
}

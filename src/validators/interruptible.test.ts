import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { START_MS } from '../testing/time.js';
import { cliCommand } from '../cli/testing/process.js';

// Ctrl-C during a run whose checks hold the main thread, as a user meets it: `assay run` in a child process.

const dir = mkdtempSync(join(tmpdir(), 'assay-interrupt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `assay run <config>`, sends SIGINT once the run is `settleMs` under way, and reports how it ended. */
async function interruptRun(config: string, settleMs: number): Promise<{ code: number | null; stdout: string; stderr: string; afterSignalMs: number }> {
  const child = spawn(process.execPath, [...cliCommand(), 'run', config, '--store', join(dir, 'runs.db'), '--no-progress'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + START_MS;
  while (!/assay: run \S+:/.test(stderr)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the run did not start; stderr: ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, settleMs));
  const t0 = performance.now();
  child.kill('SIGINT');
  const code = await exited;
  return { code, stdout, stderr, afterSignalMs: performance.now() - t0 };
}

describe('Ctrl-C stops a run whatever its checks do', () => {
  it('while a predicate of assay.config.ts loops forever on the main thread', async () => {
    const config = join(dir, 'loop.config.ts');
    writeFileSync(
      config,
      `export default {
  name: 'loops',
  system: { simulated: { outputs: [{ text: 'fine' }] } },
  inputs: ['a', 'b'],
  samples: 3,
  validators: [{ name: 'never_returns', minSuccess: 0.9, predicate: (o: string) => { while (o.length > 0) {} return true; } }],
};
`,
    );
    const r = await interruptRun(config, 500);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stdout).toContain('INTERRUPTED');
    expect(r.stdout).toMatch(/resume with: assay run --resume/);
  });

  it('while a built-in regex check meets an output that makes backtracking explode', async () => {
    const config = join(dir, 'redos.yaml');
    writeFileSync(
      config,
      `name: redos
system: { simulated: { latencyMs: 20, outputs: [{ text: "${'a'.repeat(30)}!" }] } }
inputs: ["a", "b", "c", "d"]
samples: 200
concurrency: 2
validators:
  - { name: all_a, check: { type: regex, pattern: "^(a+)+$" }, minSuccess: 0.9 }
`,
    );
    const r = await interruptRun(config, 300);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stdout).toContain('INTERRUPTED');
  });
});

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sparePort } from '../testing/throwaway.js';
import { ROOT } from '../vitest/testing/project.js';
import { cliCommand } from './testing/process.js';

// `assay mock` started from a script stops with it (issue 26, item 7): `npx assay mock … &` makes the mock a child
// of npm, and `kill %1` ends npm, not the mock, which then answered the script's next run with its old rules. The
// mock now exits when the process that started it does. Tested with a stand-in for npx that, like npm exec, runs
// the CLI as its child and passes no signal on, and with README's snippet run as a script.

const dir = mkdtempSync(join(tmpdir(), 'assay-mock-life-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const NPX = join(dir, 'npx-like.mjs');
writeFileSync(
  NPX,
  `import { spawn } from 'node:child_process';
const child = spawn(process.execPath, ${JSON.stringify(cliCommand())}.concat(process.argv.slice(2)), { stdio: 'inherit' });
console.log('child pid ' + child.pid);
child.on('exit', (code) => process.exit(code ?? 1));
`,
);

/** Whether something answers on the port, polled until it stops answering or `limitMs` passes (generous: a hang only). */
async function stillListening(port: number, limitMs = 15_000): Promise<boolean> {
  const end = Date.now() + limitMs;
  while (Date.now() < end) {
    try {
      await fetch(`http://127.0.0.1:${port}/v1/models`, { signal: AbortSignal.timeout(1000) });
    } catch {
      return false;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return true;
}

const killQuietly = (pid: number | undefined) => {
  try {
    if (pid) process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
};

describe('assay mock started through a process that does not pass signals on (as npx)', () => {
  it('exits when that process is killed', async () => {
    const port = await sparePort();
    const npx = spawn(process.execPath, [NPX, 'mock', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    npx.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const end = Date.now() + 60_000;
    while (!out.includes('mock server at') && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    const child = Number(/child pid (\d+)/.exec(out)?.[1]);
    try {
      expect(out).toContain(`mock server at http://127.0.0.1:${port}`);
      npx.kill('SIGKILL');
      expect(await stillListening(port)).toBe(false);
    } finally {
      killQuietly(child);
    }
  }, 90_000);
});

describe("README's mock snippet run as a script", () => {
  it('leaves no mock running once the script ends', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = /```sh\n(npx assay mock[\s\S]*?)```/.exec(readme)?.[1];
    expect(block, 'README: a ```sh block starting with npx assay mock').toBeDefined();
    const port = await sparePort();
    const script = block!.replaceAll('npx assay', `node ${NPX}`).replaceAll('8080', String(port));
    writeFileSync(join(dir, 'snippet.sh'), script);
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const c = spawn('bash', ['snippet.sh'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      c.stdout.on('data', (d: Buffer) => (out += d.toString()));
      c.stderr.on('data', (d: Buffer) => (out += d.toString()));
      c.on('close', (code) => resolve({ code, out }));
    });
    const child = Number(/child pid (\d+)/.exec(r.out)?.[1]);
    try {
      expect(r.out).toContain('mock server at');
      expect(r.out).toMatch(/short\s+\d+\.\d%/);
      expect(await stillListening(port)).toBe(false);
    } finally {
      killQuietly(child);
    }
  }, 120_000);
});

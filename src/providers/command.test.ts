import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CommandSystem } from './command.js';
import { systemContract } from './contract.case.js';
import { ProviderError } from './types.js';
import { PROMPTLY_MS, SLOW_MS } from '../testing/time.js';

/** A small program written by the test: echoes stdin after DELAY_MS, or fails when FAIL is set. */
const dir = mkdtempSync(join(tmpdir(), 'assay-command-'));
const script = join(dir, 'echo.mjs');
writeFileSync(
  script,
  `let data = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => (data += c));
process.stdin.on('end', () => {
  setTimeout(() => {
    if (process.env.FAIL) {
      process.stderr.write('something went wrong: ' + process.env.FAIL + '\\n');
      process.exit(3);
    }
    process.stdout.write('echo: ' + data + (process.env.SUFFIX ?? '') + '\\n');
  }, Number(process.env.DELAY_MS ?? 0));
});
`,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

systemContract(
  'command (node script on stdin/stdout)',
  ({ delayMs, failing }) =>
    new CommandSystem({
      command: process.execPath,
      args: [script],
      env: { DELAY_MS: String(delayMs ?? 0), ...(failing ? { FAIL: 'on purpose' } : {}) },
    }),
);

const signal = () => new AbortController().signal;

describe('CommandSystem', () => {
  it('sends strings raw and objects as JSON; trims exactly one trailing newline', async () => {
    const s = new CommandSystem({ command: process.execPath, args: [script], env: { SUFFIX: '\n' } });
    expect((await s.generate('line one\nline two', { signal: signal(), inputIndex: 0, sample: 0 })).text).toBe('echo: line one\nline two\n');
    expect((await s.generate({ a: 1 }, { signal: signal(), inputIndex: 0, sample: 0 })).text).toBe('echo: {"a":1}\n');
  });

  it('runs in cwd with the extra env', async () => {
    writeFileSync(join(dir, 'where.mjs'), `process.stdout.write(process.cwd() + '|' + process.env.GREETING)`);
    const s = new CommandSystem({ command: process.execPath, args: ['where.mjs'], cwd: dir, env: { GREETING: 'hej' } });
    const g = await s.generate('', { signal: signal(), inputIndex: 0, sample: 0 });
    expect(g.text).toBe(`${dir}|hej`);
  });

  it('a non-zero exit is a non-transient ProviderError carrying the exit code and stderr tail', async () => {
    const s = new CommandSystem({ command: process.execPath, args: [script], env: { FAIL: 'disk full' } });
    const e = (await s.generate('x', { signal: signal(), inputIndex: 0, sample: 0 }).catch((err: unknown) => err)) as ProviderError;
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.retryable).toBe(false);
    expect(e.message).toContain('code 3');
    expect(e.message).toContain('something went wrong: disk full');
  });

  it('a program that cannot start is a ProviderError, not a crash', async () => {
    const s = new CommandSystem({ command: join(dir, 'no-such-program') });
    const e = (await s.generate('x', { signal: signal(), inputIndex: 0, sample: 0 }).catch((err: unknown) => err)) as ProviderError;
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.message).toMatch(/ENOENT/);
  });

  it('a program that ignores stdin still works', async () => {
    writeFileSync(join(dir, 'deaf.mjs'), `process.stdout.write('fixed')`);
    const s = new CommandSystem({ command: process.execPath, args: [join(dir, 'deaf.mjs')] });
    const g = await s.generate('x'.repeat(1_000_000), { signal: signal(), inputIndex: 0, sample: 0 });
    expect(g.text).toBe('fixed');
  });
});

describe('CommandSystem.close', () => {
  it('kills programs still running', async () => {
    const s = new CommandSystem({ command: process.execPath, args: [script], env: { DELAY_MS: String(SLOW_MS) } });
    const t0 = performance.now();
    const pending = s.generate('x', { signal: new AbortController().signal, inputIndex: 0, sample: 0 }).catch((err: unknown) => err);
    await new Promise((r) => setTimeout(r, 100));
    await s.close();
    const e = (await pending) as ProviderError;
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.message).toMatch(/killed by SIGKILL/);
    expect(performance.now() - t0).toBeLessThan(PROMPTLY_MS);
  });
});

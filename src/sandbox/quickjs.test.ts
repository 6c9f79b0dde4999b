import { describe, expect, it } from 'vitest';
import { sandboxContract } from './contract.case.js';
import { SandboxError } from './errors.js';
import { createSandbox } from './index.js';
import { QuickJSSandbox } from './quickjs.js';

sandboxContract('QuickJS', () => createSandbox());

describe('QuickJSSandbox specifics', () => {
  it('rejects with a SandboxError whose kind says why', async () => {
    const sb = new QuickJSSandbox({ timeoutMs: 100 });
    try {
      const kinds: string[] = [];
      for (const src of ['o => { throw 1 }', 'o => { for (;;) {} }', "o => 'x'.repeat(2 ** 28)", 'o => { const r = n => r(n) + 1; return r(0) }']) {
        const f = await sb.compile(src);
        const err = await f('x').then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(SandboxError);
        kinds.push((err as SandboxError).kind);
      }
      expect(kinds).toEqual(['thrown', 'timeout', 'memory', 'stack']);
    } finally {
      sb.dispose();
    }
  });

  it('a compile-time infinite loop is stopped by the deadline', async () => {
    const sb = new QuickJSSandbox({ timeoutMs: 100 });
    try {
      await expect(sb.compile('(() => { for (;;) {} })()')).rejects.toThrow(/timed out/);
    } finally {
      sb.dispose();
    }
  });

  it('a predicate that replaces JSON cannot break its own argument copying', async () => {
    const sb = new QuickJSSandbox();
    try {
      const f = await sb.compile('o => { JSON.parse = () => ["hacked"]; JSON.stringify = () => "0"; return o }');
      expect(await f('first')).toBe('first');
      expect(await f('second')).toBe('second');
    } finally {
      sb.dispose();
    }
  });

  it('non-JSON arguments and results are reported, not mangled', async () => {
    const sb = new QuickJSSandbox();
    try {
      const f = await sb.compile('o => 1n');
      await expect(f('x')).rejects.toThrow(/JSON/);
      const g = await sb.compile('o => true');
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      await expect(g(cyclic)).rejects.toThrow(/JSON/);
      expect(await g('ok')).toBe(true);
    } finally {
      sb.dispose();
    }
  });

  it('accepts a trailing semicolon and a trailing line comment', async () => {
    const sb = new QuickJSSandbox();
    try {
      expect(await (await sb.compile('o => o.length;')).call(null, 'abc')).toBe(3);
      expect(await (await sb.compile('o => o.length // count')).call(null, 'ab')).toBe(2);
    } finally {
      sb.dispose();
    }
  });
});

describe('QuickJSSandbox under concurrent calls', () => {
  it('calls arriving together after a limit was hit all get answers from one rebuilt runtime', async () => {
    const sb = new QuickJSSandbox({ timeoutMs: 100 });
    try {
      const f = await sb.compile("o => o === 'boom' ? 'x'.repeat(2 ** 28).length : o.length");
      await expect(f('boom')).rejects.toThrow(/memory/);
      const results = await Promise.all(['a', 'bb', 'ccc', 'dddd'].map((s) => f(s)));
      expect(results).toEqual([1, 2, 3, 4]);
    } finally {
      sb.dispose();
    }
  });
});

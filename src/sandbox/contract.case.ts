import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from './types.js';
import { PROMPTLY_MS } from '../testing/time.js';

/**
 * The contract every Sandbox adapter passes: functions run on JSON copies, results are copied out,
 * every failure (throw, timeout, memory, stack) rejects, nothing of the host is reachable, and the
 * host and the sandbox stay healthy after each attempt to break out.
 */
export function sandboxContract(name: string, make: () => Sandbox | Promise<Sandbox>): void {
  describe(`Sandbox contract: ${name}`, () => {
    let sandbox: Sandbox;
    const LIMITS = { timeoutMs: 200, memoryBytes: 16 * 1024 * 1024 };

    beforeAll(async () => {
      sandbox = await make();
    });
    afterAll(() => sandbox.dispose());

    /** A healthy sandbox still computes after whatever came before. */
    async function stillWorks(): Promise<void> {
      const f = await sandbox.compile('(o, i) => o.length + i.n', LIMITS);
      expect(await f('abcd', { n: 2 })).toBe(6);
    }

    it('runs the paper contraction validator as written', async () => {
      const f = await sandbox.compile("o => (o.match(/'/g) ?? []).length <= 3");
      expect(await f('It is a fine day and I am glad to see it.')).toBe(true);
      expect(await f("It's fine, isn't it? Don't worry, I can't complain.")).toBe(false);
    });

    it('passes the second argument (the input) to two-argument functions', async () => {
      const f = await sandbox.compile('(o, input) => o.includes(input.name)');
      expect(await f('Hello Ada', { name: 'Ada' })).toBe(true);
      expect(await f('Hello Bob', { name: 'Ada' })).toBe(false);
    });

    it('copies arguments in and results out as JSON', async () => {
      const host = { list: [1, 2, 3] };
      const f = await sandbox.compile('(o) => { o.list.push(4); return { got: o.list, when: "now" } }');
      expect(await f(host)).toEqual({ got: [1, 2, 3, 4], when: 'now' });
      expect(host.list).toEqual([1, 2, 3]);
    });

    it('rejects results that only look like data once JSON has turned them into it (boxed primitives, toJSON)', async () => {
      for (const source of [
        'o => new Boolean(true)',
        'o => new Boolean(false)',
        'o => ({ toJSON: () => true })',
        'o => [new Number(1)]',
        'o => ({ ok: { toJSON() { return true } } })',
        'o => new Date(0)',
        'o => { Object.prototype.toJSON = () => true; return {} }',
        'o => { Boolean.prototype.toJSON = () => true; return new Boolean(false) }',
        'async o => new Boolean(true)',
      ]) {
        const f = await sandbox.compile(source);
        await expect(f('x'), source).rejects.toThrow(/JSON/);
      }
      await expect((await sandbox.compile('o => new Boolean(true)'))('x')).rejects.toThrow(/a Boolean object \(new Boolean\) is not plain JSON data/);
      const plain = await sandbox.compile('o => ({ a: [1, "b", null, true], n: { x: false } })');
      expect(await plain('x')).toEqual({ a: [1, 'b', null, true], n: { x: false } });
    });

    it('compiles once and calls many times', async () => {
      const f = await sandbox.compile('o => o.split(" ").length');
      const results = [];
      for (let i = 1; i <= 200; i++) results.push(await f(Array.from({ length: i }, () => 'w').join(' ')));
      expect(results[0]).toBe(1);
      expect(results[199]).toBe(200);
    });

    it('supports async functions', async () => {
      const f = await sandbox.compile('async (o) => { await null; return o.length > 2 }');
      expect(await f('abc')).toBe(true);
      expect(await f('ab')).toBe(false);
    });

    it('rejects a promise that never settles instead of hanging', async () => {
      const f = await sandbox.compile('o => new Promise(() => {})', LIMITS);
      await expect(f('x')).rejects.toThrow(/never settles|timed out/);
    });

    it('rejects, not returns false, when the function throws', async () => {
      const f = await sandbox.compile('o => { throw new Error("boom " + o) }');
      await expect(f('x')).rejects.toThrow(/boom x/);
      const g = await sandbox.compile('async o => { throw new TypeError("late") }');
      await expect(g('x')).rejects.toThrow(/late/);
    });

    it('rejects at compile time a source that does not parse or is not a function', async () => {
      await expect(sandbox.compile('o => (')).rejects.toThrow(/compile/);
      await expect(sandbox.compile('42')).rejects.toThrow(/function/);
      await expect(sandbox.compile('')).rejects.toThrow();
    });

    it('keeps compiled functions apart (no shared globals)', async () => {
      const a = await sandbox.compile('o => { globalThis.shared = o; return true }');
      const b = await sandbox.compile('o => typeof globalThis.shared');
      expect(await a('secret')).toBe(true);
      expect(await b('x')).toBe('undefined');
    });

    describe('escape attempts are contained', () => {
      const attempts: [string, string][] = [
        ['require', "o => require('fs').readFileSync('/etc/passwd', 'utf8')"],
        ['process.exit', 'o => process.exit(1)'],
        ['globalThis.process', 'o => globalThis.process.env'],
        ['constructor.constructor', "function () { return this.constructor.constructor('return process')().env }"],
        ['Function(return this)', "o => Function('return this')().process.env"],
        ['fetch', "o => fetch('http://127.0.0.1/')"],
        ['dynamic import', "async o => (await import('fs')).readFileSync('/etc/passwd', 'utf8')"],
        ['eval', "o => eval('require')('fs')"],
      ];
      for (const [label, source] of attempts) {
        it(`${label} cannot reach the host`, async () => {
          const f = await sandbox.compile(source, LIMITS);
          await expect(f('x')).rejects.toThrow();
          await stillWorks();
        });
      }

      it('Function("return this")() is the sandbox global, not the host one', async () => {
        const f = await sandbox.compile(
          "o => { const g = Function('return this')(); return [typeof g.process, typeof g.require, typeof g.Buffer, typeof g.setTimeout] }",
        );
        expect(await f('x')).toEqual(['undefined', 'undefined', 'undefined', 'undefined']);
      });

      it('prototype pollution does not leak to the host', async () => {
        const f = await sandbox.compile('o => { Object.prototype.polluted = 1; Array.prototype.push = null; return ({}).polluted }');
        expect(await f('x')).toBe(1);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(typeof Array.prototype.push).toBe('function');
        await stillWorks();
      });

      it('an infinite loop ends at the deadline and the next call works', async () => {
        const f = await sandbox.compile('o => { while (true) {} }', LIMITS);
        const t = Date.now();
        await expect(f('x')).rejects.toThrow(/timed out/);
        expect(Date.now() - t).toBeLessThan(PROMPTLY_MS);
        await expect(f('x')).rejects.toThrow(/timed out/);
        await stillWorks();
      });

      it('new Array(1e9).fill(1) is stopped', async () => {
        const f = await sandbox.compile('o => new Array(1e9).fill(1).length', LIMITS);
        await expect(f('x')).rejects.toThrow(/memory|timed out/);
        await stillWorks();
      });

      it("'x'.repeat(2**28) is stopped", async () => {
        const f = await sandbox.compile("o => 'x'.repeat(2 ** 28).length", LIMITS);
        await expect(f('x')).rejects.toThrow(/memory/);
        await stillWorks();
      });

      it('deep recursion is stopped', async () => {
        const f = await sandbox.compile('o => { const r = (n) => r(n + 1) + 1; return r(0) }', LIMITS);
        await expect(f('x')).rejects.toThrow(/stack|recursion/i);
        await stillWorks();
      });

      describe('memory bombs end at the memory limit, whatever holds the memory', () => {
        // A time limit far beyond what the bomb needs to reach the memory limit: the memory limit must end it.
        const BOMB_LIMITS = { timeoutMs: 10_000, memoryBytes: 16 * 1024 * 1024 };
        const bombs: [string, string][] = [
          ['typed arrays', 'o => { const a = []; for (;;) a.push(new Float64Array(1 << 20)); }'],
          ['ArrayBuffers', 'o => { const a = []; for (;;) a.push(new ArrayBuffer(1 << 20)); }'],
          ['SharedArrayBuffers (if the sandbox has them)', 'o => { const a = []; for (;;) a.push(new SharedArrayBuffer(1 << 20)); }'],
          ['strings', 'o => { const a = []; for (;;) a.push("x".repeat(1 << 20) + a.length); }'],
          ['small objects', 'o => { const a = []; for (;;) a.push({ n: a.length, s: [o] }); }'],
          // Issue 30: four of five small-object shapes ended with a message reading "null".
          ['one-field objects', 'o => { const a = []; for (;;) a.push({ n: a.length }); }'],
          ['empty objects', 'o => { const a = []; for (;;) a.push({}); }'],
          ['small arrays', 'o => { const a = []; for (;;) a.push([a.length]); }'],
          ['closures', 'o => { const a = []; for (;;) { const n = a.length; a.push(() => n); } }'],
          ['a linked list', 'o => { let h = null; for (;;) h = { h }; }'],
          ['Maps', 'o => { const a = []; for (;;) a.push(new Map()); }'],
        ];
        for (const [label, source] of bombs) {
          it(`${label}: a memory error, and the host grows by a bounded amount`, async () => {
            const f = await sandbox.compile(source, BOMB_LIMITS);
            const before = process.memoryUsage().rss;
            const err = await f('x').then(
              () => new Error('resolved'),
              (e: unknown) => e as Error,
            );
            if (/SharedArrayBuffer/.test(label) && /SharedArrayBuffer.*(not defined|not a constructor)/.test(err.message)) return await stillWorks();
            expect(err.message).toMatch(/ran out of memory \(limit 16 MiB\)/);
            expect((err as { kind?: string }).kind).toBe('memory');
            // Unbounded, these grew the host by 2 GiB; bounded, by the limit plus what a fresh instance costs.
            expect(process.memoryUsage().rss - before).toBeLessThan(10 * BOMB_LIMITS.memoryBytes);
            await stillWorks();
          });
        }

        it('WebAssembly memory: none to grow (WebAssembly is not in the sandbox), or bounded if it is', async () => {
          const f = await sandbox.compile('o => { const m = new WebAssembly.Memory({ initial: 1, maximum: 65536 }); for (;;) m.grow(16); }', BOMB_LIMITS);
          const before = process.memoryUsage().rss;
          await expect(f('x')).rejects.toThrow(/WebAssembly.*not defined|memory/);
          expect(process.memoryUsage().rss - before).toBeLessThan(10 * BOMB_LIMITS.memoryBytes);
          await stillWorks();
        });
      });

      it('a function that exhausted its runtime works again on its next normal call', async () => {
        const f = await sandbox.compile("o => o === 'boom' ? 'x'.repeat(2 ** 28).length : o.length", LIMITS);
        await expect(f('boom')).rejects.toThrow(/memory/);
        expect(await f('fine')).toBe(4);
      });
    });

    describe('the deadline is hard (also inside long native operations and GC near the heap limit)', () => {
      /** Each JSON.parse of a 1e6-element array runs ≈0.4–0.8 s of native code that checks no deadline. */
      const NATIVE_HOG = "o => { const s = '[' + '1,'.repeat(1e6) + '1]'; for (;;) JSON.parse(s); }";

      /** Rejects with the elapsed time, failing the test if the call resolved. */
      async function rejection(f: (...a: unknown[]) => Promise<unknown>, ...args: unknown[]): Promise<{ error: Error; ms: number }> {
        const t = Date.now();
        const error = await f(...args).then(
          (v) => new Error(`resolved with ${JSON.stringify(v)}`),
          (e: unknown) => e as Error,
        );
        return { error, ms: Date.now() - t };
      }

      it('an allocation loop with timeoutMs 300 is rejected promptly and the sandbox still works', async () => {
        const f = await sandbox.compile('o => { const a = []; for (;;) a.push(new Array(1e6).fill(o)); }', { timeoutMs: 300, memoryBytes: 32 * 1024 * 1024 });
        const { error, ms } = await rejection(f, 'x');
        expect(error.message).toMatch(/timed out|memory/);
        expect(ms).toBeLessThan(PROMPTLY_MS);
        await stillWorks();
      });

      it('a loop of long native operations (no interrupt check inside) is rejected as a timeout', async () => {
        const f = await sandbox.compile(NATIVE_HOG, { timeoutMs: 300 });
        const { error, ms } = await rejection(f, 'x');
        expect(error.message).toMatch(/timed out/);
        expect(ms).toBeLessThan(PROMPTLY_MS);
        await stillWorks();
      });

      it('a tight loop and a huge single allocation are rejected quickly', async () => {
        const loop = await sandbox.compile('o => { while (true) {} }', { timeoutMs: 300 });
        const big = await sandbox.compile('o => new Array(2 ** 31 - 1).fill(o).length', { timeoutMs: 300 });
        for (const f of [loop, big]) {
          const { error, ms } = await rejection(f, 'x');
          expect(error.message).toMatch(/timed out|memory/);
          expect(ms).toBeLessThan(PROMPTLY_MS);
        }
        await stillWorks();
      });

      it('concurrent calls are not taken down by one that overruns its deadline', async () => {
        const hog = await sandbox.compile(NATIVE_HOG, { timeoutMs: 300 });
        const ok = await sandbox.compile('(o, i) => o.length * i.k', LIMITS);
        const before = [1, 2, 3].map((k) => ok('abc', { k }));
        const hogged = rejection(hog, 'x');
        const after = [4, 5, 6].map((k) => ok('abc', { k }));
        expect(await Promise.all([...before, ...after])).toEqual([3, 6, 9, 12, 15, 18]);
        const { error, ms } = await hogged;
        expect(error.message).toMatch(/timed out|memory/);
        expect(ms).toBeLessThan(PROMPTLY_MS);
        // Both functions keep working, the overrunning one included.
        expect(await ok('ab', { k: 10 })).toBe(20);
        await expect(hog('x')).rejects.toThrow(/timed out|memory/);
        await stillWorks();
      });

      it('a compile-time allocation loop is rejected promptly', async () => {
        const t = Date.now();
        await expect(
          sandbox.compile('(() => { const a = []; for (;;) a.push(new Array(1e6).fill(1)); })()', { timeoutMs: 300, memoryBytes: 32 * 1024 * 1024 }),
        ).rejects.toThrow(/timed out|memory/);
        expect(Date.now() - t).toBeLessThan(PROMPTLY_MS);
        await stillWorks();
      });
    });

    it('rejects calls after dispose', async () => {
      const own = await make();
      const f = await own.compile('o => true');
      expect(await f('x')).toBe(true);
      own.dispose();
      await expect(f('x')).rejects.toThrow(/dispose/);
      await expect(own.compile('o => true')).rejects.toThrow(/dispose/);
    });
  });
}

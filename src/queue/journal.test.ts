import { afterAll, describe, expect, it } from 'vitest';
import type { CheckResult, Validator } from '../core/validator.js';
import type { Generation, SystemUnderTest } from '../providers/types.js';
import type { EvaluateFn } from '../run/sample.js';
import { MemoryStore } from '../store/memory.js';
import { Outcome } from '../core/outcome.js';
import { CallJournal, journalSample } from './journal.js';

// The call journal on its own: two CallJournals on one store are two workers.
const signal = () => new AbortController().signal;
const spec = (key: string, timeoutMs = 5000) => ({ key, timeoutMs, signal: signal() });
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A worker's journal, its heartbeat started (closed after the test file). */
const opened: CallJournal[] = [];
async function journalOf(store: MemoryStore, opts: ConstructorParameters<typeof CallJournal>[1]): Promise<CallJournal> {
  const j = new CallJournal(store.cache, opts);
  await j.start();
  opened.push(j);
  return j;
}
afterAll(async () => {
  for (const j of opened) await j.close();
});

/** A call that counts how often it is made and answers after `ms`. */
function counted<T>(value: T, ms = 30) {
  const c = {
    made: 0,
    call: async () => {
      c.made++;
      await tick(ms);
      return value;
    },
  };
  return c;
}

describe('CallJournal', () => {
  it('an answer recorded by one worker is reused by another, with what it cost', async () => {
    const store = new MemoryStore();
    const [a, b] = [await journalOf(store, { worker: 'a' }), await journalOf(store, { worker: 'b' })];
    const gen: Generation = { text: 'paid once', latencyMs: 120, costUsd: 0.002, usage: { promptTokens: 10, completionTokens: 5 } };
    const c = counted(gen);
    expect(await a.call(spec('k'), c.call)).toEqual(gen);
    expect(await b.call(spec('k'), c.call)).toEqual(gen);
    expect(c.made).toBe(1);
    expect(b.counts).toEqual({ made: 0, reused: 1 });
  });

  it('a call in flight on another worker is waited for, not made again; two claiming at once make it once', async () => {
    const store = new MemoryStore();
    const journals = await Promise.all(['a', 'b', 'c'].map((w) => journalOf(store, { worker: w, pollMs: 5 })));
    const c = counted('answer', 80);
    const first = journals[0].call(spec('k'), c.call);
    await tick(20); // a is calling
    const answers = await Promise.all([first, journals[1].call(spec('k'), c.call), journals[2].call(spec('k'), c.call)]);
    expect(answers).toEqual(['answer', 'answer', 'answer']);
    expect(c.made).toBe(1);
    // At the same instant, no claim yet: one wins the claim, the other waits.
    const d = counted('again', 40);
    const both = await Promise.all([journals[1].call(spec('k2'), d.call), journals[2].call(spec('k2'), d.call)]);
    expect(both).toEqual(['again', 'again']);
    expect(d.made).toBe(1);
  });

  it('the same call twice in one process is made once', async () => {
    const store = new MemoryStore();
    const j = await journalOf(store, { worker: 'a' });
    const c = counted('x', 50);
    expect(await Promise.all([j.call(spec('k'), c.call), j.call(spec('k'), c.call)])).toEqual(['x', 'x']);
    expect(c.made).toBe(1);
  });

  it('a claim whose caller died is taken over: once its heartbeat stops moving, or past its deadline', async () => {
    const store = new MemoryStore();
    let now = 1_000_000;
    // Killed: it beat once at start and never again (kill -9 leaves its beat in the store).
    const dead = await journalOf(store, { worker: 'dead', heartbeatMs: 3_600_000, now: () => now });
    const live = await journalOf(store, { worker: 'live', pollMs: 5, lapseMs: 5000, now: () => now });
    void dead.call(spec('k', 60_000), () => new Promise<string>(() => {})).catch(() => {}); // never answers
    await tick(10);
    const c = counted('mine', 5);
    const waiting = live.call(spec('k', 60_000), c.call);
    await tick(40);
    expect(c.made).toBe(0); // its beat was first seen just now: waited for
    // The waiter itself could not look for longer than the lapse (its process blocked, or the store away for
    // everyone): it does not judge the other worker dead from that.
    now += 6000;
    await tick(30);
    expect(c.made).toBe(0);
    // The beat does not move for the lapse (the clock advanced a second at a time, as the waiter looks on): dead,
    // though its call's deadline is far.
    for (let t = 0; t < 6; t++) {
      now += 1000;
      await tick(20);
    }
    expect(await waiting).toBe('mine');
    expect(c.made).toBe(1);

    // A worker that beats on is waited for, up to its call's deadline (and a grace).
    const slow = await journalOf(store, { worker: 'slow', heartbeatMs: 5, now: () => now });
    void slow.call(spec('k2', 1000), () => new Promise<string>(() => {})).catch(() => {});
    await tick(10);
    const d = counted('taken', 5);
    const waiting2 = live.call(spec('k2', 1000), d.call);
    await tick(60);
    expect(d.made).toBe(0);
    for (let t = 0; t < 4; t++) {
      now += 1000;
      await tick(20);
    }
    expect(await waiting2).toBe('taken');
    // A worker closed cleanly removes its beat: a claim it left (a call that never ended) is taken over at once.
    const gone = await journalOf(store, { worker: 'gone', now: () => now });
    void gone.call(spec('k3', 60_000), () => new Promise<string>(() => {})).catch(() => {});
    await tick(10);
    await gone.close();
    const e = counted('at once', 5);
    expect(await live.call(spec('k3', 60_000), e.call)).toBe('at once');
  });

  it('errors are not kept: a failed call drops its claim and the next one is made', async () => {
    const store = new MemoryStore();
    const [a, b] = [await journalOf(store, { worker: 'a', pollMs: 5 }), await journalOf(store, { worker: 'b', pollMs: 5 })];
    await expect(a.call(spec('k'), () => Promise.reject(new Error('503')))).rejects.toThrow('503');
    expect(await store.cache.get('k')).toBeUndefined();
    const c = counted('ok');
    expect(await b.call(spec('k'), c.call)).toBe('ok');
    // An answer `keep` refuses (a check's error) is returned but not recorded.
    const e = counted({ outcome: 'error' as const }, 1);
    const keep = (r: { outcome: string }) => r.outcome !== 'error';
    await a.call({ ...spec('e'), keep }, e.call);
    await b.call({ ...spec('e'), keep }, e.call);
    expect(e.made).toBe(2);
  });

  it('a damaged entry is replaced; a wait ends when the caller is aborted', async () => {
    const store = new MemoryStore();
    await store.cache.set('k', '{not json');
    const j = await journalOf(store, { worker: 'a', pollMs: 5 });
    const c = counted('fresh', 1);
    expect(await j.call(spec('k'), c.call)).toBe('fresh');
    expect(c.made).toBe(1);
    const other = await journalOf(store, { worker: 'b', pollMs: 5 });
    void j.call(spec('slow'), () => new Promise<string>(() => {})).catch(() => {});
    await tick(10);
    const ac = new AbortController();
    const waiting = other.call({ key: 'slow', timeoutMs: 60_000, signal: ac.signal }, c.call);
    ac.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
  });

  it('nothing recorded but the sample stored (its entries deleted): a re-run takes the stored one and calls nothing', async () => {
    const store = new MemoryStore();
    const j = await journalOf(store, { worker: 'a' });
    const c = counted('new');
    expect(await j.call({ ...spec('k'), stored: async () => 'stored' }, c.call)).toBe('stored');
    expect(c.made).toBe(0);
  });
});

describe('journalSample', () => {
  const verifier: Validator = { name: 'judged', message: '', predicate: () => true, minSuccess: 0.5, kind: 'verifier' };
  const rule: Validator = { name: 'nonempty', message: '', predicate: () => true, minSuccess: 0.5 };
  const validators = [rule, verifier];

  function fixture() {
    const calls = { generate: 0, judge: 0, rule: 0 };
    const system: SystemUnderTest = {
      id: 'sut',
      generate: async (input) => {
        calls.generate++;
        await tick(5);
        return { text: `answer to ${String(input)}`, latencyMs: 5, costUsd: 0.01 };
      },
    };
    const evaluate: EvaluateFn = async (v) => {
      if (v.kind === 'verifier') calls.judge++;
      else calls.rule++;
      return { outcome: 'pass', ...(v.kind === 'verifier' ? { reasons: ['fine'], costUsd: 0.001 } : {}) } satisfies CheckResult;
    };
    return { calls, system, evaluate };
  }
  const run = async (s: ReturnType<typeof journalSample>, i: number, j: number) => {
    const g = await s.system.generate(`input ${i}`, { signal: signal(), sample: j, inputIndex: i });
    const checks = await Promise.all(validators.map((v) => s.evaluate(v, g.text, `input ${i}`, { signal: signal() })));
    return { g, checks };
  };

  it('a sample run twice (two workers) pays its generation and its judge call once; rules run each time; keys name what to forget', async () => {
    const store = new MemoryStore();
    const f = fixture();
    const opts = { runId: 'r1', i: 0, j: 1, validators, timeoutMs: 5000 };
    const a = journalSample(await journalOf(store, { worker: 'a' }), f, opts);
    const b = journalSample(await journalOf(store, { worker: 'b' }), f, opts);
    const first = await run(a, 0, 1);
    const second = await run(b, 0, 1);
    expect(second).toEqual(first);
    expect(f.calls).toEqual({ generate: 1, judge: 1, rule: 2 });
    expect(a.keys).toHaveLength(2);
    // Another sample (j = 2) or another run is another call.
    await run(journalSample(await journalOf(store, { worker: 'a' }), f, { ...opts, j: 2 }), 0, 2);
    await run(journalSample(await journalOf(store, { worker: 'a' }), f, { ...opts, runId: 'r2' }), 0, 1);
    expect(f.calls.generate).toBe(3);
    // Forgotten once stored: a run of the same sample with no stored record would call again.
    await (await journalOf(store, { worker: 'a' })).forget(a.keys);
    expect(await store.cache.get(a.keys[0])).toBeUndefined();
  });

  it('a re-run whose sample is stored already calls nothing: it carries the stored sample along', async () => {
    const store = new MemoryStore();
    const f = fixture();
    const stored = { i: 0, j: 0, output: 'stored answer', outcomes: [Outcome.PASS, Outcome.FAIL], reasons: [undefined, ['no']], latencyMs: 9, attempts: 1 };
    const s = journalSample(await journalOf(store, { worker: 'b' }), f, {
      runId: 'r',
      i: 0,
      j: 0,
      validators,
      timeoutMs: 5000,
      stored: async () => stored,
    });
    const { g, checks } = await run(s, 0, 0);
    expect(g.text).toBe('stored answer');
    expect(checks[1]).toEqual({ outcome: 'fail', reasons: ['no'] });
    expect(f.calls).toEqual({ generate: 0, judge: 0, rule: 1 });
  });
});

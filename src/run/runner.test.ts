import { afterEach, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import type { Validator } from '../core/validator.js';
import { UsageError } from '../errors.js';
import { OpenAISystem } from '../providers/openai.js';
import { MemoryStore } from '../store/memory.js';
import { startMockOpenAI, type ChatRequestBody, type MockOpenAI, type MockReply } from '../mock/openai.js';
import { runExperiment, type RunPlan } from './runner.js';
import { PROMPTLY_MS } from '../testing/time.js';

let mock: MockOpenAI | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const lastUser = (b: ChatRequestBody) => String(b.messages[b.messages.length - 1].content);

const validators: Validator[] = [
  { name: 'short', message: 'too long', predicate: (o) => o.length <= 20, minSuccess: 0.9 },
  { name: 'no_x', message: 'has an x', predicate: (o) => !o.includes('x'), minSuccess: 0.9 },
];

function plan(inputs: string[], samples: number, vs: Validator[] = validators): RunPlan {
  return { name: 'test', inputs, samples, validators: vs, serialisable: { note: 'test' } };
}

const fast = { retries: 4, baseMs: 1, maxMs: 5 };

describe('runExperiment against the mock OpenAI server', () => {
  it('fills every cell once with the validators’ outcomes and stores each sample', async () => {
    // "long" inputs get a long answer (fails `short`), "x" inputs an answer with an x (fails `no_x`).
    mock = await startMockOpenAI({ chat: (b) => ({ content: lastUser(b) === 'long' ? 'a very long answer indeed, yes' : lastUser(b) === 'x' ? 'xx' : 'ok' }) });
    const store = new MemoryStore();
    const system = new OpenAISystem({ baseURL: mock.baseURL, model: 'm' });
    const res = await runExperiment({ experiment: plan(['ok', 'long', 'x'], 4), system, store, concurrency: 3, retry: fast });
    expect(res.status).toBe('complete');
    expect(res.run.status).toBe('complete');
    const t = await store.samples.tensor(res.run.id);
    expect(Array.from(t.cells)).toEqual(Array.from(res.tensor.cells));
    for (let j = 0; j < 4; j++) {
      expect([t.get(0, j, 0), t.get(0, j, 1)]).toEqual([Outcome.PASS, Outcome.PASS]);
      expect([t.get(1, j, 0), t.get(1, j, 1)]).toEqual([Outcome.FAIL, Outcome.PASS]);
      expect([t.get(2, j, 0), t.get(2, j, 1)]).toEqual([Outcome.PASS, Outcome.FAIL]);
    }
    const samples = await store.samples.list(res.run.id);
    expect(samples).toHaveLength(12);
    expect(samples.every((s) => s.attempts === 1 && s.usage !== undefined && s.output !== undefined)).toBe(true);
    expect(res.stats.samples).toBe(12);
    expect(res.stats.promptTokens).toBeGreaterThan(0);
    expect(mock.requests).toHaveLength(12);
  });

  it('retries injected 429 (honouring Retry-After), 500 and resets, not a timeout (an error cell); none becomes a failure', async () => {
    const seen = new Map<string, number>();
    const times = new Map<string, number[]>();
    const faults: MockReply[] = [{ status: 429, retryAfterSeconds: 0.15 }, { status: 500 }, { status: 503 }, { hang: true }, { reset: true }];
    mock = await startMockOpenAI({
      chat: (b) => {
        const key = lastUser(b) + '#' + String(b.temperature);
        const n = (seen.get(key) ?? 0) + 1;
        seen.set(key, n);
        times.set(lastUser(b), [...(times.get(lastUser(b)) ?? []), Date.now()]);
        // Every input's first call fails with its own fault; later calls succeed.
        const idx = Number(lastUser(b).slice(1));
        return n === 1 ? faults[idx] : { content: 'ok' };
      },
    });
    const store = new MemoryStore();
    const system = new OpenAISystem({ baseURL: mock.baseURL, model: 'm' });
    const res = await runExperiment({ experiment: plan(['f0', 'f1', 'f2', 'f3', 'f4'], 1), system, store, concurrency: 5, timeoutMs: 300, retry: fast });
    expect(res.status).toBe('complete');
    // f3's call hung past timeoutMs: a call that hung is not tried again (providers/retry.ts), its cells are errors.
    expect([0, 1, 2, 3, 4].map((i) => res.tensor.get(i, 0, 0))).toEqual([Outcome.PASS, Outcome.PASS, Outcome.PASS, Outcome.ERROR, Outcome.PASS]);
    const samples = await store.samples.list(res.run.id);
    expect([...samples].sort((a, b) => a.i - b.i).map((s) => s.attempts)).toEqual([2, 2, 2, 1, 2]);
    expect(samples.find((s) => s.i === 3)?.generationErrorKind).toBe('timeout');
    expect(res.stats.retries).toBe(4);
    const t429 = times.get('f0')!;
    expect(t429[1] - t429[0]).toBeGreaterThanOrEqual(140);
  });

  it('a generation that keeps failing becomes a sample of ERROR cells, never FAIL', async () => {
    mock = await startMockOpenAI({
      chat: (b) => (lastUser(b) === 'bad' ? { status: 500 } : lastUser(b) === 'forbidden' ? { status: 400 } : { content: 'ok' }),
    });
    const store = new MemoryStore();
    const system = new OpenAISystem({ baseURL: mock.baseURL, model: 'm' });
    const res = await runExperiment({ experiment: plan(['good', 'bad', 'forbidden'], 2), system, store, retry: { retries: 2, baseMs: 1, maxMs: 2 } });
    expect(res.status).toBe('complete');
    for (let j = 0; j < 2; j++) {
      for (let k = 0; k < 2; k++) {
        expect(res.tensor.get(0, j, k)).toBe(Outcome.PASS);
        expect(res.tensor.get(1, j, k)).toBe(Outcome.ERROR);
        expect(res.tensor.get(2, j, k)).toBe(Outcome.ERROR);
      }
    }
    const bad = await store.samples.get(res.run.id, 1, 0);
    expect(bad?.generationError).toMatch(/3 attempt/);
    expect(bad?.output).toBeUndefined();
    const forbidden = await store.samples.get(res.run.id, 2, 0);
    expect(forbidden?.attempts).toBe(1); // a 400 is not transient: no retry
    expect(res.stats.generationErrors).toBe(4);
    expect(Array.from(res.tensor.cells).includes(Outcome.FAIL)).toBe(false);
  });

  it('a predicate that throws or hangs is an ERROR cell, not a FAIL', async () => {
    mock = await startMockOpenAI({ chat: () => ({ content: 'ok' }) });
    const vs: Validator[] = [
      {
        name: 'throws',
        message: '',
        predicate: () => {
          throw new Error('bug in predicate');
        },
        minSuccess: 0.9,
      },
      { name: 'hangs', message: '', predicate: () => new Promise<boolean>(() => {}), minSuccess: 0.9, timeoutMs: 50 },
      { name: 'fine', message: '', predicate: () => true, minSuccess: 0.9 },
    ];
    const store = new MemoryStore();
    const res = await runExperiment({ experiment: plan(['a'], 2, vs), system: new OpenAISystem({ baseURL: mock.baseURL, model: 'm' }), store });
    expect(Array.from(res.tensor.cells)).toEqual([3, 3, 1, 3, 3, 1]);
    const s = await store.samples.get(res.run.id, 0, 0);
    expect(s?.errors?.[0]).toMatch(/bug in predicate/);
    expect(s?.generationError).toBeUndefined();
    expect(res.stats.validatorErrors).toBe(4);
  });

  it('never has more than `concurrency` calls in flight, and does use them', async () => {
    mock = await startMockOpenAI({ chat: () => ({ content: 'ok', delayMs: 25 }) });
    const store = new MemoryStore();
    const res = await runExperiment({
      experiment: plan(
        Array.from({ length: 10 }, (_, i) => `p${i}`),
        6,
      ),
      system: new OpenAISystem({ baseURL: mock.baseURL, model: 'm' }),
      store,
      concurrency: 4,
    });
    expect(res.status).toBe('complete');
    expect(mock.maxInFlight).toBe(4);
    expect(mock.requests).toHaveLength(60);
  });

  it('Ctrl-C stops cleanly, keeps finished samples, and a resume completes without redoing or duplicating any', async () => {
    mock = await startMockOpenAI({ chat: () => ({ content: 'ok', delayMs: 20 }) });
    const store = new MemoryStore();
    const system = new OpenAISystem({ baseURL: mock.baseURL, model: 'm' });
    const ac = new AbortController();
    const p = plan(['a', 'b', 'c', 'd'], 10);
    const first = await runExperiment({
      experiment: p,
      system,
      store,
      concurrency: 3,
      signal: ac.signal,
      onProgress: (pr) => {
        if (pr.done === 8) ac.abort();
      },
    });
    expect(first.status).toBe('interrupted');
    expect((await store.runs.get(first.run.id))?.status).toBe('interrupted');
    const kept = await store.samples.list(first.run.id);
    expect(kept.length).toBeGreaterThanOrEqual(8);
    expect(kept.length).toBeLessThan(40);
    expect(kept.every((s) => s.outcomes.every((o) => o === Outcome.PASS))).toBe(true); // aborted calls are not stored as errors
    // The resumed run talks as model m2, so its calls are told apart from late arrivals of aborted ones.
    const system2 = new OpenAISystem({ baseURL: mock.baseURL, model: 'm2' });
    const second = await runExperiment({ experiment: p, system: system2, store, runId: first.run.id, concurrency: 3 });
    expect(second.status).toBe('complete');
    expect(mock.requests.filter((r) => (r.body as ChatRequestBody).model === 'm2')).toHaveLength(40 - kept.length); // nothing redone
    const all = await store.samples.list(first.run.id);
    expect(all).toHaveLength(40);
    expect(new Set(all.map((s) => `${s.i},${s.j}`)).size).toBe(40);
    expect(Array.from(second.tensor.cells).every((c) => c === Outcome.PASS)).toBe(true);
    expect(second.stats.samples).toBe(40);
  });

  it('refuses to resume with a config that no longer matches the stored run', async () => {
    mock = await startMockOpenAI();
    const store = new MemoryStore();
    const system = new OpenAISystem({ baseURL: mock.baseURL, model: 'm' });
    const first = await runExperiment({ experiment: plan(['a'], 1), system, store });
    await expect(runExperiment({ experiment: plan(['a'], 2), system, store, runId: first.run.id })).rejects.toThrow(
      /samples: the run has 1, the config gives 2/,
    );
    await expect(runExperiment({ experiment: plan(['a'], 1), system, store, runId: 'nope' })).rejects.toBeInstanceOf(UsageError);
    // Same count, different content: the message says which input differs and how.
    const four = await runExperiment({ experiment: plan(['a', 'b', 'c', 'd'], 1), system, store });
    await expect(runExperiment({ experiment: plan(['a', 'b', 'C', 'd'], 1), system, store, runId: four.run.id })).rejects.toThrow(
      /inputs\[2\]: the run has "c", the config gives "C"$/,
    );
    await expect(runExperiment({ experiment: plan(['a', 'b'], 1), system, store, runId: four.run.id })).rejects.toThrow(
      /inputs: the run has 4, the config gives 2$/,
    );
  });

  it('refuses a design too large for the tensor before creating a run record', async () => {
    const store = new MemoryStore();
    const system = new OpenAISystem({ baseURL: 'http://127.0.0.1:9', model: 'm' });
    await expect(runExperiment({ experiment: plan(['a', 'b'], 1e12), system, store })).rejects.toThrow(
      /samples: expected inputs × samples × \(validators \+ verifiers\) ≤ 100,000,000 tensor cells, found 2 inputs × 1000000000000 samples/,
    );
    expect(await store.runs.list()).toEqual([]);
  });

  it('a provider that ignores its signal still hits the per-call deadline', async () => {
    let calls = 0;
    const stubborn = {
      id: 'stubborn',
      generate: () => {
        calls++;
        return calls === 1 ? new Promise<never>(() => {}) : Promise.resolve({ text: 'ok', latencyMs: 1 });
      },
    };
    const store = new MemoryStore();
    const t0 = Date.now();
    // With a timeout retry allowed (the default allows none), the second attempt answers.
    const res = await runExperiment({ experiment: plan(['a'], 1), system: stubborn, store, timeoutMs: 100, retry: { ...fast, timeoutRetries: 1 } });
    expect(Date.now() - t0).toBeLessThan(PROMPTLY_MS);
    expect(res.tensor.get(0, 0, 0)).toBe(Outcome.PASS);
    expect((await store.samples.get(res.run.id, 0, 0))?.attempts).toBe(2);
  });

  it('a store that fails mid-run stops the run, marks it failed and rethrows', async () => {
    const store = new MemoryStore();
    let writes = 0;
    const record = store.samples.record.bind(store.samples);
    store.samples.record = async (runId, sample) => {
      if (++writes > 5) throw new Error('disk full');
      return record(runId, sample);
    };
    const system = { id: 'echo', generate: async () => ({ text: 'ok', latencyMs: 0 }) };
    const err = await runExperiment({ experiment: plan(['a', 'b'], 20), system, store, concurrency: 2 }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('disk full');
    const [run] = await store.runs.list();
    expect(run.status).toBe('failed');
    expect(await store.samples.list(run.id)).toHaveLength(5);
    expect(writes).toBeLessThanOrEqual(7); // stopped scheduling at once (at most the in-flight ones tried)
  });
});

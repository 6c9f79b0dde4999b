import { describe, expect, it } from 'vitest';
import { Outcome, type OutcomeCode } from '../core/outcome.js';
import type { Trajectory } from '../core/trajectory.js';
import { DuplicateSampleError } from './errors.js';
import { E, F, newRun, P, sample, type MakeStore } from './testing/fixtures.js';

/** The contract of `store.samples`: each (i, j) stored once and whole, read back as written, and the tensor they fill. */
export function samplesContract(make: MakeStore): void {
  describe('samples', () => {
    it('builds the tensor from stored samples, leaving the rest pending', async () => {
      await using store = await make();
      const run = await store.runs.create(newRun());
      await store.samples.record(run.id, sample(0, 0, [P, F]));
      await store.samples.record(run.id, sample(1, 2, [E, P], { generationError: undefined }));
      const t = await store.samples.tensor(run.id);
      expect([t.N, t.M, t.K]).toEqual([2, 3, 2]);
      expect(t.get(0, 0, 0)).toBe(P);
      expect(t.get(0, 0, 1)).toBe(F);
      expect(t.get(1, 2, 0)).toBe(E);
      expect(t.get(1, 2, 1)).toBe(P);
      expect(t.get(0, 1, 0)).toBe(Outcome.PENDING);
      const filled = Array.from(t.cells).filter((c) => c !== Outcome.PENDING).length;
      expect(filled).toBe(4);
    });

    it('discards the samples whose generation failed, and only those, so that a resume runs them again', async () => {
      await using store = await make();
      const run = await store.runs.create(newRun());
      await store.samples.record(run.id, sample(0, 0, [P, F]));
      await store.samples.record(run.id, sample(0, 1, [E, E], { output: undefined, generationError: 'ECONNREFUSED' }));
      await store.samples.record(run.id, sample(1, 0, [E, P])); // a validator error: the output was checked, kept
      await store.samples.record(run.id, sample(1, 2, [E, E], { output: undefined, generationError: 'HTTP 401' }));
      expect(await store.samples.discardGenerationErrors(run.id)).toBe(2);
      expect((await store.samples.list(run.id)).map((s) => [s.i, s.j])).toEqual([
        [0, 0],
        [1, 0],
      ]);
      const t = await store.samples.tensor(run.id);
      expect(t.get(0, 1, 0)).toBe(Outcome.PENDING);
      expect(t.get(1, 2, 1)).toBe(Outcome.PENDING);
      expect(t.get(1, 0, 0)).toBe(E);
      // The cell can be stored again, once.
      await store.samples.record(run.id, sample(0, 1, [P, P]));
      expect((await store.samples.get(run.id, 0, 1))!.outcomes).toEqual([P, P]);
      expect(await store.samples.discardGenerationErrors(run.id)).toBe(0);
      await expect(store.samples.discardGenerationErrors('nope')).rejects.toThrow(/nope/);
    });

    it('refuses a duplicate (i, j) and keeps the first', async () => {
      await using store = await make();
      const run = await store.runs.create(newRun());
      await store.samples.record(run.id, sample(0, 1, [P, P], { output: 'first' }));
      await expect(store.samples.record(run.id, sample(0, 1, [F, F], { output: 'second' }))).rejects.toThrow(/already stored/);
      expect((await store.samples.get(run.id, 0, 1))!.output).toBe('first');
      expect((await store.samples.list(run.id)).length).toBe(1);
    });

    it('rejects samples outside the shape or with the wrong number of outcomes, storing nothing', async () => {
      await using store = await make();
      const run = await store.runs.create(newRun());
      await expect(store.samples.record(run.id, sample(2, 0, [P, P]))).rejects.toThrow(/i=2/);
      await expect(store.samples.record(run.id, sample(0, 3, [P, P]))).rejects.toThrow(/j=3/);
      await expect(store.samples.record(run.id, sample(0, 0, [P]))).rejects.toThrow(/K=2/);
      await expect(store.samples.record(run.id, sample(0, 0, [P, 4 as OutcomeCode]))).rejects.toThrow(/outcome code 4/);
      expect(await store.samples.list(run.id)).toEqual([]);
    });

    it('keeps a column a stop rule left unchecked (code 0) as pending in the tensor', async () => {
      await using store = await make();
      const run = await store.runs.create(newRun());
      await store.samples.record(run.id, sample(0, 0, [P, 0 as OutcomeCode]));
      const t = await store.samples.tensor(run.id);
      expect([t.get(0, 0, 0), t.get(0, 0, 1)]).toEqual([P, 0]);
      expect((await store.samples.get(run.id, 0, 0))!.outcomes).toEqual([P, 0]);
    });

    it('round-trips every field of a sample', async () => {
      await using store = await make();
      const run = await store.runs.create(newRun());
      const s = sample(1, 0, [E, F], {
        output: undefined,
        generationError: 'HTTP 503 after 4 attempts',
        errors: ['timeout', undefined],
        reasons: [undefined, ['too long', 'off topic']],
        latencyMs: 812.25,
        attempts: 4,
        usage: { promptTokens: 120, completionTokens: 33 },
        cost: { usd: 0.00125, checks: [undefined, 0.0004], unpriced: 1 },
        cached: true,
        finishedAt: '2026-01-02T03:04:05.000Z',
      });
      await store.samples.record(run.id, s);
      const got = await store.samples.get(run.id, 1, 0);
      expect(got).toEqual(s);
      expect(got!.output).toBeUndefined();
      expect(got!.generationError).toBe('HTTP 503 after 4 attempts');
      expect(got!.errors![0]).toBe('timeout');
      expect(got!.errors![1]).toBeUndefined();
      expect(got!.reasons![0]).toBeUndefined();
      expect(got!.reasons![1]).toEqual(['too long', 'off topic']);
      expect(got!.latencyMs).toBe(812.25);
      expect(got!.attempts).toBe(4);
      expect(got!.usage).toEqual({ promptTokens: 120, completionTokens: 33 });
      expect(got!.cost).toEqual({ usd: 0.00125, checks: [undefined, 0.0004], unpriced: 1 });
      expect(got!.cached).toBe(true);
      expect(got!.finishedAt).toBe('2026-01-02T03:04:05.000Z');
      expect(got!.outcomes).toEqual([E, F]);
      expect(await store.samples.get(run.id, 0, 0)).toBeUndefined();
    });

    it("round-trips a grounding check's claims per column, holes and U+0000 included", async () => {
      await using store = await make();
      const run = await store.runs.create(newRun());
      const claims = [
        { claim: 1, text: 'Opened routers can be returned within 60 days.', status: 'CONTRADICTED' as const, evidence: 'within 14 days \u0000 of purchase' },
        { claim: 3, text: 'It is waterproof.', status: 'UNSUPPORTED' as const },
      ];
      await store.samples.record(run.id, sample(0, 0, [F, P], { claims: [claims, undefined] }));
      await store.samples.record(run.id, sample(0, 1, [P, P]));
      expect((await store.samples.get(run.id, 0, 0))!.claims).toEqual([claims, undefined]);
      expect(await store.samples.get(run.id, 0, 1)).not.toHaveProperty('claims');
      expect((await store.samples.list(run.id)).map((s) => s.claims?.[0]?.length)).toEqual([2, undefined]);
    });

    it("round-trips an agent's trajectory: steps, tool calls with arguments, results, errors, U+0000 in a result", async () => {
      await using store = await make();
      const run = await store.runs.create(newRun());
      const trajectory: Trajectory = {
        steps: [
          {
            text: 'Let me look that up.',
            toolCalls: [
              {
                id: 'c1',
                name: 'lookup_order',
                arguments: { orderId: 'A1', deep: { n: [1, 2] } },
                result: { status: 'shipped', note: 'nul \u0000 😀' },
                durationMs: 3.5,
              },
              { name: 'refund', arguments: undefined, argumentsText: '{not json', error: 'arguments are not JSON' },
            ],
            usage: { promptTokens: 10, completionTokens: 4 },
            costUsd: 0.001,
            finishReason: 'tool-calls',
          },
          { text: 'It shipped.', toolCalls: [], messages: [{ role: 'assistant', content: 'It shipped.' }], finishReason: 'stop' },
        ],
        tools: [{ name: 'lookup_order', parameters: { type: 'object' } }, { name: 'refund' }],
        ended: 'final',
      };
      await store.samples.record(run.id, sample(0, 1, [P, F], { output: 'It shipped.', trajectory }));
      await store.samples.record(run.id, sample(1, 1, [P, P]));
      const got = (await store.samples.get(run.id, 0, 1))!;
      // JSON has no undefined: the arguments of a call whose arguments were not JSON come back absent.
      const { arguments: _gone, ...refund } = trajectory.steps[0].toolCalls[1];
      expect(got.trajectory).toEqual({
        ...trajectory,
        steps: [{ ...trajectory.steps[0], toolCalls: [trajectory.steps[0].toolCalls[0], refund] }, trajectory.steps[1]],
      });
      expect((await store.samples.list(run.id)).map((s) => s.trajectory !== undefined)).toEqual([true, false]);
      expect(await store.samples.get(run.id, 1, 1)).not.toHaveProperty('trajectory');
    });

    it('lists samples ordered by (i, j)', async () => {
      await using store = await make();
      const run = await store.runs.create(newRun());
      for (const [i, j] of [
        [1, 2],
        [0, 1],
        [1, 0],
        [0, 0],
      ] as const)
        await store.samples.record(run.id, sample(i, j, [P, P]));
      expect((await store.samples.list(run.id)).map((s) => [s.i, s.j])).toEqual([
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 2],
      ]);
    });

    it('leaves cost and cached out of a sample that had none', async () => {
      await using store = await make();
      const run = await store.runs.create(newRun());
      await store.samples.record(run.id, sample(0, 0, [P, P]));
      const got = await store.samples.get(run.id, 0, 0);
      expect(got).not.toHaveProperty('cost');
      expect(got).not.toHaveProperty('cached');
    });

    it('of several writes of one (i, j) at once, exactly one succeeds; the rest are DuplicateSampleErrors', async () => {
      await using store = await make();
      const run = await store.runs.create(newRun());
      const writes = await Promise.allSettled(
        Array.from({ length: 5 }, (_, n) => store.samples.record(run.id, sample(1, 1, [P, F], { output: `writer ${n}` }))),
      );
      expect(writes.filter((w) => w.status === 'fulfilled')).toHaveLength(1);
      for (const w of writes) if (w.status === 'rejected') expect(w.reason).toBeInstanceOf(DuplicateSampleError);
      expect((await store.samples.get(run.id, 1, 1))!.output).toBe(`writer ${writes.findIndex((w) => w.status === 'fulfilled')}`);
    });

    it('keeps any text a model may write, U+0000 and astral characters included', async () => {
      await using store = await make();
      const run = await store.runs.create(newRun({ inputs: ['nul \u0000 in an input', { q: 'é 😀' }] }));
      const odd = "a\u0000b — “quoted” \\ 'single' 😀 \u2028 end";
      await store.samples.record(run.id, sample(0, 0, [P, P], { output: odd, errors: [odd, undefined], reasons: [[odd], undefined] }));
      await store.samples.record(run.id, sample(0, 1, [E, E], { output: undefined, generationError: `failed: ${odd}` }));
      const got = await store.samples.get(run.id, 0, 0);
      expect(got!.output).toBe(odd);
      expect(got!.errors).toEqual([odd, undefined]);
      expect(got!.reasons).toEqual([[odd], undefined]);
      expect((await store.samples.get(run.id, 0, 1))!.generationError).toBe(`failed: ${odd}`);
      expect((await store.runs.get(run.id))!.inputs).toEqual(['nul \u0000 in an input', { q: 'é 😀' }]);
    });

    it('keeps runs apart', async () => {
      await using store = await make();
      const a = await store.runs.create(newRun());
      const b = await store.runs.create(newRun());
      expect(a.id).not.toBe(b.id);
      await store.samples.record(a.id, sample(0, 0, [F, F]));
      await store.samples.record(b.id, sample(0, 0, [P, P]));
      expect((await store.samples.tensor(a.id)).get(0, 0, 0)).toBe(F);
      expect((await store.samples.tensor(b.id)).get(0, 0, 0)).toBe(P);
    });
  });
}

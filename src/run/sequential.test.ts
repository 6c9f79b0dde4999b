import { describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { summarize } from '../core/summarize.js';
import type { Validator } from '../core/validator.js';
import type { SystemUnderTest } from '../providers/types.js';
import { MemoryStore } from '../store/memory.js';
import { runExperiment, validatorMeta, type RunPlan } from './runner.js';
import { SequentialStopRule } from './sequential.js';

/** An in-process system that answers at once (sample j of input i → "i:j") and counts its calls. */
function counting(): SystemUnderTest & { calls: number } {
  const s = {
    id: 'counting',
    calls: 0,
    generate: async (_input: unknown, o: { sample?: number; inputIndex?: number }) => {
      s.calls++;
      return { text: `${o.inputIndex}:${o.sample}`, latencyMs: 0 };
    },
  };
  return s;
}

// `always` passes every output (decided pass after 98 outputs = 49 rounds of 2 inputs); `half` fails every
// other sample (decided fail within a few rounds, then never checked again).
function plan(): { plan: RunPlan; checks: number[] } {
  const checks = [0, 0];
  const validators: Validator[] = [
    { name: 'always', message: '', minSuccess: 0.95, predicate: () => (checks[0]++, true) },
    { name: 'half', message: '', minSuccess: 0.95, predicate: (o) => (checks[1]++, Number(o.split(':')[1]) % 2 === 0) },
  ];
  return { plan: { name: 'seq', inputs: ['a', 'b'], samples: 200, validators }, checks };
}
const rule = (p: RunPlan) => new SequentialStopRule(p.validators.map(validatorMeta), 0.95);

describe('stopping: sequential in the runner', () => {
  it('stops checking a decided validator, and the run once every validator is decided', async () => {
    const { plan: p, checks } = plan();
    const system = counting();
    const store = new MemoryStore();
    const res = await runExperiment({ experiment: p, system, store, concurrency: 1, stopRules: [rule(p)] });
    expect(res.status).toBe('complete');
    expect(res.stopped).toMatchObject({
      rule: 'sequential',
      status: 'complete',
      message: 'every validator was decided by its confidence sequence after 49 of 200 samples per input',
    });
    expect(system.calls).toBe(98); // 49 rounds × 2 inputs instead of 400 outputs
    expect(checks[0]).toBe(98);
    expect(checks[1]).toBeLessThan(20);
    // The half validator's cells after its stop stay pending; the summary re-derives the same stop points.
    const s = summarize(res.tensor, res.run.validators, { stopping: 'sequential' });
    expect(s.validators.map((v) => [v.verdict, v.sequential!.reason])).toEqual([
      ['pass', 'lower-bound'],
      ['fail', 'upper-bound'],
    ]);
    expect(s.validators[0].sequential!.rounds).toBe(49);
    expect(s.validators[1].counts.pending).toBe(400 - checks[1]);
    expect(res.tensor.get(0, 48, 1)).toBe(Outcome.PENDING);
    expect(s.stoppedAfter).toBe(49);
  });

  it('survives resume: an interrupted run re-derives its decisions from the stored samples and ends where an uninterrupted one does', async () => {
    const { plan: p } = plan();
    const store = new MemoryStore();
    const ac = new AbortController();
    const first = await runExperiment({
      experiment: p,
      system: counting(),
      store,
      concurrency: 1,
      signal: ac.signal,
      stopRules: [rule(p)],
      onProgress: (pr) => {
        if (pr.done === 30) ac.abort();
      },
    });
    expect(first.status).toBe('interrupted');
    const stored = (await store.samples.list(first.run.id)).length;
    const { plan: again, checks } = plan();
    const system = counting();
    const second = await runExperiment({ experiment: again, system, store, runId: first.run.id, concurrency: 1, stopRules: [rule(again)] });
    expect(second.status).toBe('complete');
    expect(stored + system.calls).toBe(98);
    // The validator decided before the interruption is not checked again after the resume.
    expect(checks[1]).toBe(0);
    const s = summarize(second.tensor, second.run.validators, { stopping: 'sequential' });
    expect(s.validators.map((v) => v.sequential!.rounds)).toEqual([
      49,
      summarize(first.tensor, first.run.validators, { stopping: 'sequential' }).validators[1].sequential!.rounds,
    ]);
  });

  it('a resumed run that was already decided starts nothing', async () => {
    const { plan: p } = plan();
    const store = new MemoryStore();
    const first = await runExperiment({ experiment: p, system: counting(), store, concurrency: 2, stopRules: [rule(p)] });
    const system = counting();
    const again = await runExperiment({ experiment: p, system, store, runId: first.run.id, stopRules: [rule(p)] });
    expect(system.calls).toBe(0);
    expect(again.stopped?.rule).toBe('sequential');
  });
});

describe('SequentialStopRule and per-input floors', () => {
  it('refuses a column with perInput before anything runs (its exact tests need a fixed number of samples)', () => {
    expect(() => new SequentialStopRule([{ name: 'r', minSuccess: 0.9, perInput: { minSuccess: 0.8 } }], 0.95)).toThrow(
      /^expected no perInput with stopping: sequential, found a per-input floor \(validator "r"\): /,
    );
    expect(() => new SequentialStopRule([{ minSuccess: 0.9 }], 0.95)).not.toThrow();
  });
});

import { describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import type { Validator } from '../core/validator.js';
import type { SystemUnderTest } from '../providers/types.js';
import { MemoryStore } from '../store/memory.js';
import { runExperiment, type RunPlan } from './runner.js';

// Two runners resuming one run at once, sharing a store (two processes, or two workers): each sample is
// stored once; a runner whose sample was stored first by the other keeps that one and goes on.
describe('two runners on one run', () => {
  it('complete together: every cell once, the overlap counted as stored by others, statuses complete', async () => {
    const store = new MemoryStore();
    const validators: Validator[] = [{ name: 'short', message: 'm', minSuccess: 0.5, predicate: (o) => o.length < 10 }];
    const plan: RunPlan = { name: 'shared', inputs: ['a', 'b', 'c', 'd'], samples: 10, validators };
    let calls = 0;
    // Each runner's outputs carry its name, so the stored sample tells who won it.
    const system = (who: string): SystemUnderTest => ({
      id: 'sleepy',
      generate: async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 5));
        return { text: who, latencyMs: 5 };
      },
    });
    // The run record, interrupted before any sample (as a crash would leave it).
    const first = await runExperiment({ experiment: plan, system: system('seed'), store, signal: AbortSignal.abort() });
    expect(first.status).toBe('interrupted');
    const [a, b] = await Promise.all([
      runExperiment({ experiment: plan, system: system('A'), store, runId: first.run.id, concurrency: 3 }),
      runExperiment({ experiment: plan, system: system('B'), store, runId: first.run.id, concurrency: 3 }),
    ]);
    for (const r of [a, b]) {
      expect(r.status).toBe('complete');
      expect(Array.from(r.tensor.cells).every((c) => c === Outcome.PASS)).toBe(true);
    }
    const samples = await store.samples.list(first.run.id);
    expect(samples).toHaveLength(40);
    const won = { A: samples.filter((s) => s.output === 'A').length, B: samples.filter((s) => s.output === 'B').length };
    expect(won.A + won.B).toBe(40);
    // What each stored plus what it found stored by the other covers the run; the overlap was computed twice.
    expect(a.stats.samples).toBe(40);
    expect(b.stats.samples).toBe(40);
    expect(a.storedByOthers + b.storedByOthers).toBe(calls - 40);
    expect(a.storedByOthers + b.storedByOthers).toBeGreaterThan(0);
    expect((await store.runs.get(first.run.id))!.status).toBe('complete');
  });
});

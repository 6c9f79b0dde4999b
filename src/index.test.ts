import { describe, expect, it } from 'vitest';
import * as assay from './index.js';

// The package root is the typed library API: a user writes an experiment in code, runs it, and reads the statistics.
describe('public API (package root)', () => {
  it('runs an experiment in code end to end: simulated system, real predicate, memory store, summary and planner', async () => {
    const system = assay.createSystem(
      { simulated: { seed: 7, latencyMs: 0, outputs: [{ text: 'short answer', weight: 3 }, { text: 'a much longer answer than allowed', weight: 1 }] } },
      { baseDir: '.' },
    );
    const validators: assay.Validator[] = [
      { name: 'short', message: 'too long', minSuccess: 0.9, predicate: (o) => o.length <= 12 },
      { name: 'throws', message: 'never decides', minSuccess: 0.5, predicate: () => { throw new Error('boom'); } },
    ];
    const store = new assay.MemoryStore();
    const result = await assay.runExperiment({
      experiment: { name: 'api', inputs: ['a', 'b', 'c'], samples: 40, validators },
      system,
      store,
      concurrency: 4,
    });
    expect(result.status).toBe('complete');
    const summary = assay.summarize(result.tensor, result.run.validators, { verdict: 'confident' });
    const [short, throws] = summary.validators;
    expect(short.counts.pass + short.counts.fail).toBe(120);
    expect(short.counts.error).toBe(0);
    // true rate 0.75 (weights 3:1) against 0.9: the estimate lies within 4 standard errors, and the verdict fails
    expect(Math.abs(short.rate! - 0.75)).toBeLessThan(4 * Math.sqrt((0.75 * 0.25) / 120));
    expect(short.ci!.low).toBeLessThan(short.rate!);
    expect(short.ci!.high).toBeLessThan(0.9);
    expect(short.verdict).toBe('fail');
    // a predicate that throws is an error outcome on every cell, never a failure
    expect(throws.counts).toEqual({ pass: 0, fail: 0, error: 120, pending: 0 });
    expect(throws.rate).toBeNull();
    expect(throws.verdict).toBe('inconclusive');

    const plan = assay.planFromRates([short.rate!], 0.99);
    expect(plan.m).toBe(assay.minAttempts(short.rate!, 0.99));
    expect(1 - (1 - short.rate!) ** plan.m!).toBeGreaterThanOrEqual(0.99);
    await store.close();
  });

  it('exposes each area: statistics, store, sandbox, spade, grounding', () => {
    expect(assay.wilson(95, 100, 0.95)!.low).toBeCloseTo(0.8882, 4);
    expect(typeof assay.openSqliteStore).toBe('function');
    expect(typeof assay.createSandbox).toBe('function');
    expect(typeof assay.spade).toBe('object');
    expect(typeof assay.createGroundingEngine).toBe('function');
    expect(typeof assay.guard).toBe('function');
  });
});

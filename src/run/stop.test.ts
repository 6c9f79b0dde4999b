import { describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import type { ReliabilityTensor } from '../core/tensor.js';
import type { Validator } from '../core/validator.js';
import type { SystemUnderTest } from '../providers/types.js';
import { MemoryStore } from '../store/memory.js';
import type { SampleRecord } from '../store/types.js';
import { runExperiment, type RunPlan } from './runner.js';
import type { StopDecision, StopRule } from './stop.js';

/** An in-process system that answers at once and counts its calls. */
function counting(): SystemUnderTest & { calls: number } {
  const s = {
    id: 'counting',
    calls: 0,
    generate: async () => {
      s.calls++;
      return { text: 'ok', latencyMs: 0 };
    },
  };
  return s;
}

const validators: Validator[] = [
  { name: 'a', message: '', predicate: () => true, minSuccess: 0.9 },
  { name: 'b', message: '', predicate: () => true, minSuccess: 0.9 },
];
const plan = (samples: number): RunPlan => ({ name: 'stop', inputs: ['x', 'y'], samples, validators });

/** Stops once `after` samples were observed (new or resumed); records what it saw. */
class AfterN implements StopRule {
  readonly name = 'after-n';
  seen: { s: SampleRecord; resumed: boolean }[] = [];
  constructor(
    private after: number,
    private status: StopDecision['status'] = 'complete',
    private settledColumn?: number,
  ) {}
  observe(s: SampleRecord, t: ReliabilityTensor, resumed: boolean): void {
    // The tensor already holds the sample's cells when a rule sees it.
    expect(t.get(s.i, s.j, 0)).toBe(s.outcomes[0]);
    this.seen.push({ s, resumed });
  }
  check(): StopDecision | undefined {
    return this.seen.length >= this.after ? { rule: this.name, status: this.status, message: `stopped after ${this.after}` } : undefined;
  }
  settled(k: number): boolean {
    return k === this.settledColumn && this.seen.length >= 2;
  }
}

describe('stop rules', () => {
  it('a decision ends the schedule: in-flight samples are stored, nothing more is started, the run takes the rule’s status', async () => {
    const system = counting();
    const store = new MemoryStore();
    const rule = new AfterN(5);
    const res = await runExperiment({ experiment: plan(50), system, store, concurrency: 1, stopRules: [rule] });
    expect(res.status).toBe('complete');
    expect(res.stopped).toEqual({ rule: 'after-n', status: 'complete', message: 'stopped after 5' });
    expect(system.calls).toBe(5);
    expect(await store.samples.list(res.run.id)).toHaveLength(5);
    expect((await store.runs.get(res.run.id))?.status).toBe('complete');
    // Iteration-major: both inputs' sample 0, then sample 1, …
    expect(rule.seen.map(({ s }) => [s.i, s.j])).toEqual([
      [0, 0],
      [1, 0],
      [0, 1],
      [1, 1],
      [0, 2],
    ]);
  });

  it('an `interrupted` decision leaves a run that a resume continues; the rule sees stored samples first, marked resumed', async () => {
    const store = new MemoryStore();
    const first = await runExperiment({ experiment: plan(4), system: counting(), store, concurrency: 2, stopRules: [new AfterN(3, 'interrupted')] });
    expect(first.status).toBe('interrupted');
    const stored = (await store.samples.list(first.run.id)).length;
    expect(stored).toBeGreaterThanOrEqual(3);
    const rule = new AfterN(1000);
    const system = counting();
    const second = await runExperiment({ experiment: plan(4), system, store, runId: first.run.id, stopRules: [rule] });
    expect(second.status).toBe('complete');
    expect(second.stopped).toBeUndefined();
    expect(system.calls).toBe(8 - stored);
    expect(rule.seen.slice(0, stored).every((x) => x.resumed)).toBe(true);
    expect(rule.seen.slice(stored).every((x) => !x.resumed)).toBe(true);
  });

  it('a rule already decided by the stored samples starts nothing on resume', async () => {
    const store = new MemoryStore();
    const first = await runExperiment({ experiment: plan(10), system: counting(), store, concurrency: 1, stopRules: [new AfterN(4, 'interrupted')] });
    const system = counting();
    const again = await runExperiment({ experiment: plan(10), system, store, runId: first.run.id, stopRules: [new AfterN(4, 'interrupted')] });
    expect(system.calls).toBe(0);
    expect(again.status).toBe('interrupted');
    expect(again.stopped?.rule).toBe('after-n');
  });

  it('a settled column is not checked any more: its later cells stay pending', async () => {
    let checksOfB = 0;
    const vs: Validator[] = [validators[0], { name: 'b', message: '', predicate: () => (checksOfB++, true), minSuccess: 0.9 }];
    const res = await runExperiment({
      experiment: { ...plan(3), validators: vs },
      system: counting(),
      store: new MemoryStore(),
      concurrency: 1,
      stopRules: [new AfterN(1000, 'complete', 1)],
    });
    expect(res.status).toBe('complete');
    expect(checksOfB).toBe(2);
    const column = (k: number) => [0, 1, 2].flatMap((j) => [0, 1].map((i) => res.tensor.get(i, j, k)));
    expect(column(0).every((c) => c === Outcome.PASS)).toBe(true);
    expect(column(1)).toEqual([Outcome.PASS, Outcome.PASS, Outcome.PENDING, Outcome.PENDING, Outcome.PENDING, Outcome.PENDING]);
  });

  it('Ctrl-C wins over a rule: the run is interrupted, not stopped by the rule', async () => {
    const ac = new AbortController();
    let seen = 0;
    const rule: StopRule = {
      name: 'late',
      observe: () => {
        seen++;
        ac.abort();
      },
      check: () => (seen > 0 ? { rule: 'late', status: 'complete', message: '' } : undefined),
    };
    const res = await runExperiment({
      experiment: plan(10),
      system: counting(),
      store: new MemoryStore(),
      concurrency: 1,
      signal: ac.signal,
      stopRules: [rule],
    });
    expect(res.status).toBe('interrupted');
    expect(res.stopped).toBeUndefined();
  });
});

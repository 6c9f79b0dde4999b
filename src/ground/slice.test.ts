import { beforeAll, describe, expect, it } from 'vitest';
import { analyze } from './engine.js';
import type { KnowledgeBase } from './kb.js';
import { TimeSlicer } from './slice.js';
import { heaviestAnswer, syntheticKb } from './testing/heavy.js';

describe('TimeSlicer', () => {
  it('yields a macrotask turn once its slice is used up, and not before', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('other work'));
    const patient = new TimeSlicer(undefined, 60_000);
    await patient.checkIn();
    order.push('after a check-in with slice left');
    const eager = new TimeSlicer(undefined, 0);
    await eager.checkIn();
    order.push('after a check-in with the slice used up');
    expect(order).toEqual(['after a check-in with slice left', 'other work', 'after a check-in with the slice used up']);
    expect([patient.yields, eager.yields]).toEqual([0, 1]);
  });

  it('hands out one turn per event-loop iteration, so I/O is polled between any two slices', async () => {
    const order: string[] = [];
    const slicers = [0, 1, 2].map(() => new TimeSlicer(undefined, 0));
    const done = slicers.map(async (s, i) => {
      await s.checkIn();
      order.push(`slice ${i}`);
      // A timer set during the first slice is due when that slice ends: the next iteration's timers phase runs
      // it, before slice 1 (set it before any slice instead, and a loaded machine may fire it before slice 0).
      if (i === 0) setTimeout(() => order.push('timer'), 1);
      for (const t0 = performance.now(); performance.now() - t0 < 3;); // a slice of work
    });
    await Promise.all(done);
    expect(order).toEqual(['slice 0', 'timer', 'slice 1', 'slice 2']);
  });

  it("throws the signal's reason at the first check-in after an abort", async () => {
    const ctrl = new AbortController();
    const slicer = new TimeSlicer(ctrl.signal, 0);
    await slicer.checkIn();
    ctrl.abort(new Error('time limit'));
    await expect(slicer.checkIn()).rejects.toThrow('time limit');
  });
});

describe('analyze of the heaviest accepted request (100,000 characters, 200 claims)', () => {
  let kb: KnowledgeBase;
  const answer = heaviestAnswer();
  beforeAll(async () => {
    kb = await syntheticKb(40, 100);
  });

  it('lets other work run while it analyses', async () => {
    let turns = 0;
    let running = true;
    const spin = () => {
      turns++;
      if (running) setImmediate(spin);
    };
    setImmediate(spin);
    const report = await analyze(kb, { query: 'q', answer });
    running = false;
    expect(report.claims_analysis).toHaveLength(200);
    // Before time-slicing the analysis held the thread from start to end: no other turn ran in between.
    expect(turns).toBeGreaterThan(1);
  });

  it('stops at its next step when aborted mid-way, instead of running to the end', async () => {
    const ctrl = new AbortController();
    setImmediate(() => ctrl.abort(new Error('the time limit passed')));
    await expect(analyze(kb, { query: 'q', answer }, { sliceMs: 0 }, ctrl.signal)).rejects.toThrow('the time limit passed');
  });

  it('gives the same report whether it yields at every step or not', async () => {
    const a = await analyze(kb, { query: 'q', answer }, { sliceMs: 0 });
    const b = await analyze(kb, { query: 'q', answer }, { sliceMs: 60_000 });
    expect(a).toEqual(b);
  });
});

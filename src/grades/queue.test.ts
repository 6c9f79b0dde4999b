import { describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { ReliabilityTensor } from '../core/tensor.js';
import { writeGradedFixture } from './testing/fixture.js';
import { MemoryStore } from '../store/memory.js';
import { loadGrading } from './load.js';
import { defaultSeed, GRADING_DEFAULTS, gradingQueue, queueSettings } from './queue.js';

// 6 × 5 × 1: a quarter of the cells are errors or not run; the rest PASS or FAIL.
const t = new ReliabilityTensor(6, 5, 1);
for (let i = 0; i < 6; i++)
  for (let j = 0; j < 5; j++) t.set(i, j, 0, [Outcome.PASS, Outcome.FAIL, Outcome.PASS, Outcome.ERROR, Outcome.PASS, Outcome.PENDING][(i + j) % 6] as 1);
const decided = (i: number, j: number) => [Outcome.PASS, Outcome.FAIL].includes(t.get(i, j, 0) as 1 | 2);

describe('grading queue', () => {
  it('draws only outputs the rule decided, the same ones for the same seed, each with its probability', () => {
    const q = gradingQueue(t, 0, { count: 8, design: 'uniform', seed: 4 });
    const population = [...Array(30).keys()].filter((x) => decided(Math.floor(x / 5), x % 5)).length;
    expect(q.population).toBe(population);
    expect(q.items).toHaveLength(8);
    for (const it of q.items) {
      expect(decided(it.i, it.j)).toBe(true);
      expect(it.probability).toBeCloseTo(8 / population, 12);
      expect(it.design).toBe(q.design);
    }
    expect(new Set(q.items.map((it) => `${it.i},${it.j}`)).size).toBe(8);
    expect(gradingQueue(t, 0, { count: 8, design: 'uniform', seed: 4 })).toEqual(q);
    expect(gradingQueue(t, 0, { count: 8, design: 'uniform', seed: 5 }).items).not.toEqual(q.items);
    expect(gradingQueue(t, 0, { count: 100, design: 'stratified', seed: 4 }).items).toHaveLength(population);
  });

  it('draws each new batch from the outputs nobody graded yet', () => {
    const first = gradingQueue(t, 0, { count: 8, design: 'stratified', seed: 4 });
    const graded = first.items.slice(0, 5);
    const next = gradingQueue(t, 0, { count: 100, design: 'stratified', seed: 4, graded });
    expect(next.population).toBe(first.population - 5);
    expect(next.items).toHaveLength(first.population - 5);
    for (const g of graded) expect(next.items.some((it) => it.i === g.i && it.j === g.j)).toBe(false);
    // stratified: each verdict's picks carry that verdict's probability
    const byVerdict = new Map<boolean, Set<number>>();
    for (const it of first.items) {
      const v = t.get(it.i, it.j, 0) === Outcome.PASS;
      byVerdict.set(v, (byVerdict.get(v) ?? new Set()).add(it.probability));
    }
    expect([...byVerdict.values()].map((ps) => ps.size)).toEqual([1, 1]);
  });

  it('seeds by run and rule when no seed is given; one set of defaults for the CLI and the dashboard', () => {
    expect(defaultSeed('r1', 'polite')).toBe(defaultSeed('r1', 'polite'));
    expect(defaultSeed('r1', 'polite')).not.toBe(defaultSeed('r1', 'short'));
    expect(GRADING_DEFAULTS).toEqual({ count: 50, design: 'stratified', width: 0.1 });
    expect(queueSettings('r1', 'polite')).toEqual({ count: 50, design: 'stratified', seed: defaultSeed('r1', 'polite'), width: 0.1 });
    expect(queueSettings('r1', 'polite', { count: 5, design: 'uniform', seed: 0, width: 0.05 })).toEqual({ count: 5, design: 'uniform', seed: 0, width: 0.05 });
  });
});

describe('loadGrading', () => {
  it("combines a stored run's grades per rule and puts the judge's reasons beside each graded output, however many", async () => {
    const store = new MemoryStore();
    const run = await writeGradedFixture(store, { N: 30, M: 10, cell: (i, j) => ((i + j) % 3 ? Outcome.PASS : Outcome.FAIL) });
    expect(await loadGrading(store, run)).toBeUndefined();
    for (const many of [false, true]) {
      const cells = many ? [...Array(250).keys()] : [0, 1, 2];
      await store.grades.recordMany(
        run.id,
        cells.map((x) => ({ i: Math.floor(x / 10), j: x % 10, rule: 'polite', grade: 'fail' as const, grader: many ? 'bob' : 'ada' })),
      );
      const g = (await loadGrading(store, run))!;
      expect(g).toHaveLength(2);
      expect(g[0]).toEqual([]);
      expect(g[1][2]).toMatchObject({ i: 0, j: 2, person: false, reasons: ['judge says polite (0.2)'] });
      expect(g[1][0].reasons).toEqual(['judge says rude (0.0)']);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { allocate, gradesForWidth, suggestGrading } from './grading-sample.js';
import { correctedRate } from './ppi.js';
import { mulberry32 } from './prng.js';

/** n outputs, ids 0..n−1; the judge fails ids below `fail` and has no verdict (an error) for ids in `errors`. */
const outputs = (n: number, fail: number, errors: number[] = []) =>
  Array.from({ length: n }, (_, id) => ({ id, judge: errors.includes(id) ? null : id >= fail }));

describe('suggestGrading', () => {
  it('is reproducible: same seed, same picks; another seed, other picks; input order does not matter', () => {
    const o = outputs(200, 20);
    const a = suggestGrading(o, 30, { seed: 7, design: 'uniform' });
    expect(suggestGrading(o, 30, { seed: 7, design: 'uniform' })).toEqual(a);
    expect(suggestGrading(o.slice().reverse(), 30, { seed: 7, design: 'uniform' })).toEqual(a);
    expect(suggestGrading(o, 30, { seed: 8, design: 'uniform' }).picks.map((p) => p.id)).not.toEqual(a.picks.map((p) => p.id));
    expect(suggestGrading(o, 30, { seed: 7, design: 'stratified' })).toEqual(suggestGrading(o.slice().reverse(), 30, { seed: 7, design: 'stratified' }));
  });

  it('uniform: k distinct outputs, each with probability k/C; errors and excluded outputs are never picked', () => {
    const o = outputs(100, 10, [3, 50]);
    const exclude = new Set([0, 1, 2, 99]);
    const { picks, design } = suggestGrading(o, 24, { seed: 1, design: 'uniform', exclude });
    expect(design).toBe('uniform');
    expect(picks).toHaveLength(24);
    expect(new Set(picks.map((p) => p.id)).size).toBe(24);
    for (const p of picks) {
      expect(p.probability).toBeCloseTo(24 / 94, 12);
      expect([3, 50, 0, 1, 2, 99]).not.toContain(p.id);
    }
  });

  it('asking for more than there are gives every candidate with probability 1', () => {
    const { picks } = suggestGrading(outputs(5, 2), 10, { seed: 1, design: 'uniform' });
    expect(picks.map((p) => p.id).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(picks.every((p) => p.probability === 1)).toBe(true);
    expect(suggestGrading(outputs(5, 2), 0, { seed: 1, design: 'stratified' }).picks).toEqual([]);
    expect(suggestGrading([], 3, { seed: 1, design: 'uniform' }).picks).toEqual([]);
  });

  it('stratified: square-root allocation oversamples the rarer verdict, with each verdict’s probability', () => {
    // 1,900 PASS and 100 FAIL verdicts, 50 grades: 50·√100/(√1900 + √100) = 9.33 → 9 FAIL, 41 PASS.
    const { picks, design } = suggestGrading(outputs(2000, 100), 50, { seed: 3, design: 'stratified' });
    expect(design).toBe('stratified');
    const fail = picks.filter((p) => p.stratum === 'fail');
    const pass = picks.filter((p) => p.stratum === 'pass');
    expect([pass.length, fail.length]).toEqual([41, 9]);
    expect(fail.every((p) => p.id < 100 && p.probability === 9 / 100)).toBe(true);
    expect(pass.every((p) => p.id >= 100 && p.probability === 41 / 1900)).toBe(true);
    // Uniform grading would give 2.5 FAIL verdicts on average: the rare verdict is oversampled.
    expect(fail.length).toBeGreaterThan(50 * (100 / 2000) * 3);
    // The queue is shuffled, not all of one verdict first.
    expect(picks.slice(0, 10).some((p) => p.stratum === 'fail') || picks.slice(-10).some((p) => p.stratum === 'fail')).toBe(true);
    expect(picks.findIndex((p) => p.stratum === 'fail')).toBeGreaterThan(-1);
  });

  it('allocate: square root, at least one per verdict, a short verdict gives its rest to the other', () => {
    expect(allocate(50, 1900, 100)).toEqual([41, 9]);
    expect(allocate(30, 100, 100)).toEqual([15, 15]);
    expect(allocate(30, 1999, 1)).toEqual([29, 1]);
    expect(allocate(30, 12, 20)).toEqual([12, 18]);
    expect(allocate(30, 5, 20)).toEqual([5, 20]);
    expect(allocate(30, 0, 1000)).toEqual([0, 30]);
    expect(allocate(1, 10, 10)).toEqual([1, 0]);
    expect(allocate(3, 0, 0)).toEqual([0, 0]);
  });

  it('every output is drawn with its stated probability (seeded frequencies, tolerance 4 standard errors)', () => {
    const o = outputs(60, 6);
    const runs = 3000;
    for (const design of ['uniform', 'stratified'] as const) {
      const count = new Float64Array(60);
      const stated = new Float64Array(60);
      for (let r = 0; r < runs; r++)
        for (const p of suggestGrading(o, 12, { seed: r, design }).picks) {
          count[p.id]++;
          stated[p.id] = p.probability;
        }
      for (let id = 0; id < 60; id++) {
        const pi = stated[id];
        const se = Math.sqrt((pi * (1 - pi)) / runs);
        expect(Math.abs(count[id] / runs - pi)).toBeLessThan(4 * se);
      }
    }
  });

  it('batches with exclude never repeat an output', () => {
    const o = outputs(300, 30);
    const done = new Set<number>();
    for (let b = 0; b < 5; b++) {
      const { picks } = suggestGrading(o, 20, { seed: b, design: b % 2 ? 'uniform' : 'stratified', exclude: done });
      for (const p of picks) {
        expect(done.has(p.id)).toBe(false);
        done.add(p.id);
      }
    }
    expect(done.size).toBe(100);
  });

  it('bad input is refused', () => {
    expect(() => suggestGrading(outputs(5, 1), -1, { seed: 1, design: 'uniform' })).toThrow(/count must be a whole number/);
    expect(() => suggestGrading(outputs(5, 1), 2, { seed: 1.5, design: 'uniform' })).toThrow(/seed must be an integer/);
    expect(() => suggestGrading(outputs(5, 1), 2, { seed: 1, design: 'neyman' as never })).toThrow(/design must be "uniform" or "stratified"/);
    expect(() =>
      suggestGrading(
        [
          { id: 1, judge: true },
          { id: 1, judge: false },
        ],
        1,
        { seed: 1, design: 'uniform' },
      ),
    ).toThrow(/output id 1 appears twice/);
  });
});

describe('gradesForWidth (PPI power analysis)', () => {
  const judged = { pass: 1800, n: 2000 };
  it('a better judge needs fewer grades; no error rates is the conservative figure', () => {
    // True rate 0.9 in both: the good judge passes 0.9·0.98 + 0.1·0.1 = 89.2%, the poor one 0.9·0.9 + 0.1·0.4 = 85%.
    const good = gradesForWidth({ judged: { pass: 1784, n: 2000 }, tpr: 0.98, tnr: 0.9, width: 0.1, level: 0.95 });
    const poor = gradesForWidth({ judged: { pass: 1700, n: 2000 }, tpr: 0.9, tnr: 0.6, width: 0.1, level: 0.95 });
    const none = gradesForWidth({ judged: { pass: 1784, n: 2000 }, width: 0.1, level: 0.95 });
    expect(good).toBeLessThan(poor);
    expect(poor).toBeLessThan(none);
    // Without the judge (worst case ½ in each verdict) about the classical (2·1.96/0.1)²·¼ = 384.
    expect(none).toBeGreaterThan(300);
    expect(none).toBeLessThan(500);
  });

  it('near 1 the stratified design needs fewer grades than the uniform one (true rate 0.95, judge right 95%)', () => {
    const args = { judged: { pass: 1810, n: 2000 }, tpr: 0.95, tnr: 0.95, width: 0.05, level: 0.95 };
    expect(gradesForWidth({ ...args, design: 'stratified' })).toBeLessThan(0.8 * gradesForWidth(args)); // 155 against 220
  });

  it('narrower targets and higher levels need more grades; an unreachable width is Infinity', () => {
    const a = gradesForWidth({ judged, tpr: 0.95, tnr: 0.8, width: 0.1, level: 0.95 });
    expect(gradesForWidth({ judged, tpr: 0.95, tnr: 0.8, width: 0.05, level: 0.95 })).toBeGreaterThan(a);
    expect(gradesForWidth({ judged, tpr: 0.95, tnr: 0.8, width: 0.1, level: 0.99 })).toBeGreaterThan(a);
    expect(gradesForWidth({ judged: { pass: 18, n: 20 }, tpr: 0.95, tnr: 0.8, width: 0.001, level: 0.95 })).toBe(Infinity);
  });

  it('bad input is refused', () => {
    expect(() => gradesForWidth({ judged, tpr: 0.9, width: 0.1, level: 0.95 })).toThrow(/both tpr and tnr, or neither/);
    expect(() => gradesForWidth({ judged, width: 0, level: 0.95 })).toThrow(/width must be in \(0, 1\]/);
    expect(() => gradesForWidth({ judged: { pass: 3, n: 2 }, width: 0.1, level: 0.95 })).toThrow(/judged must be whole numbers/);
    expect(() => gradesForWidth({ judged, tpr: 1.2, tnr: 0.9, width: 0.1, level: 0.95 })).toThrow(/tpr must be in \[0, 1\]/);
  });

  /**
   * Seeded simulation: with the returned number of grades, the corrected interval's mean width is near the
   * target. Tolerance: within 20% of it (the figure is computed at expected counts; real grades scatter).
   */
  it('the returned number of grades gives about the target width', () => {
    for (const [p, fpr, fnr, width, design] of [
      [0.9, 0.05, 0.05, 0.08, 'uniform'],
      [0.95, 0.15, 0.05, 0.06, 'stratified'],
      [0.8, 0.3, 0.1, 0.1, 'uniform'],
    ] as const) {
      const N = 2000;
      const rand = mulberry32(Math.round(p * 1000 + width * 100));
      const runs = 150;
      let total = 0;
      let need = 0;
      for (let r = 0; r < runs; r++) {
        const truth = Array.from({ length: N }, () => rand() < p);
        const o = truth.map((good, id) => ({ id, judge: good ? rand() >= fnr : rand() < fpr }));
        const pass = o.filter((x) => x.judge).length;
        // The error rates a previous round of grading would have measured: here the true ones.
        need = gradesForWidth({ judged: { pass, n: N }, tpr: 1 - fnr, tnr: 1 - fpr, width, level: 0.95, design });
        const { picks } = suggestGrading(o, need, { seed: r, design });
        const c = correctedRate({
          judged: { pass, n: N },
          graded: picks.map((k) => ({ judge: o[k.id].judge, person: truth[k.id], probability: k.probability })),
          level: 0.95,
        })!;
        total += c.high - c.low;
      }
      const mean = total / runs;
      expect(need).toBeGreaterThan(10);
      expect(mean / width).toBeGreaterThan(0.8);
      expect(mean / width).toBeLessThan(1.2);
    }
  });
});

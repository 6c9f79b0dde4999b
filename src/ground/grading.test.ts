import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../core/prng.js';
import { auditedClaims, gradingOrder, groundingGrading, readClaimGrades, type AuditedClaim } from './grading.js';
import type { SupportStatus } from './types.js';

const claim = (answer: string, k: number, status: SupportStatus): AuditedClaim => ({ answer, claim: k, text: `claim ${answer}.${k}`, status });

describe('groundingGrading: the detector against people', () => {
  it('counts the confusion matrix with positive = supported, TPR/TNR with exact intervals and κ (reference values)', () => {
    // 10 claims: detector supported 6 (STRONG/WEAK), unsupported 4 (UNSUPPORTED/CONTRADICTED); all graded
    const statuses: SupportStatus[] = ['STRONG', 'STRONG', 'WEAK', 'STRONG', 'WEAK', 'STRONG', 'UNSUPPORTED', 'CONTRADICTED', 'UNSUPPORTED', 'UNSUPPORTED'];
    const person = [true, true, true, true, true, false, false, false, true, false];
    const claims = statuses.map((s, i) => claim('a', i + 1, s));
    const g = groundingGrading(
      claims,
      person.map((p, i) => ({ answer: 'a', claim: i + 1, supported: p })),
    );
    expect(g.alignment).toMatchObject({ n: 10, tp: 5, fp: 1, fn: 1, tn: 3, weighted: false });
    expect(g.alignment.tpr!.rate).toBeCloseTo(5 / 6, 10);
    expect(g.alignment.tnr!.rate).toBeCloseTo(3 / 4, 10);
    // Clopper–Pearson 95% for 5 of 6: [0.3588, 0.9958]
    expect(g.alignment.tpr!.low).toBeCloseTo(0.3588, 3);
    expect(g.alignment.tpr!.high).toBeCloseTo(0.9958, 3);
    // κ: po = 0.8, pe = 0.6·0.6 + 0.4·0.4 = 0.52 → (0.8 − 0.52)/(0.48) = 0.5833
    expect(g.alignment.kappa).toBeCloseTo(0.58333, 4);
    expect(g.unsupported_rate).toBeCloseTo(0.4, 10);
    // every claim graded: the corrected share is the people's own, 4 of 10 unsupported
    expect(g.corrected_unsupported_rate!.rate).toBeCloseTo(0.4, 10);
    expect(g.corrected_unsupported_rate!.low).toBeLessThan(0.4);
    expect(g.corrected_unsupported_rate!.high).toBeGreaterThan(0.4);
  });

  it('the corrected unsupported rate covers the true rate (seeded simulation, a detector that misses and over-flags)', () => {
    let covered = 0;
    let correctedSum = 0;
    let naiveSum = 0;
    const runs = 200;
    for (let r = 0; r < runs; r++) {
      const rnd = mulberry32(1000 + r);
      const claims: AuditedClaim[] = [];
      const truth: boolean[] = [];
      for (let i = 0; i < 400; i++) {
        const supported = rnd() < 0.7; // true unsupported rate 0.30
        // the detector: TPR 0.85 on supported claims, TNR 0.6 on unsupported ones
        const says = supported ? rnd() < 0.85 : rnd() >= 0.6;
        truth.push(supported);
        claims.push(claim(`a${i}`, 1, says ? 'STRONG' : 'UNSUPPORTED'));
      }
      const order = gradingOrder(claims, [], r);
      const grades = order.slice(0, 80).map((c) => ({ answer: c.answer, claim: 1, supported: truth[Number(c.answer.slice(1))] }));
      const g = groundingGrading(claims, grades);
      const c = g.corrected_unsupported_rate!;
      if (c.low <= 0.3 && 0.3 <= c.high) covered++;
      correctedSum += c.rate;
      naiveSum += g.unsupported_rate;
    }
    expect(covered / runs).toBeGreaterThanOrEqual(0.9);
    // the detector's own share is biased (0.7·0.15 + 0.3·0.6 = 0.285); the corrected one is not
    expect(Math.abs(naiveSum / runs - 0.285)).toBeLessThan(0.005);
    expect(Math.abs(correctedSum / runs - 0.3)).toBeLessThan(0.01);
  });

  it('a grade is refused for a claim not in the audits or whose text differs; a claim graded twice counts its last grade', () => {
    const claims = [claim('a', 1, 'STRONG'), claim('a', 2, 'UNSUPPORTED')];
    expect(() => groundingGrading(claims, [{ answer: 'a', claim: 3, supported: true }])).toThrow(/answer "a" has no claim 3 in the audits/);
    expect(() => groundingGrading(claims, [{ answer: 'a', claim: 1, supported: true, text: 'another claim' }])).toThrow(
      /claim 1 of answer "a" reads "claim a.1" in the audits, not "another claim"/,
    );
    const g = groundingGrading(claims, [
      { answer: 'a', claim: 1, supported: false },
      { answer: 'a', claim: 1, supported: true, text: 'claim a.1' },
    ]);
    expect(g.alignment).toMatchObject({ n: 1, tp: 1 });
  });

  it('the grading order is a seeded permutation without the claims already graded', () => {
    const claims = Array.from({ length: 20 }, (_, i) => claim('a', i + 1, 'STRONG'));
    const one = gradingOrder(claims, [], 7).map((c) => c.claim);
    expect(gradingOrder(claims, [], 7).map((c) => c.claim)).toEqual(one);
    expect([...one].sort((x, y) => x - y)).toEqual(claims.map((c) => c.claim));
    expect(one).not.toEqual(claims.map((c) => c.claim));
    expect(gradingOrder(claims, [{ answer: 'a', claim: one[0], supported: true }], 7).map((c) => c.claim)).toEqual(one.slice(1));
  });
});

describe('reading audits and grades', () => {
  const batch = {
    schema: 'assay-grounding-batch/1',
    results: [
      {
        id: 'returns',
        report: {
          claims_analysis: [
            { claim: 'A.', status: 'STRONG', evidence: { text: 'A.' } },
            { claim: 'B.', status: 'UNSUPPORTED', error: 'embedding failed' },
            { claim: 'C.', status: 'CONTRADICTED', evidence: null },
          ],
        },
      },
      { id: 7, error: 'could not be analysed' },
    ],
  };

  it('takes every decided claim of every analysed answer, by answer id and position', () => {
    expect(auditedClaims(batch, 'b.json')).toEqual([
      { answer: 'returns', claim: 1, text: 'A.', status: 'STRONG', evidence: 'A.' },
      { answer: 'returns', claim: 3, text: 'C.', status: 'CONTRADICTED' },
    ]);
    expect(() => auditedClaims({ schema: 'assay-run/1' }, 'b.json')).toThrow(/b\.json: expected the JSON of assay analyze --answers … --json/);
    expect(() => auditedClaims({ ...batch, results: [{ id: 'x', report: {} }] }, 'b.json')).toThrow(
      /field "results\[0\]\.report\.claims_analysis": expected an array/,
    );
  });

  it('reads grades as JSON Lines, naming the file, line and field of a bad one', () => {
    expect(
      readClaimGrades(
        '\uFEFF{"answer": "returns", "claim": 1, "supported": true}\n\n{"answer": 7, "claim": 2, "supported": false, "grader": "ann"}\n',
        'g.jsonl',
      ),
    ).toEqual([
      { answer: 'returns', claim: 1, supported: true },
      { answer: '7', claim: 2, supported: false, grader: 'ann' },
    ]);
    expect(() => readClaimGrades('{"answer": "a", "claim": 0, "supported": true}', 'g.jsonl')).toThrow(
      /g\.jsonl line 1 field "claim": expected the claim's position/,
    );
    expect(() => readClaimGrades('{"answer": "a", "claim": 1, "supported": "yes"}', 'g.jsonl')).toThrow(
      /line 1 field "supported": expected true or false, found "yes"/,
    );
    expect(() => readClaimGrades('ok\n{', 'g.jsonl')).toThrow(/g\.jsonl line 1: not valid JSON/);
  });
});

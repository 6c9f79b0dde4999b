import { describe, expect, it } from 'vitest';
import { evidenceDetails, unverifiedDetails, entities } from './claims/details.js';
import { aggregate, claimStatus, classifyRisk, classifySupport, confidenceScore, type ScoredClaim } from './score.js';

const T = { strong: 0.75, weak: 0.5 };
const claim = (support: number | null, unverified: string[] = [], evidence = true): ScoredClaim => ({
  claim: `claim ${support}`,
  support,
  evidence,
  unverified,
});

describe('design formulas (hand-computed)', () => {
  it('classifies support at the design thresholds', () => {
    expect(classifySupport(0.75, T)).toBe('STRONG');
    expect(classifySupport(0.7499, T)).toBe('WEAK');
    expect(classifySupport(0.5, T)).toBe('WEAK');
    expect(classifySupport(0.4999, T)).toBe('UNSUPPORTED');
    expect(classifySupport(0.3, { strong: 0.4, weak: 0.2 })).toBe('WEAK');
  });

  it('classifies risk: LOW ≥ 0.80, MEDIUM 0.60–0.79, HIGH < 0.60', () => {
    expect(classifyRisk(0.8)).toBe('LOW');
    expect(classifyRisk(0.7999)).toBe('MEDIUM');
    expect(classifyRisk(0.6)).toBe('MEDIUM');
    expect(classifyRisk(0.5999)).toBe('HIGH');
    expect(classifyRisk(confidenceScore(1, 0.5))).toBe('LOW'); // 0.6 + 0.2 = 0.8 despite floating point
  });

  it('computes coverage, avg_similarity and confidence = 0.6 × coverage + 0.4 × avg', () => {
    // supports 0.9 (STRONG), 0.6 (WEAK), 0.3 (UNSUPPORTED): coverage 2/3, avg 0.6, confidence 0.4 + 0.24 = 0.64
    const a = aggregate([claim(0.9), claim(0.6), claim(0.3)], { thresholds: T });
    expect(a.coverage).toBeCloseTo(2 / 3, 12);
    expect(a.avg_similarity).toBeCloseTo(0.6, 12);
    expect(a.confidence_score).toBeCloseTo(0.64, 12);
    expect(a.hallucination_risk).toBe('MEDIUM');
    expect(a.evidence_coverage).toBe('PARTIAL');
    expect(a.unsupported_claims).toEqual(['claim 0.3']);
    expect(a.hallucination_flag).toBe(false);
  });

  it('FULL coverage and LOW risk when every claim is supported: 0.6 + 0.4 × 0.85 = 0.94', () => {
    const a = aggregate([claim(0.8), claim(0.9)], { thresholds: T });
    expect(a.confidence_score).toBeCloseTo(0.94, 12);
    expect(a.hallucination_risk).toBe('LOW');
    expect(a.evidence_coverage).toBe('FULL');
  });

  it('unverified details make a claim unsupported when counted, and only listed when reported', () => {
    const claims = [claim(0.9, ['1999']), claim(0.8)];
    const counted = aggregate(claims, { thresholds: T });
    expect(counted.coverage).toBe(0.5);
    expect(counted.confidence_score).toBeCloseTo(0.6 * 0.5 + 0.4 * 0.85, 12);
    expect(counted.unsupported_claims).toEqual(['claim 0.9']);
    const reported = aggregate(claims, { thresholds: T, details: 'report' });
    expect(reported.coverage).toBe(1);
  });
});

describe('claimStatus: one function decides a claim status from similarity and details together', () => {
  const conflict = [{ claim: '60 days', evidence: '14 days' }];
  it('similar evidence stating a detail differently → CONTRADICTED, whatever the similarity band', () => {
    expect(claimStatus({ support: 0.9, unverified: [], conflicts: conflict }, T)).toBe('CONTRADICTED');
    expect(claimStatus({ support: 0.55, unverified: ['Boston'], conflicts: conflict }, T)).toBe('CONTRADICTED');
    expect(claimStatus({ support: 0.9, unverified: [], conflicts: conflict }, T, 'report')).toBe('CONTRADICTED');
  });
  it('dissimilar evidence is no contradiction: UNSUPPORTED; a missing detail → UNSUPPORTED when counted', () => {
    expect(claimStatus({ support: 0.3, unverified: [], conflicts: conflict }, T)).toBe('UNSUPPORTED');
    expect(claimStatus({ support: 0.9, unverified: ['1999'] }, T)).toBe('UNSUPPORTED');
    expect(claimStatus({ support: 0.9, unverified: ['1999'] }, T, 'report')).toBe('STRONG');
    expect(claimStatus({ support: 0.6, unverified: [], conflicts: [] }, T)).toBe('WEAK');
    expect(claimStatus({ support: 0.9, unverified: ['1999'], conflicts: conflict }, T, 'off')).toBe('STRONG');
    expect(claimStatus({ support: null, unverified: [] }, T)).toBe('UNSUPPORTED');
  });
  it('a contradicted claim counts as unsupported, and one alone makes the risk at least MEDIUM', () => {
    // nine well-supported claims and one contradicted: confidence 0.6 × 0.9 + 0.4 × 0.9 = 0.90 would be LOW
    const claims = [...Array.from({ length: 9 }, () => claim(0.9)), { ...claim(0.9), conflicts: conflict }];
    const a = aggregate(claims, { thresholds: T });
    expect(a.confidence_score).toBeCloseTo(0.9, 12);
    expect(classifyRisk(a.confidence_score)).toBe('LOW');
    expect(a.hallucination_risk).toBe('MEDIUM');
    expect([a.coverage, a.contradicted, a.evidence_coverage]).toEqual([0.9, 1, 'PARTIAL']);
    expect(a.statuses.filter((s) => s === 'CONTRADICTED')).toHaveLength(1);
    expect(a.unsupported_claims).toEqual(['claim 0.9']);
    // without the contradiction the same figures are LOW
    expect(aggregate(claims.slice(0, 9), { thresholds: T }).hallucination_risk).toBe('LOW');
  });
});

describe('design error table (aggregation level)', () => {
  it('no evidence retrieved → HIGH risk, whatever the numbers', () => {
    const a = aggregate([claim(0, [], false), claim(0, [], false)], { thresholds: { strong: 0, weak: 0 } });
    expect(a.no_evidence).toBe(true);
    expect(a.hallucination_risk).toBe('HIGH');
  });

  it('low similarity across all claims → hallucination flag', () => {
    expect(aggregate([claim(0.2), claim(0.45)], { thresholds: T }).hallucination_flag).toBe(true);
    expect(aggregate([claim(0.2), claim(0.55)], { thresholds: T }).hallucination_flag).toBe(false);
  });

  it('embedding failure → partial: failed claims are left out of every figure', () => {
    const a = aggregate([claim(0.9), { claim: 'x', support: null, evidence: false, unverified: [], error: 'boom' }], { thresholds: T });
    expect(a.partial).toBe(true);
    expect(a.scored).toBe(1);
    expect(a.coverage).toBe(1);
    expect(a.avg_similarity).toBeCloseTo(0.9, 12);
    expect(a.unsupported_claims).toEqual([]);
  });
});

describe('detail check', () => {
  it('flags numbers, dates and names absent from the evidence, compares numbers by value', () => {
    const ev = 'The museum was founded in 1866 with a gift of $150,000 from George Peabody in New Haven.';
    expect(unverifiedDetails('The museum was founded in 1866 with 150000 dollars.', ev)).toEqual([]);
    expect(unverifiedDetails('The museum was founded in 1867.', ev)).toEqual(['1867']);
    expect(unverifiedDetails('George Peabody founded it in Boston.', ev)).toEqual(['Boston']);
    expect(unverifiedDetails('It opened on 3 March 1866.', ev)).toEqual(['3 March 1866']); // a date is one detail
    expect(unverifiedDetails('Othniel Marsh visited New Haven.', ev)).toEqual(['Othniel Marsh']);
  });

  it('matches a name against its possessive form in the evidence, and reuses analysed evidence', () => {
    expect(unverifiedDetails('It was built in Boston.', "Boston's museum opened in 1870.")).toEqual([]);
    expect(unverifiedDetails('It was built in Boston.', 'The Bostonian museum opened in 1870.')).toEqual(['Boston']);
    expect(unverifiedDetails("It won the Presidents' Trophy.", "It won the President's Trophy.")).toEqual([]);
    const ev = evidenceDetails('The museum was founded in 1866 by George Peabody.');
    expect(unverifiedDetails('George Peabody founded it in 1867.', ev)).toEqual(['1867']);
    expect(unverifiedDetails('It was founded in 1866.', ev)).toEqual([]);
  });

  it('reads numbers as the evidence may write them: words, scales, year ranges', () => {
    expect(unverifiedDetails('Revenue rose 12% over 3 years.', 'Revenue rose twelve percent over three years.')).toEqual([]);
    expect(unverifiedDetails('The 9th grade has 66 pupils.', 'The ninth grade has sixty-six pupils.')).toEqual([]);
    expect(unverifiedDetails('The city has 2.1 million people.', 'The city has 2,100,000 people.')).toEqual([]);
    expect(unverifiedDetails('It changes in 2018–19.', 'It changes from 2018 to 2019.')).toEqual([]);
    expect(unverifiedDetails('It changes in 2018–19.', 'It changes in 2018.')).toEqual(['2018–19']); // a period, not one year of it
    expect(unverifiedDetails('It changes in 2018–20.', 'It changes from 2018 to 2019.')).toEqual(['2018–20']);
    expect(unverifiedDetails('Revenue rose 13%.', 'Revenue rose twelve percent.')).toEqual(['13%']);
  });

  it('checks "May" as a month only next to a number, and never lower-case month words', () => {
    const ev = 'The tower was completed on 31 March 1889.';
    expect(unverifiedDetails('The tower was completed in May 1889.', ev)).toEqual(['May 1889']);
    expect(unverifiedDetails('Tours run in May, guides say; crowds march up since 1889.', ev)).toEqual([]);
    expect(unverifiedDetails('It opened in Mar. 1889.', ev)).toEqual([]);
  });

  it('finds an acronym as the initials of a name in the evidence, and no name in "$3B"', () => {
    const ev = 'The World Health Organization counted 4.2 million deaths; revenue was $3 billion.';
    expect(unverifiedDetails('The WHO counted 4.2 million deaths.', ev)).toEqual([]);
    expect(unverifiedDetails('The IMF counted 4.2 million deaths.', ev)).toEqual(['IMF']);
    expect(unverifiedDetails('Revenue was $3B.', ev)).toEqual([]);
  });

  it('does not take sentence-initial common words for names', () => {
    expect(entities('The museum opened. However, Yale grew. NASA agreed.')).toEqual(['Yale', 'NASA']);
    expect(entities('New York City is large.')).toEqual(['New York City']);
  });
});

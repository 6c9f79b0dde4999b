import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeExitCode, answerOutcome, groundedOutcome, parseRisk, readAnswersFile, riskAtOrAbove } from './ci.js';
import type { ClaimAnalysis, GroundingReport, SupportStatus } from './types.js';

/** A report as the engine writes it, with the figures given (nothing is decided here). */
function report(o: { risk: GroundingReport['hallucination_risk']; statuses: SupportStatus[]; coverage: number; errors?: number }): GroundingReport {
  const claims: ClaimAnalysis[] = o.statuses.map((status, i) => ({ claim: `claim ${i}.`, support_score: 0.7, status, evidence: null }));
  for (let i = 0; i < (o.errors ?? 0); i++)
    claims.push({ claim: `broken ${i}.`, support_score: 0.5, status: 'UNSUPPORTED', evidence: null, error: 'judge down' });
  return {
    query: 'q',
    answer: 'a',
    confidence_score: 0.5,
    hallucination_risk: o.risk,
    evidence_coverage: 'PARTIAL',
    unsupported_claims: [],
    claims_analysis: claims,
    hallucination_flag: false,
    partial: (o.errors ?? 0) > 0,
    coverage: o.coverage,
  };
}

describe('risk levels', () => {
  it('orders LOW < MEDIUM < HIGH and reads flags in any case', () => {
    expect([riskAtOrAbove('LOW', 'MEDIUM'), riskAtOrAbove('MEDIUM', 'MEDIUM'), riskAtOrAbove('HIGH', 'MEDIUM'), riskAtOrAbove('LOW', 'LOW')]).toEqual([
      false,
      true,
      true,
      true,
    ]);
    expect(parseRisk('Medium', '--fail-on')).toBe('MEDIUM');
    expect(() => parseRisk('severe', '--fail-on')).toThrow('--fail-on: expected low, medium or high, found "severe"');
  });
});

describe('answerOutcome and the exit code of assay analyze', () => {
  it('fails at or above --fail-on; an analysis that did not happen, or a partial one below it, is an error, never a pass', () => {
    expect(answerOutcome(report({ risk: 'MEDIUM', statuses: ['WEAK'], coverage: 1 }), 'MEDIUM')).toBe('fail');
    expect(answerOutcome(report({ risk: 'LOW', statuses: ['STRONG'], coverage: 1 }), 'MEDIUM')).toBe('pass');
    expect(answerOutcome(report({ risk: 'LOW', statuses: ['STRONG'], coverage: 1, errors: 1 }), 'MEDIUM')).toBe('error');
    expect(answerOutcome(report({ risk: 'HIGH', statuses: ['UNSUPPORTED'], coverage: 0, errors: 1 }), 'MEDIUM')).toBe('fail');
    expect(answerOutcome(undefined, 'HIGH')).toBe('error');
    expect(answerOutcome(report({ risk: 'HIGH', statuses: ['UNSUPPORTED'], coverage: 0 }))).toBe('pass'); // no --fail-on: reports only
    expect([analyzeExitCode(['pass']), analyzeExitCode(['pass', 'error']), analyzeExitCode(['error', 'fail']), analyzeExitCode([])]).toEqual([0, 3, 1, 0]);
  });
});

describe('groundedOutcome (the grounded check)', () => {
  it('fails on each unmet criterion, with a reason for each', () => {
    const r = report({ risk: 'HIGH', statuses: ['STRONG', 'CONTRADICTED', 'UNSUPPORTED'], coverage: 1 / 3 });
    expect(groundedOutcome(r, { maxRisk: 'MEDIUM', minSupport: 0.5, noContradiction: true })).toEqual({
      outcome: 'fail',
      reasons: [
        '1 contradicted claim: "claim 1."',
        'risk HIGH (confidence 0.50) above maxRisk MEDIUM',
        '33.3% of the claims supported, below minSupport 50.0%',
      ],
    });
    expect(groundedOutcome(r, { maxRisk: 'HIGH' })).toEqual({ outcome: 'pass', reasons: [] });
    expect(groundedOutcome(r, { minSupport: 1 / 3 })).toEqual({ outcome: 'pass', reasons: [] }); // at the bound passes
    expect(groundedOutcome(r, { noContradiction: true }).outcome).toBe('fail');
    const medium = report({ risk: 'MEDIUM', statuses: ['STRONG', 'CONTRADICTED'], coverage: 0.5 });
    expect(groundedOutcome(medium, { maxRisk: 'MEDIUM' }).outcome).toBe('pass'); // maxRisk is the highest risk that passes
    expect(groundedOutcome(medium, { maxRisk: 'LOW' }).reasons).toEqual(['risk MEDIUM (confidence 0.50) above maxRisk LOW']);
  });

  it('a partial audit is an error, unless a contradiction already fails it (no other claim can undo that)', () => {
    const partial = report({ risk: 'LOW', statuses: ['STRONG'], coverage: 1, errors: 2 });
    expect(groundedOutcome(partial, { maxRisk: 'LOW' })).toEqual({
      outcome: 'error',
      reasons: ['2 of 3 claims could not be scored (judge down): the audit is partial'],
    });
    const badPartial = report({ risk: 'HIGH', statuses: ['CONTRADICTED'], coverage: 0, errors: 1 });
    expect(groundedOutcome(badPartial, { maxRisk: 'LOW' }).outcome).toBe('error'); // the risk could drop with the missing claim
    expect(groundedOutcome(badPartial, { maxRisk: 'LOW', noContradiction: true })).toEqual({ outcome: 'fail', reasons: ['1 contradicted claim: "claim 0."'] });
  });
});

describe('answers files: a size limit per answer (issue 30, item 2)', () => {
  it('refuses a 20 MB answer before extracting its claims, naming the line, the limit and its size', () => {
    const dir = mkdtempSync(join(tmpdir(), 'assay-answers-'));
    try {
      const file = join(dir, 'answers.jsonl');
      const big = 'The bridge opened in 1990. '.repeat(800_000);
      writeFileSync(file, `{"query": "q", "answer": "It opened in 1990."}\n${JSON.stringify({ query: 'q', answer: big })}\n`);
      expect(() => readAnswersFile(file, { generate: false })).toThrow(
        new RegExp(
          `answers\\.jsonl:2: answer: expected at most 100,000 characters \\(split a longer text into answers\\), found ${big.length.toLocaleString('en')}`,
        ),
      );
      writeFileSync(file, `${JSON.stringify({ query: 'q'.repeat(10_001), answer: 'It opened in 1990.' })}\n`);
      expect(() => readAnswersFile(file, { generate: false })).toThrow(/answers\.jsonl:1: query: expected at most 10,000 characters, found 10,001/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

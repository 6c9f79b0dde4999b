import type { GroundingReport } from '../../ground/types.js';
import type { AnswerResult, GroundingBatch } from '../grounding.js';

/**
 * Batches of `assay analyze --answers` results for the report tests: reports as the engine wrote them (a
 * supported, a contradicted and an unsupported claim), with the shapes a batch can take (partial reports,
 * answers that could not be analysed, claim checkers with and without usage and price, untrusted ids).
 */

const base = {
  coverage: 1,
  avg_similarity: 1,
  no_evidence: false,
  answer_generated: false,
  thresholds: { strong: 0.6, weak: 0.35 },
  embedder: 'lexical:v1:d384',
  top_k: 5,
};
const RETURNS = {
  chunk_id: 'docs/returns.md#0',
  source: 'docs/returns.md',
  text: 'Opened routers can be returned within 14 days of purchase with the receipt.',
};

export function supported(query = 'Can I return an opened router?'): GroundingReport {
  const claim = 'Opened routers can be returned within 14 days of purchase with the receipt.';
  return {
    query,
    answer: claim,
    confidence_score: 1,
    hallucination_risk: 'LOW',
    evidence_coverage: 'FULL',
    unsupported_claims: [],
    claims_analysis: [{ claim, support_score: 1, status: 'STRONG', evidence: { ...RETURNS, score: 1 }, unverified_details: [] }],
    hallucination_flag: false,
    partial: false,
    ...base,
  };
}

export function contradicted(query = 'How long do I have?'): GroundingReport {
  const claim = 'Opened routers can be returned within 60 days of purchase with the receipt.';
  return {
    query,
    answer: claim,
    confidence_score: 0.3451,
    hallucination_risk: 'HIGH',
    evidence_coverage: 'NONE',
    unsupported_claims: [claim],
    claims_analysis: [
      {
        claim,
        support_score: 0.8627,
        status: 'CONTRADICTED',
        evidence: { ...RETURNS, score: 0.8627 },
        unverified_details: [],
        contradicted_details: [{ claim: '60 days', evidence: '14 days' }],
      },
    ],
    hallucination_flag: false,
    partial: false,
    ...base,
    coverage: 0,
    avg_similarity: 0.8627,
  };
}

export function unsupported(query = 'Is the X200 waterproof?'): GroundingReport {
  const claim = 'The X200 is rated IP68 and survives an hour under water.';
  return {
    query,
    answer: `${claim} It also has <b>four</b> "ports" & more.`,
    confidence_score: 0.0991,
    hallucination_risk: 'MEDIUM',
    evidence_coverage: 'PARTIAL',
    unsupported_claims: [claim],
    claims_analysis: [
      {
        claim,
        support_score: 0.2477,
        status: 'UNSUPPORTED',
        evidence: { chunk_id: 'docs/x200.md#0', source: 'docs/x200.md', text: '# The X200 router', score: 0.2477 },
        unverified_details: ['IP68'],
      },
      { claim: 'It also has <b>four</b> "ports" & more.', support_score: 0.7, status: 'STRONG', evidence: null, error: 'embedding failed: 503' },
    ],
    hallucination_flag: true,
    partial: true,
    ...base,
    coverage: 0,
  };
}

const checked = (r: GroundingReport, checker: GroundingReport['checker']): GroundingReport => ({ ...r, checker });

/** Eight answers of every outcome, reason and shape, in input order. */
export function mixedResults(): AnswerResult[] {
  return [
    { id: 'returns', line: 1, query: 'Can I return an opened router?', outcome: 'pass', report: supported() },
    { id: 'sixty', line: 3, query: 'How long do I have?', outcome: 'fail', report: contradicted() },
    { id: 'line 4', line: 4, query: 'Is the X200 waterproof?', outcome: 'error', report: unsupported() },
    { id: 'down', line: 5, query: 'Are the routers down?', outcome: 'error', error: 'the LLM answered 503 Service Unavailable' },
    { id: 'gone', line: 6, query: 'q', outcome: 'error' },
    // Untrusted text in ids and queries: bidi controls, Markdown and XML specials, wide characters.
    {
      id: 'txt\u202Eexe.txt',
      line: 7,
      query: 'a | b <c> & "d"',
      outcome: 'fail',
      report: checked(contradicted('a | b <c>'), {
        id: 'judge',
        kind: 'llm',
        checked: 1,
        errors: 0,
        usage: { promptTokens: 120, completionTokens: 9 },
        cost_usd: 0.000123,
      }),
    },
    {
      id: '漢字の答え',
      line: 8,
      query: 'wide',
      outcome: 'pass',
      report: checked(supported('wide'), { id: 'judge', kind: 'llm', checked: 1, errors: 1, usage: { promptTokens: 1000, completionTokens: 20 } }),
    },
    {
      id: '42',
      line: 12,
      query: 'priced only',
      outcome: 'pass',
      report: checked(supported('priced only'), { id: 'nli', kind: 'nli', checked: 1, errors: 0, cost_usd: 0.5 }),
    },
  ];
}

/** The batches the golden reports were written from (src/report/testing/golden/). */
export function goldenBatches(): Record<string, GroundingBatch> {
  return {
    mixed: { kb: 'kb/support <x> & "y"', failOn: 'HIGH', results: mixedResults() },
    plain: { kb: 'kb', results: [{ id: 'answer', query: 'Can I return an opened router?', outcome: 'pass', report: supported() }] },
    errors: { kb: 'kb', failOn: 'MEDIUM', results: mixedResults().filter((r) => !r.report) },
  };
}

/** `n` results made one at a time (never held together): a pass, a fail, a partial error and a failed analysis in turn. */
export function* syntheticResults(n: number): Generator<AnswerResult> {
  for (let i = 0; i < n; i++) {
    const kind = i % 4;
    const id = `answer-${i}`;
    if (kind === 0) yield { id, line: i + 1, query: `q${i}`, outcome: 'pass', report: supported(`q${i}`) };
    else if (kind === 1) yield { id, line: i + 1, query: `q${i}`, outcome: 'fail', report: contradicted(`q${i}`) };
    else if (kind === 2) yield { id, line: i + 1, query: `q${i}`, outcome: 'error', report: unsupported(`q${i}`) };
    else yield { id, line: i + 1, query: `q${i}`, outcome: 'error', error: 'the LLM timed out' };
  }
}

import { GroundingRequestError, GroundingUnavailableError, type AnalyzeRequest, type GroundingEngine, type GroundingReport } from '../../ground/types.js';

/**
 * A small in-test grounding engine implementing the contract: claims are the answer's sentences, a claim is
 * STRONG when every word appears in the knowledge text. `delayMs` makes it slow (honouring the signal);
 * a query "throw" makes it throw, to exercise the HTTP layer's error paths.
 */
export function testEngine(knowledge: string, options: { delayMs?: number } = {}): GroundingEngine & { calls: number; aborted: number } {
  const words = new Set(knowledge.toLowerCase().match(/[a-z0-9]+/g) ?? []);
  const engine = {
    calls: 0,
    aborted: 0,
    async analyze(req: AnalyzeRequest, signal?: AbortSignal): Promise<GroundingReport> {
      engine.calls++;
      if (options.delayMs) {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, options.delayMs);
          signal?.addEventListener('abort', () => {
            clearTimeout(t);
            engine.aborted++;
            reject(signal.reason);
          });
        });
      }
      if (req.query === 'throw') throw new Error('engine exploded with user text: secret');
      if (req.query === 'unavailable') throw new GroundingUnavailableError('embedding failed for every claim (connection refused)');
      if (req.answer !== undefined && req.answer.trim() === '') throw new GroundingRequestError('the answer is empty', 422, 'answer');
      if (req.answer === undefined) throw new GroundingRequestError('no LLM is configured: give "answer" to audit one', 400, 'answer');
      const claims = req.answer.split(/(?<=\.)\s+/).filter(Boolean);
      const analysed = claims.map((claim) => {
        const ws = claim.toLowerCase().match(/[a-z0-9]+/g) ?? [];
        const score = ws.length ? ws.filter((w) => words.has(w)).length / ws.length : 0;
        const status = score >= 0.75 ? ('STRONG' as const) : score >= 0.5 ? ('WEAK' as const) : ('UNSUPPORTED' as const);
        return { claim, support_score: score, status, evidence: { chunk_id: 'kb#0', source: 'kb.txt', text: knowledge, score } };
      });
      const supported = analysed.filter((c) => c.status !== 'UNSUPPORTED').length;
      const coverage = claims.length ? supported / claims.length : 0;
      const avg = analysed.reduce((s, c) => s + c.support_score, 0) / Math.max(1, analysed.length);
      const confidence = 0.6 * coverage + 0.4 * avg;
      return {
        query: req.query,
        answer: req.answer,
        confidence_score: confidence,
        hallucination_risk: confidence >= 0.8 ? 'LOW' : confidence >= 0.6 ? 'MEDIUM' : 'HIGH',
        evidence_coverage: coverage === 1 ? 'FULL' : coverage > 0 ? 'PARTIAL' : 'NONE',
        unsupported_claims: analysed.filter((c) => c.status === 'UNSUPPORTED').map((c) => c.claim),
        claims_analysis: analysed,
        hallucination_flag: avg < 0.5,
        partial: false,
      };
    },
  };
  return engine;
}

import { GroundingUnavailableError } from './types.js';
import { applyChecker, type CheckEvidence } from './checkers/apply.js';
import type { ClaimChecker } from './checkers/types.js';
import { extractClaims } from './claims/claims.js';
import { checkDetails, evidenceDetails, type EvidenceDetails } from './claims/details.js';
import type { SearchHit } from './kb/index/flat.js';
import type { KnowledgeBase } from './kb/kb.js';
import { aggregate, type DetailMode, type ScoredClaim } from './score.js';
import {
  GroundingRequestError,
  MAX_ANSWER_CHARS,
  MAX_QUERY_CHARS,
  type AnalyzeRequest,
  type ClaimAnalysis,
  type EvidenceRef,
  type GroundingReport,
  type SupportThresholds,
} from './types.js';
import { pushAll } from '../core/arrays.js';
import { thrownMessage } from '../errors.js';

/** The design's "LLM Response Generator": one call, low temperature, no chaining. */
export interface AnswerGenerator {
  readonly id: string;
  generate(query: string, signal?: AbortSignal): Promise<string>;
}

/** The service could not do its work (LLM or embedder down); maps to HTTP 503, never to a verdict. */
export { GroundingUnavailableError } from './types.js';

export interface AnalyzeOptions {
  /** Default: the KB's calibrated thresholds, else the embedder's. */
  thresholds?: SupportThresholds;
  /** Numbers/dates/names check: 'count' (default) counts in coverage and risk, 'report' lists only, 'off'. */
  details?: DetailMode;
  /** Text the detail check looks in: the best window (sentence) or its whole chunk (default). */
  detailScope?: 'window' | 'chunk';
  /** Evidence chunks retrieved per claim (default 5). */
  topK?: number;
  /** Generates the answer of a query-only request. */
  llm?: AnswerGenerator;
  /** Upper bound on claims per answer (default 200): beyond it the request is rejected (400). */
  maxClaims?: number;
  /** Reads each claim against its evidence for meaning (an NLI model, an LLM judge); its verdict joins claimStatus. */
  checker?: ClaimChecker;
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;

function validate(request: AnalyzeRequest, options: AnalyzeOptions): { query: string; answer?: string; topK: number } {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) throw new GroundingRequestError('request body must be a JSON object', 400);
  const { query, answer, top_k } = request as unknown as Record<string, unknown>;
  if (typeof query !== 'string' || query.trim() === '') throw new GroundingRequestError('"query" must be a non-empty string', 400, 'query');
  if (answer !== undefined && answer !== null && typeof answer !== 'string')
    throw new GroundingRequestError('"answer" must be a string when given', 400, 'answer');
  if (query.length > MAX_QUERY_CHARS)
    throw new GroundingRequestError(`"query" must be at most ${MAX_QUERY_CHARS} characters, found ${query.length}`, 400, 'query');
  if (typeof answer === 'string' && answer.length > MAX_ANSWER_CHARS)
    throw new GroundingRequestError(`"answer" must be at most ${MAX_ANSWER_CHARS} characters (split a longer text), found ${answer.length}`, 400, 'answer');
  if (top_k !== undefined && !(typeof top_k === 'number' && Number.isInteger(top_k) && top_k >= 1 && top_k <= 50)) {
    throw new GroundingRequestError('"top_k" must be an integer from 1 to 50', 400, 'top_k');
  }
  return { query, answer: typeof answer === 'string' ? answer : undefined, topK: (top_k as number | undefined) ?? options.topK ?? 5 };
}

/** Characters of claims embedded per call (a remote embedder gets requests of bounded size). */
const EMBED_CHARS = 8_000;

/**
 * Embed claims in batches of about EMBED_CHARS characters (one batch for ordinary answers), stopping between
 * batches once aborted; a batch that fails is retried claim by claim, so one bad claim leaves a partial analysis.
 */
async function embedClaims(
  kb: KnowledgeBase,
  claims: string[],
  signal?: AbortSignal,
): Promise<{ vectors: (Float32Array | null)[]; errors: (string | undefined)[] }> {
  const vectors: (Float32Array | null)[] = [];
  const errors: (string | undefined)[] = [];
  for (let from = 0; from < claims.length;) {
    let to = from + 1;
    for (let chars = claims[from].length; to < claims.length && chars + claims[to].length <= EMBED_CHARS; to++) chars += claims[to].length;
    signal?.throwIfAborted();
    const batch = await embedBatch(kb, claims.slice(from, to), signal);
    pushAll(vectors, batch.vectors);
    pushAll(errors, batch.errors);
    from = to;
  }
  return { vectors, errors };
}

async function embedBatch(
  kb: KnowledgeBase,
  claims: string[],
  signal?: AbortSignal,
): Promise<{ vectors: (Float32Array | null)[]; errors: (string | undefined)[] }> {
  const d = kb.embedder.dimension;
  try {
    const m = await kb.embedder.embed(claims);
    if (m.length !== claims.length * d) throw new Error(`embedder returned ${m.length} values for ${claims.length} × ${d}`);
    return { vectors: claims.map((_, i) => m.subarray(i * d, (i + 1) * d)), errors: claims.map(() => undefined) };
  } catch {
    const vectors: (Float32Array | null)[] = [];
    const errors: (string | undefined)[] = [];
    for (const c of claims) {
      signal?.throwIfAborted();
      try {
        const v = await kb.embedder.embed([c]);
        if (v.length !== d) throw new Error(`embedder returned ${v.length} values, expected ${d}`);
        vectors.push(v);
        errors.push(undefined);
      } catch (err) {
        vectors.push(null);
        errors.push(`embedding failed: ${thrownMessage(err)}`);
      }
    }
    return { vectors, errors };
  }
}

interface Best {
  window: number;
  chunk: number;
  score: number;
}

/** Query rows × chunk rows scored per pass of the retrieval (~5 ms of dot products at 384 dimensions). */
const SCORES_PER_STEP = 60_000;

/**
 * Retrieve top-k chunks per claim (batched passes over the chunk index), then score the claim against
 * every window of those chunks (the window index, restricted to their window ranges).
 * Ties go to the window met first: best chunk first, then document order. Claims go in batches sized to
 * the KB, and the retrieval stops between batches once aborted.
 */
async function bestEvidence(kb: KnowledgeBase, vectors: Float32Array[], topK: number, signal?: AbortSignal): Promise<(Best | null)[]> {
  const d = kb.embedder.dimension;
  const batch = Math.max(1, Math.min(64, Math.floor(SCORES_PER_STEP / Math.max(1, kb.chunks.length))));
  const out: (Best | null)[] = [];
  for (let b0 = 0; b0 < vectors.length; b0 += batch) {
    signal?.throwIfAborted();
    const part = vectors.slice(b0, b0 + batch);
    const packed = new Float32Array(part.length * d);
    part.forEach((v, i) => packed.set(v, i * d));
    const hits = kb.retrieve(packed, topK);
    const ranges = hits.map((hs) => hs.flatMap((h) => kb.chunks[h.id].windows));
    const best = kb.windowIndex.bestInRanges(packed, ranges);
    best.forEach((b, i) => {
      if (!b) return out.push(null);
      // the first retrieved chunk that holds the window (overlapping chunks share windows)
      const chunk = hits[i].find((h) => b.id >= kb.chunks[h.id].windows[0] && b.id < kb.chunks[h.id].windows[1]) as SearchHit;
      out.push({ window: b.id, chunk: chunk.id, score: b.score });
    });
  }
  return out;
}

/**
 * Restatements agree (issue 27): a claim whose every detail the evidence states, some written otherwise ("two weeks"
 * for "14 days", "twelve" for "12"), is scored as the claim with its details written as the evidence writes them, so
 * the surface of a number or a unit does not lower the support of words the evidence holds. The higher of the two
 * cosines counts, against the same window; an embedding failure here keeps the claim's own score.
 */
async function scoreRestatements(
  kb: KnowledgeBase,
  scored: ScoredClaim[],
  restated: { index: number; text: string; window: number }[],
  signal?: AbortSignal,
): Promise<void> {
  if (restated.length === 0) return;
  signal?.throwIfAborted();
  const d = kb.embedder.dimension;
  let m: Float32Array;
  try {
    m = await kb.embedder.embed(restated.map((r) => r.text));
    if (m.length !== restated.length * d) return;
  } catch {
    return;
  }
  const rows = kb.windowVectors;
  restated.forEach((r, k) => {
    let dot = 0;
    for (let j = 0; j < d; j++) dot += m[k * d + j] * rows[r.window * d + j];
    const c = scored[r.index];
    if (c.support !== null && dot > c.support) c.support = Math.min(1, dot);
  });
}

/** Audit an answer (given, or generated for the query) against the knowledge base. */
export async function analyze(kb: KnowledgeBase, request: AnalyzeRequest, options: AnalyzeOptions = {}, signal?: AbortSignal): Promise<GroundingReport> {
  const { query, answer: given, topK } = validate(request, options);
  let answer = given;
  const generated = answer === undefined;
  if (answer === undefined) {
    if (!options.llm) {
      throw new GroundingRequestError(
        'the request has only "query" and no LLM is configured to generate the answer: send "answer" to audit it, or configure an LLM',
        400,
        'answer',
      );
    }
    try {
      answer = await options.llm.generate(query, signal);
    } catch (err) {
      throw new GroundingUnavailableError(`answer generation failed: ${thrownMessage(err)}`, { cause: err });
    }
  }
  if (generated && answer.length > MAX_ANSWER_CHARS)
    throw new GroundingRequestError(`the LLM's answer has ${answer.length} characters; at most ${MAX_ANSWER_CHARS} are analysed`, 422, 'answer');
  if (answer.trim() === '') throw new GroundingRequestError(generated ? 'the LLM returned an empty answer' : '"answer" is empty', 422, 'answer');
  const claims = extractClaims(answer);
  if (claims.length === 0) throw new GroundingRequestError('"answer" holds no claim to verify (no sentence with words or numbers)', 422, 'answer');
  const maxClaims = options.maxClaims ?? 200;
  if (claims.length > maxClaims)
    throw new GroundingRequestError(`"answer" has ${claims.length} claims; at most ${maxClaims} are analysed per request`, 400, 'answer');
  signal?.throwIfAborted();

  const thresholds = options.thresholds ?? kb.embedder.thresholds;
  const details = options.details ?? 'count';
  const { vectors, errors } = await embedClaims(kb, claims, signal);
  signal?.throwIfAborted();
  const ok = vectors.map((v, i) => (v ? i : -1)).filter((i) => i >= 0);
  if (ok.length === 0) throw new GroundingUnavailableError(`embedding failed for every claim (${errors[0]})`);
  const found = await bestEvidence(
    kb,
    ok.map((i) => vectors[i] as Float32Array),
    topK,
    signal,
  );
  const bestOf = new Map(ok.map((claimIndex, j) => [claimIndex, found[j]]));

  const scored: ScoredClaim[] = [];
  const refs: (EvidenceRef | null)[] = [];
  const checkEvidence: (CheckEvidence | null)[] = [];
  // Claims of one answer often share their best evidence: analyse each evidence text once.
  const evidenceCache = new Map<string, EvidenceDetails>();
  const detailsOf = (text: string) => {
    let e = evidenceCache.get(text);
    if (!e) evidenceCache.set(text, (e = evidenceDetails(text)));
    return e;
  };
  const restated: { index: number; text: string; window: number }[] = [];
  for (const [i, claim] of claims.entries()) {
    signal?.throwIfAborted();
    if (!vectors[i]) {
      scored.push({ claim, support: null, evidence: false, unverified: [], error: errors[i] });
      refs.push(null);
      checkEvidence.push(null);
      continue;
    }
    const best = bestOf.get(i) ?? null;
    // A cosine ≤ 0 shares nothing with the claim: treat it as no evidence retrieved.
    const has = best !== null && best.score > 0;
    const support = has ? Math.min(1, best.score) : 0;
    const ref = has
      ? { chunk_id: kb.chunks[best.chunk].id, source: kb.documents[kb.chunks[best.chunk].doc].source, text: kb.windowText(best.window), score: round(support) }
      : null;
    const scope = has ? (options.detailScope === 'window' ? ref!.text : kb.chunkText(best.chunk)) : '';
    const check = details === 'off' ? { missing: [], conflicts: [] } : checkDetails(claim, detailsOf(scope), { restate: true });
    if (check.restated !== undefined) restated.push({ index: scored.length, text: check.restated, window: best!.window });
    scored.push({ claim, support, evidence: has, unverified: check.missing, conflicts: check.conflicts });
    refs.push(ref);
    checkEvidence.push(has ? { window: ref!.text, chunk: kb.chunkText(best.chunk) } : null);
  }

  await scoreRestatements(kb, scored, restated, signal);
  // The similarity shown stays the claim's, also for a claim the checker could not check (an error claim).
  const shownSupport = scored.map((c) => c.support ?? 0);
  const checked = options.checker ? await applyChecker(options.checker, scored, checkEvidence, query, { thresholds, details, signal }) : undefined;
  signal?.throwIfAborted();
  const agg = aggregate(scored, { thresholds, details });
  const claims_analysis: ClaimAnalysis[] = scored.map((c, i) => {
    const status = agg.statuses[i];
    const a: ClaimAnalysis = { claim: c.claim, support_score: round(shownSupport[i]), status, evidence: refs[i] };
    const verdict = checked?.checks[i];
    if (verdict && !('error' in verdict))
      a.check = {
        verdict: verdict.verdict,
        ...(verdict.score !== undefined ? { score: round(verdict.score) } : {}),
        ...(verdict.reasons?.length ? { reasons: verdict.reasons } : {}),
      };
    const conflicts = c.conflicts ?? [];
    // A contradiction is shown as one; otherwise a differing detail is just one the evidence does not state.
    if (details !== 'off') a.unverified_details = status === 'CONTRADICTED' ? c.unverified : [...new Set([...c.unverified, ...conflicts.map((x) => x.claim)])];
    if (status === 'CONTRADICTED') a.contradicted_details = conflicts;
    if (c.error) a.error = c.error;
    return a;
  });
  return {
    query,
    answer,
    confidence_score: round(agg.confidence_score),
    hallucination_risk: agg.hallucination_risk,
    evidence_coverage: agg.evidence_coverage,
    unsupported_claims: agg.unsupported_claims,
    claims_analysis,
    hallucination_flag: agg.hallucination_flag,
    partial: agg.partial,
    coverage: round(agg.coverage),
    avg_similarity: round(agg.avg_similarity),
    no_evidence: agg.no_evidence,
    answer_generated: generated,
    thresholds,
    embedder: kb.embedder.id,
    top_k: topK,
    ...(checked ? { checker: checked.summary } : {}),
  };
}

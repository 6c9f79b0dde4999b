import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAI, type MockOpenAI } from '../mock/openai.js';
import { createLexicalEmbedder } from './embedders/lexical.js';
import type { KbEmbedder } from './embedders/spec.js';
import { analyze, GroundingUnavailableError } from './engine.js';
import { knowledgeBaseFromTexts, type KnowledgeBase } from './kb/kb.js';
import { createOpenAIAnswerGenerator } from './llm.js';
import { GroundingRequestError } from './types.js';

const CORPUS = [
  { source: 'eiffel.txt', text: 'The Eiffel Tower was completed in 1889. It stands in Paris, on the Champ de Mars. Gustave Eiffel designed it.' },
  { source: 'plants.txt', text: 'Photosynthesis converts light energy into chemical energy. Chlorophyll absorbs red and blue light.' },
];

let kb: KnowledgeBase;
let mock: MockOpenAI;
beforeAll(async () => {
  kb = await knowledgeBaseFromTexts(CORPUS, createLexicalEmbedder());
  mock = await startMockOpenAI({
    chat: (body) => {
      const q = String(body.messages.at(-1)?.content);
      if (q.includes('fail')) return { status: 500 };
      return q.includes('empty') ? { content: '' } : { content: 'The Eiffel Tower was completed in 1889.' };
    },
  });
});
afterAll(() => mock.close());

describe('analyze', () => {
  it('scores each claim against its best evidence and traces it to chunk and source', async () => {
    const r = await analyze(kb, {
      query: 'Tell me about the tower',
      answer: 'The Eiffel Tower was completed in 1889. Chlorophyll absorbs red and blue light.',
    });
    expect(r.claims_analysis.map((c) => c.claim)).toEqual(['The Eiffel Tower was completed in 1889.', 'Chlorophyll absorbs red and blue light.']);
    const [a, b] = r.claims_analysis;
    expect(a.evidence).toMatchObject({ chunk_id: 'eiffel.txt#0', source: 'eiffel.txt', text: 'The Eiffel Tower was completed in 1889.' });
    expect(b.evidence?.source).toBe('plants.txt');
    expect(a.support_score).toBeCloseTo(1, 3); // verbatim sentence
    expect(a.status).toBe('STRONG');
    expect(r.evidence_coverage).toBe('FULL');
    expect(r.hallucination_risk).toBe('LOW');
    expect(r.confidence_score).toBeCloseTo(0.6 + 0.4 * ((a.support_score + b.support_score) / 2), 3);
  });

  it('marks a claim whose year differs from its evidence CONTRADICTED, and counts it in the risk', async () => {
    const r = await analyze(kb, { query: 'q', answer: 'The Eiffel Tower was completed in 1899.' });
    expect(r.claims_analysis[0].status).toBe('CONTRADICTED');
    expect(r.claims_analysis[0].contradicted_details).toEqual([{ claim: '1899', evidence: '1889' }]);
    expect(r.claims_analysis[0].unverified_details).toEqual([]);
    expect(r.unsupported_claims).toEqual(['The Eiffel Tower was completed in 1899.']);
    expect(r.evidence_coverage).toBe('NONE');
    // 'report' lists details the evidence leaves out without counting them, but a contradiction still decides
    const reported = await analyze(kb, { query: 'q', answer: 'The Eiffel Tower was completed in 1899.' }, { details: 'report' });
    expect(reported.claims_analysis[0].status).toBe('CONTRADICTED');
    const off = await analyze(kb, { query: 'q', answer: 'The Eiffel Tower was completed in 1899.' }, { details: 'off' });
    expect([off.claims_analysis[0].status, off.evidence_coverage]).toEqual(['STRONG', 'FULL']);
  });

  it('issue reproducers: 60 days against 14 days (was STRONG), five minutes against two minutes (was WEAK, LOW, FULL)', async () => {
    const shop = await knowledgeBaseFromTexts(
      [
        {
          source: 'returns.md',
          text: 'Opened routers can be returned within 14 days of purchase. Unopened routers within 30 days. After an update the router reboots in two minutes. The X200 router supports 5G.',
        },
      ],
      createLexicalEmbedder(),
    );
    const days = await analyze(shop, { query: 'q', answer: 'Opened routers can be returned within 60 days of purchase.' });
    expect(days.claims_analysis[0]).toMatchObject({ status: 'CONTRADICTED', contradicted_details: [{ claim: '60 days', evidence: '14 days' }] });
    expect(days.claims_analysis[0].support_score).toBeGreaterThan(0.6); // similar evidence: it was STRONG before
    const words = await analyze(shop, { query: 'q', answer: 'The router reboots in about five minutes. The X200 router supports 5G.' });
    expect(words.claims_analysis.map((c) => c.status)).toEqual(['CONTRADICTED', 'STRONG']);
    expect(words.claims_analysis[0].contradicted_details).toEqual([{ claim: 'five minutes', evidence: 'two minutes' }]);
    expect(words.claims_analysis[1].unverified_details).toEqual([]); // no "X" or "5" out of X200 and 5G
    expect(words.hallucination_risk).not.toBe('LOW');
    expect(words.evidence_coverage).toBe('PARTIAL');
    expect(words.unsupported_claims).toEqual(['The router reboots in about five minutes.']);
  });

  it('a detail the evidence does not mention makes a claim UNSUPPORTED in count mode, and is only listed in report mode', async () => {
    const answer = 'The Eiffel Tower was completed in 1889 by Napoleon.';
    const r = await analyze(kb, { query: 'q', answer });
    expect([r.claims_analysis[0].status, r.claims_analysis[0].unverified_details]).toEqual(['UNSUPPORTED', ['Napoleon']]);
    expect(r.claims_analysis[0].contradicted_details).toBeUndefined();
    const reported = await analyze(kb, { query: 'q', answer }, { details: 'report' });
    expect(reported.claims_analysis[0].status).not.toMatch(/UNSUPPORTED|CONTRADICTED/);
    expect(reported.claims_analysis[0].unverified_details).toEqual(['Napoleon']);
  });

  it('respects top_k and the thresholds it is given', async () => {
    const r = await analyze(kb, { query: 'q', answer: 'Chlorophyll absorbs red light.', top_k: 1 }, { thresholds: { strong: 0.99, weak: 0.98 } });
    expect(r.top_k).toBe(1);
    expect(r.claims_analysis[0].status).toBe('UNSUPPORTED');
  });
});

describe('analyze against a brute-force reference', () => {
  it('finds the same evidence and score as naive top-k retrieval and a naive window scan', async () => {
    // 60 documents of shuffled sentences over a small vocabulary: many near matches, many chunks.
    let seed = 77;
    const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296;
    const vocab = Array.from({ length: 300 }, (_, i) => `w${i.toString(36)}x`);
    const sentence = () => Array.from({ length: 6 + Math.floor(rnd() * 10) }, () => vocab[Math.floor(rnd() * rnd() * vocab.length)]).join(' ') + '.';
    const docs = Array.from({ length: 60 }, (_, i) => ({ source: `d${i}.txt`, text: Array.from({ length: 160 }, sentence).join(' ') }));
    const big = await knowledgeBaseFromTexts(docs, createLexicalEmbedder());
    const claims = [...Array.from({ length: 6 }, () => big.windowText(Math.floor(rnd() * big.windowCount))), ...Array.from({ length: 6 }, sentence)];
    const report = await analyze(big, { query: 'q', answer: claims.join(' ') }, { details: 'off' });
    const d = big.embedder.dimension;
    const q = await big.embedder.embed(report.claims_analysis.map((c) => c.claim));
    const cv = big.chunkVectors;
    const wv = big.windowVectors;
    const dot = (qi: number, m: Float32Array, row: number) => {
      let s = 0;
      for (let j = 0; j < d; j++) s += q[qi * d + j] * m[row * d + j];
      return s;
    };
    report.claims_analysis.forEach((c, i) => {
      const top = Array.from({ length: big.chunks.length }, (_, id) => ({ id, s: dot(i, cv, id) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 5);
      let best = { w: -1, chunk: -1, s: -Infinity };
      for (const h of top)
        for (let w = big.chunks[h.id].windows[0]; w < big.chunks[h.id].windows[1]; w++) if (dot(i, wv, w) > best.s) best = { w, chunk: h.id, s: dot(i, wv, w) };
      expect(c.evidence?.chunk_id, c.claim).toBe(big.chunks[best.chunk].id);
      expect(c.evidence?.text).toBe(big.windowText(best.w));
      expect(c.support_score).toBeCloseTo(Math.min(1, best.s), 4);
    });
  });
});

describe('design error table (engine level)', () => {
  it('no evidence retrieved → HIGH risk', async () => {
    const empty = await knowledgeBaseFromTexts([], createLexicalEmbedder());
    const r = await analyze(empty, { query: 'q', answer: 'The Eiffel Tower was completed in 1889.' });
    expect(r.no_evidence).toBe(true);
    expect(r.hallucination_risk).toBe('HIGH');
    expect(r.claims_analysis[0].evidence).toBeNull();
  });

  it('empty answer → 422', async () => {
    for (const answer of ['', '   \n ', '## heading only\n']) {
      const err = await analyze(kb, { query: 'q', answer }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GroundingRequestError);
      expect((err as GroundingRequestError).status).toBe(422);
      expect((err as GroundingRequestError).field).toBe('answer');
    }
  });

  it('embedding failure → partial analysis, marked partial, failed claims carry the error', async () => {
    const flaky: KbEmbedder = Object.create(kb.embedder);
    flaky.embed = async (texts: string[]) => {
      if (texts.some((t) => t.includes('Chlorophyll'))) throw new Error('embedding service down');
      return kb.embedder.embed(texts);
    };
    const broken = Object.assign(Object.create(Object.getPrototypeOf(kb)), kb, { embedder: flaky }) as KnowledgeBase;
    const r = await analyze(broken, { query: 'q', answer: 'The Eiffel Tower was completed in 1889. Chlorophyll absorbs red and blue light.' });
    expect(r.partial).toBe(true);
    expect(r.claims_analysis[1].error).toMatch(/embedding service down/);
    expect(r.unsupported_claims).toEqual([]);
    expect(r.evidence_coverage).toBe('FULL');
    flaky.embed = async () => {
      throw new Error('all down');
    };
    await expect(analyze(broken, { query: 'q', answer: 'One claim.' })).rejects.toBeInstanceOf(GroundingUnavailableError);
  });

  it('low similarity across all claims → hallucination flag', async () => {
    const r = await analyze(kb, { query: 'q', answer: 'Quantum chromodynamics governs quarks. Submarines dive under ice.' });
    expect(r.hallucination_flag).toBe(true);
    expect(r.hallucination_risk).toBe('HIGH');
  });
});

describe('answer generation', () => {
  it('query-only without an LLM → 400 that says so', async () => {
    const err = (await analyze(kb, { query: 'When was the tower completed?' }).catch((e: unknown) => e)) as GroundingRequestError;
    expect(err).toBeInstanceOf(GroundingRequestError);
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/no LLM is configured/);
  });

  it('query-only with an LLM: one call at temperature ≤ 0.3, then the answer is audited', async () => {
    const before = mock.requests.length;
    const llm = createOpenAIAnswerGenerator({ baseURL: mock.baseURL, model: 'mock-chat', temperature: 0.9 });
    const r = await analyze(kb, { query: 'When was the tower completed?' }, { llm });
    const calls = mock.requests.slice(before);
    expect(calls.length).toBe(1);
    expect((calls[0].body as { temperature: number }).temperature).toBe(0.3);
    expect(r.answer).toBe('The Eiffel Tower was completed in 1889.');
    expect(r.answer_generated).toBe(true);
    expect(r.hallucination_risk).toBe('LOW');
    await expect(analyze(kb, { query: 'say empty' }, { llm })).rejects.toMatchObject({ status: 422 });
  });

  it('a failing LLM is one call and a 503 (unavailable), never retried behind the caller', async () => {
    const llm = createOpenAIAnswerGenerator({ baseURL: mock.baseURL, model: 'mock-chat' });
    const before = mock.requests.length;
    await expect(analyze(kb, { query: 'please fail' }, { llm })).rejects.toBeInstanceOf(GroundingUnavailableError);
    expect(mock.requests.length - before).toBe(1);
  });

  it('validates the request and names the field', async () => {
    const bad: [unknown, string][] = [
      [{ query: '' }, 'query'],
      [{ query: 3 }, 'query'],
      [{ query: 'q', answer: 5 }, 'answer'],
      [{ query: 'q', answer: 'x', top_k: 0 }, 'top_k'],
      [{ query: 'q', answer: 'x', top_k: 1.5 }, 'top_k'],
    ];
    for (const [req, field] of bad) {
      const err = (await analyze(kb, req as never).catch((e: unknown) => e)) as GroundingRequestError;
      expect(err.status).toBe(400);
      expect(err.field).toBe(field);
    }
  });
});

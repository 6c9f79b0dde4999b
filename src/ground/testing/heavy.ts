/**
 * Test and benchmark material for the service's worst case: a seeded synthetic knowledge base and the
 * heaviest request `/analyze` accepts (an answer of 100,000 characters holding 200 claims, the limits).
 */
import { mulberry32 } from '../../core/prng.js';
import { createLexicalEmbedder } from '../embedders/lexical.js';
import { knowledgeBaseFromTexts, type KnowledgeBase } from '../kb/kb.js';

export const MAX_ANSWER_CHARS = 100_000;
export const MAX_CLAIMS = 200;

/** Sentences over a made-up vocabulary (8–19 words and a year), deterministic for a seed. */
export function sentenceSource(seed: number): () => string {
  const rnd = mulberry32(seed);
  const syll = ['ka', 'lo', 'mi', 'ren', 'to', 'sa', 'vel', 'dor', 'an', 'is', 'ur', 'pe'];
  const vocab = Array.from({ length: 3000 }, (_, i) => {
    let w = '';
    for (let k = 0, n = 2 + (i % 3); k < n; k++) w += syll[Math.floor(rnd() * syll.length)];
    return w + i.toString(36);
  });
  return () => {
    const n = 8 + Math.floor(rnd() * 12);
    const ws = Array.from({ length: n }, () => vocab[Math.floor(Math.pow(rnd(), 2) * vocab.length)]);
    ws[0] = ws[0][0].toUpperCase() + ws[0].slice(1);
    return `${ws.join(' ')} in ${1800 + Math.floor(rnd() * 220)}.`;
  };
}

/** A lexical knowledge base of `docs` documents of `sentences` sentences each. */
export function syntheticKb(docs: number, sentences: number, seed = 7): Promise<KnowledgeBase> {
  const sentence = sentenceSource(seed);
  const texts = Array.from({ length: docs }, (_, i) => ({ source: `doc${i}.txt`, text: Array.from({ length: sentences }, sentence).join(' ') }));
  return knowledgeBaseFromTexts(texts, createLexicalEmbedder());
}

/** The heaviest accepted answer: 200 sentences of ~500 characters, 100,000 characters in all. */
export function heaviestAnswer(seed = 11): string {
  const sentence = sentenceSource(seed);
  const each = Math.floor(MAX_ANSWER_CHARS / MAX_CLAIMS);
  const claims = Array.from({ length: MAX_CLAIMS }, () => {
    let s = sentence().slice(0, -1);
    for (let next = s; next.length < each - 1; next += ', ' + sentence().slice(0, -1).toLowerCase()) s = next;
    return s.padEnd(each - 2, ' and so on').slice(0, each - 2) + '.';
  });
  return claims.join(' ');
}

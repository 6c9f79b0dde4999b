import { describe, expect, it } from 'vitest';
import { embedderContract } from './contract.case.js';
import { LexicalEmbedder, createLexicalEmbedder } from './lexical.js';

embedderContract('lexical', () => createLexicalEmbedder());
embedderContract('lexical (fitted)', () => createLexicalEmbedder().fit(['The Eiffel Tower is in Paris.', 'Light and energy.', 'Topics and numbers.']));

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

describe('lexical embedder', () => {
  const corpus = [
    'The Eiffel Tower was completed in 1889 and stands in Paris.',
    'Photosynthesis converts light energy into chemical energy in plants.',
    'The Great Wall of China is thousands of kilometres long.',
    'Paris is the capital and most populous city of France.',
  ];

  it('scores a paraphrase with shared words above an unrelated sentence', async () => {
    const e = createLexicalEmbedder().fit(corpus);
    const [claim, support, other] = [0, 1, 2];
    const m = await e.embed(['The Eiffel Tower stands in Paris.', corpus[0], corpus[1]]);
    const d = e.dimension;
    const row = (i: number) => m.subarray(i * d, (i + 1) * d);
    expect(cos(row(claim), row(support))).toBeGreaterThan(0.5);
    expect(cos(row(claim), row(other))).toBeLessThan(0.2);
  });

  it('gives rare words more weight after fitting (idf)', async () => {
    const docs = [...Array.from({ length: 20 }, (_, i) => `the city has a river number ${i}`), 'zanzibar'];
    const fitted = createLexicalEmbedder().fit(docs);
    const plain = createLexicalEmbedder();
    const probe = ['the city zanzibar', 'zanzibar'];
    const sim = async (e: LexicalEmbedder) => {
      const m = await e.embed(probe);
      return cos(m.subarray(0, e.dimension), m.subarray(e.dimension));
    };
    expect(await sim(fitted)).toBeGreaterThan(await sim(plain));
  });

  it('round-trips its IDF state byte for byte', async () => {
    const e = createLexicalEmbedder({ dimension: 64 }).fit(corpus);
    const back = LexicalEmbedder.fromState(e.state(), { dimension: 64 });
    const a = await e.embed(corpus);
    const b = await back.embed(corpus);
    expect(Array.from(b)).toEqual(Array.from(a));
    expect(() => LexicalEmbedder.fromState(e.state().subarray(0, 100))).toThrow(/bytes/);
  });

  it('returns a zero row for text without words, and records its settings in the spec', async () => {
    const e = createLexicalEmbedder({ dimension: 32 });
    const m = await e.embed(['!!! ...']);
    expect(Array.from(m).every((x) => x === 0)).toBe(true);
    expect(e.spec()).toMatchObject({ kind: 'lexical', id: 'lexical:v1:d32', dimension: 32 });
  });
});

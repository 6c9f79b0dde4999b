import { describe, expect, it } from 'vitest';
import type { Embedder } from '../types.js';

/**
 * The shared embedder contract: every adapter (lexical, transformers, openai) must pass it.
 * `make` is called once per test so adapters with state (servers, sessions) can be fresh.
 */
export function embedderContract(name: string, make: () => Promise<Embedder> | Embedder): void {
  const texts = ['The Eiffel Tower is in Paris.', 'Photosynthesis turns light into chemical energy.', 'The Eiffel Tower is in Paris.'];

  const rows = (m: Float32Array, d: number) => Array.from({ length: m.length / d }, (_, i) => m.subarray(i * d, (i + 1) * d));
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

  describe(`embedder contract: ${name}`, () => {
    it('has an id, a positive dimension and ordered thresholds in [0, 1]', async () => {
      const e = await make();
      expect(e.id.length).toBeGreaterThan(0);
      expect(Number.isInteger(e.dimension) && e.dimension > 0).toBe(true);
      expect(e.thresholds.weak).toBeGreaterThanOrEqual(0);
      expect(e.thresholds.strong).toBeGreaterThanOrEqual(e.thresholds.weak);
      expect(e.thresholds.strong).toBeLessThanOrEqual(1);
    });

    it('returns one L2-normalised row per text, packed row-major', async () => {
      const e = await make();
      const m = await e.embed(texts);
      expect(m).toBeInstanceOf(Float32Array);
      expect(m.length).toBe(texts.length * e.dimension);
      for (const r of rows(m, e.dimension)) {
        expect(r.every(Number.isFinite)).toBe(true);
        expect(Math.sqrt(dot(r, r))).toBeCloseTo(1, 4);
      }
    });

    it('is deterministic: equal texts give equal vectors, within and across calls', async () => {
      const e = await make();
      const a = rows(await e.embed(texts), e.dimension);
      expect(dot(a[0], a[2])).toBeCloseTo(1, 4);
      expect(dot(a[0], a[1])).toBeLessThan(0.999);
      const b = rows(await e.embed([texts[1]]), e.dimension);
      expect(dot(a[1], b[0])).toBeCloseTo(1, 4);
    });

    it('gives an empty matrix for no texts', async () => {
      const e = await make();
      const m = await e.embed([]);
      expect(m.length).toBe(0);
    });

    it('counts tokens with its own tokenizer: more text, more tokens', async () => {
      const e = await make();
      const short = e.countTokens('The tower is tall.');
      const long = e.countTokens('The tower is tall. It was built in 1889 for the World Fair in Paris, France.');
      expect(short).toBeGreaterThan(0);
      expect(long).toBeGreaterThan(short);
      expect(e.countTokens('')).toBe(0);
    });

    it('embeds a larger batch consistently with single calls', async () => {
      const e = await make();
      const many = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} about topic ${i % 7}.`);
      const m = rows(await e.embed(many), e.dimension);
      const one = rows(await e.embed([many[37]]), e.dimension);
      expect(dot(m[37], one[0])).toBeCloseTo(1, 4);
    });
  });
}

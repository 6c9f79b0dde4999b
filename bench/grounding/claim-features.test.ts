import { describe, expect, it } from 'vitest';
import { claimFeatures } from './claim-features.js';

const claim = 'The Sapphire Bridge over the Orvel river opened to traffic after eleven years of construction.';
const base = { claim, support: 0.5, claims: 1 };

describe('claimFeatures', () => {
  it('rises in evidence coverage as the evidence covers more of the claim', () => {
    const evidence = [
      'A ferry crossed the water.',
      'The Orvel river is crossed by a bridge.',
      'The Sapphire Bridge crosses the Orvel river.',
      'The Sapphire Bridge over the Orvel river opened to traffic.',
      'The Sapphire Bridge over the Orvel river opened to traffic after years of construction.',
      'After eleven years of construction, the Sapphire Bridge over the Orvel river opened to traffic.',
    ];
    const rows = evidence.map((e) => claimFeatures({ ...base, window: e, chunk: e }));
    for (let i = 1; i < rows.length; i++) {
      expect(rows[i].idf_coverage_window).toBeGreaterThan(rows[i - 1].idf_coverage_window);
      expect(rows[i].idf_coverage_chunk).toBeGreaterThan(rows[i - 1].idf_coverage_chunk);
      expect(rows[i].unmatched_words).toBeLessThan(rows[i - 1].unmatched_words);
      expect(rows[i].bigram_coverage_chunk).toBeGreaterThanOrEqual(rows[i - 1].bigram_coverage_chunk);
    }
    expect(rows[4].bigram_coverage_chunk).toBe(6 / 8); // traffic–eleven and eleven–years missing
    expect(rows[5].bigram_coverage_chunk).toBe(7 / 8); // traffic–eleven: not adjacent there
    expect(rows[5].idf_coverage_chunk).toBe(1);
  });

  it('weights coverage by idf: missing a rare word costs more than missing a common one', () => {
    const idf = (w: string) => (w === 'sapphire' ? 5 : 1);
    const noRare = claimFeatures({ ...base, window: 'The Bridge over the Orvel river opened to traffic after eleven years of construction.', chunk: '' }, idf);
    const noCommon = claimFeatures(
      { ...base, window: 'The Sapphire Bridge over the Orvel river opened to traffic after eleven years of work.', chunk: '' },
      idf,
    );
    expect(noRare.idf_coverage_window).toBeLessThan(noCommon.idf_coverage_window);
  });

  it('compares words by stem and sees a negation on one side only', () => {
    const f = claimFeatures({ ...base, claim: 'The bridges were not opened.', window: 'The bridge was opened.', chunk: 'The bridge was opened.' });
    expect(f.idf_coverage_window).toBe(1);
    expect(f.negation_mismatch).toBe(1);
    expect(claimFeatures({ ...base, claim: "It isn't open.", window: 'It is not open.', chunk: '' }).negation_mismatch).toBe(0);
  });

  it('records claim length, answer claims and missing details on log scales', () => {
    const f = claimFeatures({ ...base, window: '', chunk: '', claims: 4, missing: 2 });
    expect(f.answer_claims).toBeCloseTo(Math.log(4), 12);
    expect(f.missing_details).toBeCloseTo(Math.log(3), 12);
    expect(f.idf_coverage_window).toBe(0);
    expect(f.claim_words).toBeCloseTo(Math.log1p(9), 12); // sapphire bridge orvel river opened traffic eleven years construction
  });
});

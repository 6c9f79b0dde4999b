import { describe, expect, it } from 'vitest';
import { extractClaims, segmentClaimSpans } from './claims.js';

describe('extractClaims', () => {
  it('splits plain sentences and keeps the wording', () => {
    expect(extractClaims('Paris is the capital of France. It has 2.1 million inhabitants! Is it big?')).toEqual([
      'Paris is the capital of France.',
      'It has 2.1 million inhabitants!',
      'Is it big?',
    ]);
  });

  it('does not split after abbreviations, initials or inside decimals', () => {
    expect(
      extractClaims('Dr. Smith moved to the U.S. in 1999. Prices rose 3.5% vs. last year, e.g. bread. J. R. R. Tolkien wrote it.'),
    ).toEqual(['Dr. Smith moved to the U.S. in 1999.', 'Prices rose 3.5% vs. last year, e.g. bread.', 'J. R. R. Tolkien wrote it.']);
  });

  it('splits after "etc." when a new sentence starts, not before a lower-case word', () => {
    expect(extractClaims('It sells apples, pears, etc. The shop opened in 1990.')).toEqual([
      'It sells apples, pears, etc.',
      'The shop opened in 1990.',
    ]);
    expect(extractClaims('Approx. five people came, approx. ten left.')).toEqual(['Approx. five people came, approx. ten left.']);
  });

  it('keeps closing quotes and brackets with their sentence', () => {
    expect(extractClaims('He said "it works." Then he left. (This was in May.) Done.')).toEqual([
      'He said "it works."',
      'Then he left.',
      '(This was in May.)',
      'Done.',
    ]);
    expect(extractClaims('She asked "why?" and walked away.')).toEqual(['She asked "why?" and walked away.']);
  });

  it('treats list items as separate claims and strips only the marker', () => {
    const answer = 'Key facts:\n- The river is 300 km long\n- It flows into the sea.\n1. First item here\n2) Second item. With two sentences.';
    expect(extractClaims(answer)).toEqual([
      'Key facts:',
      'The river is 300 km long',
      'It flows into the sea.',
      'First item here',
      'Second item.',
      'With two sentences.',
    ]);
  });

  it('drops markdown headings, code fences, rules and table rules', () => {
    const answer = '# Title\n\nThe sky is blue.\n\n```\nconst x = 1.\n```\n---\n| a | b |\n|---|---|\n> Quoted fact here.';
    expect(extractClaims(answer)).toEqual(['The sky is blue.', '| a | b |', 'Quoted fact here.']);
  });

  it('joins wrapped lines of one paragraph and reports offsets into the original', () => {
    const answer = 'The bridge opened\nin 1932. It is long.';
    const spans = segmentClaimSpans(answer);
    expect(spans.map((s) => s.text)).toEqual(['The bridge opened\nin 1932.', 'It is long.']);
    for (const s of spans) expect(answer.slice(s.start, s.end)).toBe(s.text);
  });

  it('returns nothing for empty or punctuation-only answers', () => {
    expect(extractClaims('')).toEqual([]);
    expect(extractClaims('   \n\n ... !! ')).toEqual([]);
  });

  it('handles ellipses and a final sentence without a full stop', () => {
    expect(extractClaims('Wait… That was odd. No full stop here')).toEqual(['Wait…', 'That was odd.', 'No full stop here']);
  });
});

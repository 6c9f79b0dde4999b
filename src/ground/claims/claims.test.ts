import { describe, expect, it } from 'vitest';
import { extractClaims, segmentClaimSpans } from './claims.js';

describe('extractClaims', () => {
  it('splits plain sentences and keeps the wording; a question is no claim', () => {
    expect(extractClaims('Paris is the capital of France. It has 2.1 million inhabitants! Is it big? Yes, it is.')).toEqual([
      'Paris is the capital of France.',
      'It has 2.1 million inhabitants!',
      'Yes, it is.',
    ]);
    expect(extractClaims('Q: What is the capital of France?\nA: Paris is the capital of France.')).toEqual(['A: Paris is the capital of France.']);
  });

  it('splits after a dotted abbreviation or an initial only when a sentence starter follows', () => {
    expect(extractClaims('It was released in the U.S. The film was a hit. The U.S. Army was founded in 1775.')).toEqual([
      'It was released in the U.S.',
      'The film was a hit.',
      'The U.S. Army was founded in 1775.',
    ]);
    expect(extractClaims('Take vitamin D. It helps bones. J. K. Rowling wrote it. Washington, D.C. is the capital.')).toEqual([
      'Take vitamin D.',
      'It helps bones.',
      'J. K. Rowling wrote it.',
      'Washington, D.C. is the capital.',
    ]);
  });

  it('does not cut at the abbreviations of company and place names, initials or decimal points (issue 27)', () => {
    expect(
      extractClaims(
        'Scoob! is a 2020 "Scooby-Doo" animated film produced by Warner Bros. Pictures. It was made by Hanna-Barbera Inc. in the U.S. Army town of St. Louis. The budget was $49.5 million. J. K. Simmons narrates.',
      ),
    ).toEqual([
      'Scoob! is a 2020 "Scooby-Doo" animated film produced by Warner Bros. Pictures.',
      'It was made by Hanna-Barbera Inc. in the U.S. Army town of St. Louis.',
      'The budget was $49.5 million.',
      'J. K. Simmons narrates.',
    ]);
    expect(
      extractClaims('Procter & Gamble Co. Ltd. sells soap. It was released by Warner Bros. The film was a hit. He lives on Baker St. It is quiet.'),
    ).toEqual(['Procter & Gamble Co. Ltd. sells soap.', 'It was released by Warner Bros.', 'The film was a hit.', 'He lives on Baker St.', 'It is quiet.']);
  });

  it('cuts knowledge-base windows at the same places as claims', () => {
    const doc = 'The film was produced by Warner Bros. Pictures in the U.S. and released in 2020. Its budget was 49.5 million dollars.';
    expect(segmentClaimSpans(doc, { all: true }).map((s) => s.text)).toEqual([
      'The film was produced by Warner Bros. Pictures in the U.S. and released in 2020.',
      'Its budget was 49.5 million dollars.',
    ]);
  });

  it('splits a full stop glued to the next sentence, but not file names, versions or URLs', () => {
    expect(extractClaims('Water boils at 100 °C at sea level.The ice melts at 0 °C.')).toEqual([
      'Water boils at 100 °C at sea level.',
      'The ice melts at 0 °C.',
    ]);
    expect(extractClaims('Edit config.json, run Node.js and visit example.com/Page today. Version 2.0.1 shipped.')).toEqual([
      'Edit config.json, run Node.js and visit example.com/Page today.',
      'Version 2.0.1 shipped.',
    ]);
  });

  it('does not split after abbreviations, initials or inside decimals', () => {
    expect(extractClaims('Dr. Smith moved to the U.S. in 1999. Prices rose 3.5% vs. last year, e.g. bread. J. R. R. Tolkien wrote it.')).toEqual([
      'Dr. Smith moved to the U.S. in 1999.',
      'Prices rose 3.5% vs. last year, e.g. bread.',
      'J. R. R. Tolkien wrote it.',
    ]);
  });

  it('splits after "etc." when a new sentence starts, not before a lower-case word', () => {
    expect(extractClaims('It sells apples, pears, etc. The shop opened in 1990.')).toEqual(['It sells apples, pears, etc.', 'The shop opened in 1990.']);
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

  it('treats list items as separate claims and strips only the marker; a lead-in to a list is no claim', () => {
    const answer = 'Key facts:\n- The river is 300 km long\n- It flows into the sea.\n1. First item here\n2) Second item. With two sentences.';
    expect(extractClaims(answer)).toEqual(['The river is 300 km long', 'It flows into the sea.', 'First item here', 'Second item.', 'With two sentences.']);
  });

  it('keeps a lead-in that introduces no list, and the letter of an initial at the start of a line', () => {
    expect(extractClaims('**Effects:**\n\n- Asthma gets worse.\n- Lungs age.\n\nThe rule is simple: wash hands.\nIt says:')).toEqual([
      'Asthma gets worse.',
      'Lungs age.',
      'The rule is simple: wash hands.',
      'It says:',
    ]);
    expect(extractClaims('Health effects:\n- Respiratory:\n  - asthma attacks rise\n- Heart disease rises.')).toEqual([
      'asthma attacks rise',
      'Heart disease rises.',
    ]);
    expect(extractClaims('A. Einstein developed relativity. B. Russell was a philosopher.\na) first option\nB) second option')).toEqual([
      'A. Einstein developed relativity.',
      'B. Russell was a philosopher.',
      'first option',
      'second option',
    ]);
  });

  it('drops markdown headings, code fences, rules, table rules and table header rows', () => {
    const answer = '# Title\n\nThe sky is blue.\n\n```\nconst x = 1.\n```\n---\n| a | b |\n|---|---|\n| 2015 | 6.9 million |\n> Quoted fact here.';
    expect(extractClaims(answer)).toEqual(['The sky is blue.', '| 2015 | 6.9 million |', 'Quoted fact here.']);
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

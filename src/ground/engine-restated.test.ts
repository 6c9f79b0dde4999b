import { beforeAll, describe, expect, it } from 'vitest';
import { createLexicalEmbedder } from './embedders/lexical.js';
import { analyze } from './engine.js';
import { knowledgeBaseFromTexts, type KnowledgeBase } from './kb/kb.js';

/**
 * Issue 27, through the whole engine: a unit of another kind is neither a contradiction nor a match, and a correct
 * restatement (numbers in words, converted units, the same date written otherwise) is STRONG, not WEAK.
 */

let kb: KnowledgeBase;
beforeAll(async () => {
  kb = await knowledgeBaseFromTexts(
    [
      { source: 'repairs.md', text: 'Repairs are completed within 10 working days. Parts are shipped from the central warehouse.' },
      {
        source: 'returns.md',
        text: 'Opened routers can be returned within 14 days. The X200 weighs 1.5 kg. The shop opened on 3 March 2015. It has 12 staff.',
      },
      { source: 'other.md', text: 'Photosynthesis converts light energy into chemical energy. Chlorophyll absorbs red and blue light.' },
    ],
    createLexicalEmbedder(),
  );
});

const statusOf = async (answer: string) => (await analyze(kb, { query: 'q', answer })).claims_analysis[0];

describe('units of another kind', () => {
  it.each(['Repairs are completed within two weeks.', 'Repairs are completed within 10 days.'])(
    '"%s" against 10 working days is neither CONTRADICTED nor STRONG',
    async (answer) => {
      const c = await statusOf(answer);
      expect(c.status).not.toBe('CONTRADICTED');
      expect(c.status).not.toBe('STRONG');
      expect(c.unverified_details?.length).toBe(1);
    },
  );

  it('the same working days are STRONG', async () => {
    expect((await statusOf('Repairs are completed within 10 working days.')).status).toBe('STRONG');
  });
});

describe('restatements agree', () => {
  it.each([
    'Opened routers can be returned within two weeks.',
    'Opened routers can be returned within fourteen days.',
    'The X200 weighs 1,500 grams.',
    'The shop opened on March 3, 2015.',
    'It has twelve staff.',
    'It has a dozen staff.',
  ])('"%s" is STRONG', async (answer) => {
    const c = await statusOf(answer);
    expect(c.unverified_details).toEqual([]);
    expect(c.status).toBe('STRONG');
  });

  it('a restatement whose other words are not supported is not lifted', async () => {
    const c = await statusOf('Broken routers are repaired by couriers within two weeks of the complaint.');
    expect(c.status).not.toBe('STRONG');
    // and the lift is the restatement's own: the support shown is the cosine of the claim in the evidence's words
    const same = await statusOf('Opened routers can be returned within 14 days.');
    expect((await statusOf('Opened routers can be returned within two weeks.')).support_score).toBeCloseTo(same.support_score, 6);
  });
});

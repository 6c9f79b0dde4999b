import { beforeAll, describe, expect, it } from 'vitest';
import { createLexicalEmbedder } from './embedders/lexical.js';
import { analyze } from './engine.js';
import { knowledgeBaseFromTexts, type KnowledgeBase } from './kb/kb.js';

// Two passages about one event: an answer's sentence joins facts of both, as a summary does.
const CORPUS = [
  {
    source: 'race.txt',
    text: 'Todd Phillips, a tire changer for Coyne Racing, was hurt on lap 25 of the Grand Prix of Louisiana. He was taken to hospital.',
  },
  { source: 'venue.txt', text: 'The Grand Prix of Louisiana was held at NOLA Motorsports Park near New Orleans in April 2015.' },
  { source: 'other.txt', text: 'Photosynthesis converts light energy into chemical energy. Chlorophyll absorbs red and blue light.' },
];

let kb: KnowledgeBase;
beforeAll(async () => {
  kb = await knowledgeBaseFromTexts(CORPUS, createLexicalEmbedder());
});

describe('the detail check reads every retrieved chunk for what is missing', () => {
  const joined = 'Todd Phillips, a tire changer for Coyne Racing, was hurt on lap 25 of the Grand Prix of Louisiana near New Orleans.';

  it('a detail stated in another retrieved chunk is not missing', async () => {
    const r = await analyze(kb, { query: 'q', answer: joined });
    const [c] = r.claims_analysis;
    expect(c.evidence?.source).toBe('race.txt');
    expect(c.unverified_details).toEqual([]);
    expect(['STRONG', 'WEAK']).toContain(c.status);
    // the chunk alone (the previous scope) leaves it out
    const narrow = await analyze(kb, { query: 'q', answer: joined }, { detailScope: 'chunk' });
    expect(narrow.claims_analysis[0].unverified_details).toEqual(['New Orleans']);
    expect(narrow.claims_analysis[0].status).toBe('UNSUPPORTED');
  });

  it('a detail no retrieved chunk states stays missing, and another chunk never contradicts', async () => {
    const r = await analyze(kb, {
      query: 'q',
      answer: 'Todd Phillips, a tire changer for Coyne Racing, was hurt on lap 25 of the Grand Prix of Louisiana near Baton Rouge.',
    });
    expect(r.claims_analysis[0].unverified_details).toEqual(['Baton Rouge']);
    expect(r.claims_analysis[0].status).toBe('UNSUPPORTED');
    // a year the other passage states otherwise: missing from the claim's passage, not contradicted by another one
    const year = await analyze(kb, {
      query: 'q',
      answer: 'Todd Phillips, a tire changer for Coyne Racing, was hurt on lap 25 of the Grand Prix of Louisiana in 2016.',
    });
    expect(year.claims_analysis[0].status).toBe('UNSUPPORTED');
    expect(year.claims_analysis[0].unverified_details).toEqual(['2016']);
  });
});

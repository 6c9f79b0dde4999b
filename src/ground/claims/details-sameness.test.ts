import { describe, expect, it } from 'vitest';
import { checkDetails } from './details.js';

/**
 * Issue 27: a detail contradicts only when the evidence states the same attribute of the same subject with an
 * incompatible value. Places related by containment, values of other statements of the passage and units of a
 * kind that does not convert are at most unverified (missing), never contradictions.
 */

const check = (claim: string, evidence: string) => checkDetails(claim, evidence);

describe('a contradiction is the same thing stated differently', () => {
  it('working days are not calendar days: "within two weeks" and "within 10 days" are unverified, not contradicted or verified', () => {
    const ev = 'Repairs are completed within 10 working days.';
    expect(check('Repairs are completed within two weeks.', ev)).toEqual({ missing: ['two weeks'], conflicts: [] });
    expect(check('Repairs are completed within 10 days.', ev)).toEqual({ missing: ['10 days'], conflicts: [] });
    expect(check('Repairs are completed within 10 business days.', ev)).toEqual({ missing: [], conflicts: [] });
    // working days against working days still contradict
    expect(check('Repairs are completed within 20 working days.', ev).conflicts).toEqual([{ claim: '20 working days', evidence: '10 working days' }]);
  });

  it('a fiscal year is not a calendar year', () => {
    const ev = 'The company reported revenue of $5 million in fiscal 2020.';
    expect(check('The company reported revenue of $5 million in 2019.', ev).conflicts).toEqual([]);
    expect(check('The company reported revenue of $5 million in 2020.', ev).missing).toEqual(['2020']);
    expect(check('The company reported revenue of $5 million in fiscal 2020.', ev)).toEqual({ missing: [], conflicts: [] });
    expect(check('The company reported revenue of $5 million in fiscal 2021.', ev).conflicts).toEqual([{ claim: '2021', evidence: '2020' }]);
  });

  it('real (inflation-adjusted) money is not nominal money', () => {
    const ev = 'The film grossed $300 million, or $450 million adjusted for inflation.';
    expect(check('The film grossed $450 million.', ev).conflicts).toEqual([]);
    const ev2 = "The bridge cost $2 million in 1950, about $25 million in today's dollars.";
    expect(check('The bridge cost $25 million in 1950.', ev2).conflicts).toEqual([]);
    expect(check('The film grossed $450 million worldwide.', "The film grossed $620 million worldwide in today's dollars.")).toEqual({
      missing: ['$450 million'],
      conflicts: [],
    });
    expect(check('The film grossed $450 million worldwide.', 'The film grossed an inflation-adjusted $620 million worldwide.').conflicts).toEqual([]);
    // nominal against nominal still contradicts
    expect(check('The film grossed $450 million worldwide.', 'The film grossed $620 million worldwide.').conflicts).toHaveLength(1);
  });

  it('a place named at another granularity is not a contradiction', () => {
    expect(check('She was born in Brooklyn.', 'She was born in New York City in 1950.').conflicts).toEqual([]);
    expect(check('She was born in New York.', 'She was born in Brooklyn, the borough, in 1950.').conflicts).toEqual([]);
    expect(check('The plant is located in Bavaria.', 'The plant is located in Munich.')).toEqual({ missing: ['Bavaria'], conflicts: [] });
    // places after "at" are places too: unverified, and the claim is still not supported
    expect(check('The museum was founded at Harvard in 1866.', 'The museum was founded at Yale in 1866.')).toEqual({ missing: ['Harvard'], conflicts: [] });
    // a name in brackets is another name of what precedes it, not a differing one
    expect(
      check(
        'The Senators of the Dutch Senate are elected by the provincial councils.',
        'The 75 members of the Senate (Eerste Kamer) are elected by the provincial councils.',
      ).conflicts,
    ).toEqual([]);
    // a person in the same slot still contradicts
    expect(check('The film was directed by Steven Spielberg.', 'The film was directed by George Lucas.').conflicts).toHaveLength(1);
  });

  it("a value of another statement in the passage (another subject) is not the claim's value", () => {
    const ev = 'Smith joined the club in 2010. Jones scored 25 goals in the 2015 season.';
    expect(check('Smith scored 20 goals in the 2015 season.', ev)).toEqual({ missing: ['20'], conflicts: [] });
    expect(check('In 2015 the striker Smith scored 20 goals.', ev)).toEqual({ missing: ['20'], conflicts: [] });
    // the same subject in the same sentence does contradict
    expect(check('Jones scored 20 goals in the 2015 season.', ev).conflicts).toEqual([{ claim: '20', evidence: '25' }]);
  });

  it('an abbreviation inside an evidence sentence does not cut it: "Warner Bros. Pictures" keeps its year in the same sentence', () => {
    const ev = 'Scoob! was released by Warner Bros. Pictures in 2020. The studio opened in 1923.';
    expect(check('Scoob! was released by Warner Bros. Pictures in 2021.', ev).conflicts).toEqual([{ claim: '2021', evidence: '2020' }]);
    expect(check('Scoob! was released by Warner Bros. Pictures in 2020.', ev)).toEqual({ missing: [], conflicts: [] });
  });
});

import { describe, expect, it } from 'vitest';
import { checkDetails, evidenceDetails } from './details.js';
import { extractMentions, type QuantityMention } from './mentions.js';

/**
 * The detail check after normalisation: a differing detail in the same place is a contradiction, a detail
 * the evidence does not mention is missing (not a contradiction), and a restatement in other words, other
 * units or as a range containing the value is neither.
 */

const conflicts = (claim: string, evidence: string) => checkDetails(claim, evidence).conflicts.map((c) => `${c.claim} / ${c.evidence}`);

describe('the issue reproducers', () => {
  it('"within 60 days" against "within 14 days" is a contradiction, shown with both details', () => {
    const ev = 'Opened routers can be returned within 14 days of purchase. Unopened routers can be returned within 30 days.';
    expect(checkDetails('Opened routers can be returned within 60 days of purchase.', ev)).toEqual({
      missing: [],
      conflicts: [{ claim: '60 days', evidence: '14 days' }],
    });
  });

  it('numbers in words are compared: "about five minutes" against "two minutes"', () => {
    expect(conflicts('The router reboots in about five minutes.', 'After an update the router reboots in two minutes.')).toEqual([
      'five minutes / two minutes',
    ]);
    expect(checkDetails('The router reboots in about two minutes.', 'The router reboots in 2 minutes.')).toEqual({ missing: [], conflicts: [] });
  });

  it('"X200" and "5G" are entities compared whole: never a missing "X" or "5"', () => {
    expect(checkDetails('The X200 supports 5G.', 'The X200 supports 5G networks.')).toEqual({ missing: [], conflicts: [] });
    const absent = checkDetails('The X200 supports 5G.', 'The router supports fast networks.');
    expect(absent).toEqual({ missing: ['X200', '5G'], conflicts: [] });
    for (const id of ['GPT-4o', 'ISO 9001', 'COVID-19', 'Boeing 747']) {
      const m = extractMentions(`It uses ${id} daily.`).mentions;
      expect(m.map((x) => [x.kind, x.written])).toEqual([['identifier', id]]);
    }
    // an identifier of the same family in the same place is a contradiction; written with a space it is the same one
    expect(conflicts('The X300 router supports 5G.', 'The X200 router supports 5G.')).toEqual(['X300 / X200']);
    expect(checkDetails('It runs GPT-4o.', 'It runs GPT 4o.').missing).toEqual([]);
  });
});

describe('normalisation: restatements are verified, never contradicted', () => {
  const same: [string, string][] = [
    ['Returns are accepted within two weeks.', 'Returns are accepted within 14 days.'],
    ['The call lasted 90 minutes.', 'The call lasted an hour and a half, or 1.5 hours.'],
    ['Twenty-one people attended.', 'In all, 21 people attended.'],
    ['A dozen eggs were sold.', '12 eggs were sold.'],
    ['Half of the staff agreed.', '50% of the staff agreed.'],
    ['A third of voters stayed home.', '33% of voters stayed home.'],
    ['Refunds take 10–14 days.', 'Refunds take 12 days.'],
    ['Refunds take between 10 and 14 days.', 'Refunds take 10-14 days.'],
    ['Revenue rose 12 per cent.', 'Revenue rose 12%.'],
    ['It cost $150,000.', 'It cost 150,000 dollars.'],
    ['It cost USD 5 million.', 'It cost $5m.'],
    ['The city has 2.1 million people.', 'The city has 2,134,000 people.'],
    ['It opened on 3 March 1866.', 'It opened on March 3, 1866.'],
    ['It opened on 1866-03-03.', 'It opened on 3 March 1866.'],
    ['It was built in the 1860s.', 'It was built in 1866.'],
    ['It changed in 2018–19.', 'It changed in the 2018-2019 academic year.'],
    ['The trail is 5 km long.', 'The trail is 5,000 metres long.'],
    ['More than 50 students came.', 'Some 60 students came.'],
    ['The girl was 15 years old.', 'The girl, aged 15, was there.'],
  ];
  it.each(same)('%s ≡ %s', (claim, evidence) => {
    expect(checkDetails(claim, evidence)).toEqual({ missing: [], conflicts: [] });
  });
});

describe('contradictions in every kind of detail', () => {
  const differ: [string, string, string][] = [
    ['The museum was founded in 1867.', 'The museum was founded in 1866.', '1867 / 1866'],
    ['It opened on 5 March 1866.', 'It opened on 3 March 1866.', '5 March 1866 / 3 March 1866'],
    ['It opened in May 1866.', 'It opened in March 1866.', 'May 1866 / March 1866'],
    ['Revenue rose 15%.', 'Revenue rose 12%.', '15% / 12%'],
    ['The gift was €150,000.', 'The gift was $150,000.', '€150,000 / $150,000'],
    ['Delivery takes 3 weeks.', 'Delivery takes 3 days.', '3 weeks / 3 days'],
    ['The family had four children.', 'The family had three children.', 'four / three'],
    ['The museum was founded by Harvard in 1866.', 'The museum was founded by Yale in 1866.', 'Harvard / Yale'],
    ['It sold over 500 copies.', 'It sold over 200 copies.', '500 / 200'],
  ];
  it.each(differ)('%s ≠ %s', (claim, evidence, conflict) => {
    expect(conflicts(claim, evidence)).toEqual([conflict]);
  });

  it('a detail stated elsewhere in the evidence does not hide a contradiction where the claim stands', () => {
    const ev = 'Marsh was appointed Professor of Paleontology at Yale in 1866. His uncle, who died in 1869, was rich.';
    expect(conflicts('Marsh was appointed Professor of Paleontology at Yale in 1869.', ev)).toEqual(['1869 / 1866']);
  });

  it('each figure of a list keeps its own context', () => {
    const ev = 'UKIP spent 68p per vote. For Labour it is 26p per vote, the Conservatives 79p and the Lib Dems £1.45.';
    expect(checkDetails('The cost per vote was 68p for UKIP, 26p for Labour, 79p for the Conservatives and £1.45 for the Lib Dems.', ev).conflicts).toEqual([]);
  });
});

describe('missing is not contradicted', () => {
  it('a detail the evidence does not mention is missing, and one in an unrelated sentence is no conflict', () => {
    expect(checkDetails('Opened routers can be returned within 60 days.', 'Our stores open at nine. Parking is free.')).toEqual({
      missing: ['60 days'],
      conflicts: [],
    });
    // the evidence states a time, but about something else entirely
    expect(checkDetails('Opened routers can be returned within 60 days.', 'Delivery vans leave the depot every 14 days.').conflicts).toEqual([]);
  });

  it('a value the claim states more precisely than the evidence is missing, not contradicted', () => {
    expect(checkDetails('Refunds take 12 days.', 'Refunds take 10–14 days.')).toEqual({ missing: ['12 days'], conflicts: [] });
  });

  it('"a week" implied by an article can contradict but is never required', () => {
    expect(checkDetails('You can return it within a week.', 'You can return it.')).toEqual({ missing: [], conflicts: [] });
    expect(conflicts('You can return it within a week.', 'You can return it within 30 days.')).toEqual(['a week / 30 days']);
  });
});

describe('mentions', () => {
  it('reads quantities with unit, range, bound and rounding', () => {
    const q = (text: string) => extractMentions(text).mentions.find((m) => m.kind === 'quantity') as QuantityMention;
    expect(q('about 2.1 million users')).toMatchObject({ dim: 'noun:user', lo: 2.1e6, hi: 2.1e6 });
    expect(q('about 2.1 million users').precision).toBeCloseTo(2.1e5, 6); // "about": ±10%
    expect(q('within 10–14 days')).toMatchObject({ dim: 'time', lo: 10 * 86400, hi: 14 * 86400 });
    expect(q('up to 20%')).toMatchObject({ dim: 'percent', lo: -Infinity, hi: 20 });
    expect(q('a 3-year-old girl')).toMatchObject({ dim: 'calendar', lo: 36, hi: 36 });
    expect(q('between £3.35 and £4.5 million')).toMatchObject({ dim: 'money:GBP', lo: 3.35e6, hi: 4.5e6 });
    expect(q('two and a half hours')).toMatchObject({ dim: 'time', lo: 9000 });
    expect(q('the 9th grade')).toMatchObject({ dim: 'ordinal:grade', lo: 9 });
  });

  it('"one of them", "May I" and "a second" are no details; "3 pm" is no quantity', () => {
    expect(extractMentions('One of them may come in a second, May I ask, at 3 pm.').mentions).toEqual([]);
  });

  it('reads pathological runs whole: a 100,000-character word, digit run and identifier, 50,000 numbers', () => {
    expect(extractMentions('x'.repeat(100_000)).mentions).toEqual([]);
    expect(extractMentions(`${'9'.repeat(100_000)} days`).mentions).toEqual([]); // not a finite number: no detail
    const id = extractMentions(`The ${'ab1'.repeat(30_000)} model.`).mentions;
    expect(id.map((m) => [m.kind, m.written.length])).toEqual([['identifier', 90_000]]);
    const many = Array.from({ length: 50_000 }, (_, i) => String(i + 1)).join(' ');
    expect(evidenceDetails(many).located.length).toBeGreaterThan(10_000);
  });
});

describe('identifiers with hyphens and digits are compared whole', () => {
  it('"Wi-Fi 6" against the identical sentence is verified, never "not in evidence: Wi"', () => {
    for (const s of [
      'The router supports Wi-Fi 6.',
      'Wi-Fi 6 is supported by the router.',
      'It is certified to ISO 9001.',
      'The X200 supports 5G.',
      'It runs GPT-4o.',
    ])
      expect(checkDetails(s, s)).toEqual({ missing: [], conflicts: [] });
    expect(extractMentions('The router supports Wi-Fi 6E.').mentions.map((m) => [m.kind, m.written])).toEqual([['identifier', 'Wi-Fi 6E']]);
    // written without the hyphen, or lower-cased, it is the same identifier
    expect(checkDetails('The router supports Wi-Fi 6.', 'The router supports WiFi 6.').missing).toEqual([]);
    expect(checkDetails('The router supports Wi-Fi 6.', 'the router supports wi-fi 6.').missing).toEqual([]);
  });

  it('a different identifier of the family is still a contradiction, and digits and words stay caught', () => {
    expect(conflicts('The router supports Wi-Fi 7.', 'The router supports Wi-Fi 6.')).toEqual(['Wi-Fi 7 / Wi-Fi 6']);
    expect(conflicts('The router supports Wi-Fi 6E.', 'The router supports Wi-Fi 6.')).toEqual(['Wi-Fi 6E / Wi-Fi 6']);
    expect(conflicts('The Wi-Fi 6 router has 4 ports.', 'The Wi-Fi 6 router has 2 ports.')).toEqual(['4 / 2']);
    expect(conflicts('The Wi-Fi 6 router has four ports.', 'The Wi-Fi 6 router has two ports.')).toEqual(['four / two']);
    expect(checkDetails('The router supports Wi-Fi 6.', 'The router supports fast networks.').missing).toEqual(['Wi-Fi 6']);
  });
});

describe('hyphenated details', () => {
  it('"one-month" is a quantity and a name after a lower-case prefix ("pro-Ukrainian") is a name', () => {
    expect(conflicts('Tyson had signed a one-month deal.', 'Tyson had signed a one-year deal.')).toEqual(['one-month / one-year']);
    expect(checkDetails('Tyson had signed a one-year deal.', 'Tyson had signed a one-year deal.')).toEqual({ missing: [], conflicts: [] });
    expect(conflicts('They print pro-Marina messages.', 'They print pro-Ukrainian messages.')).toEqual(['Marina / Ukrainian']);
    expect(checkDetails('They print pro-Ukrainian messages.', 'They print pro-Ukrainian messages.')).toEqual({ missing: [], conflicts: [] });
    expect(checkDetails('Coca-Cola opened a plant.', 'Coca-Cola opened a plant.')).toEqual({ missing: [], conflicts: [] });
  });
});

describe('a determiner opening a sentence is no part of a name', () => {
  it('"Another Tim Roth" names Tim Roth, who the evidence states (was: missing "Another Tim Roth")', () => {
    const evidence = 'Tim Roth, born December 6, 1975, is a musician and the last original member of Into Eternity.';
    expect(checkDetails('Another Tim Roth, born December 6, 1975, is a musician.', evidence)).toEqual({ missing: [], conflicts: [] });
    expect(checkDetails('Either Tim Roth or a musician of Into Eternity wrote it.', evidence).missing).toEqual([]);
    // a name the evidence does not state is still missing after the determiner
    expect(checkDetails('Another Jim Roth, born December 6, 1975, is a musician.', evidence).missing).toEqual(['Jim Roth']);
  });
});

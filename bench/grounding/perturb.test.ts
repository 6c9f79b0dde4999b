import { describe, expect, it } from 'vitest';
import { changedValue, inWords, itemSeed, namesIn, perturbations, restatements, seededRandom } from './perturb.js';

/** The perturbation generator of bench:contradictions: one detail changed, the rest kept, seeded. */

const CLAIM = 'In 2014, Acme Corp opened 12 stores in Ohio within three weeks, and sales rose 15% to $2.5 million.';

/** The words of a and b that differ, position by position (both have the same number of words but one span). */
function diff(a: string, b: string): { removed: string; added: string } {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  let j = 0;
  while (j < a.length - i && j < b.length - i && a[a.length - 1 - j] === b[b.length - 1 - j]) j++;
  return { removed: a.slice(i, a.length - j), added: b.slice(i, b.length - j) };
}

describe('perturbations', () => {
  const names = ['Globex', 'Initech', 'Texas', 'Umbrella Ltd'];
  const vs = perturbations(CLAIM, seededRandom(7), { names, evidence: 'Acme Corp opened stores in Ohio. Initech did not.' });

  it('makes one variant per kind that applies, each changing one detail and keeping the rest', () => {
    expect(vs.map((v) => v.kind)).toEqual(['digits', 'number_words', 'dates', 'units_or_percentages', 'entities']);
    for (const v of vs) {
      const d = diff(CLAIM, v.claim);
      expect(v.claim).not.toBe(CLAIM);
      expect(v.claim.replace(v.to, v.from)).toBe(CLAIM); // putting the detail back gives the claim
      expect(d.removed.length).toBeLessThanOrEqual(v.from.length);
    }
  });

  it('changes each kind of detail as its kind says', () => {
    const by = Object.fromEntries(vs.map((v) => [v.kind, v]));
    expect(['12', '2.5']).toContain(by.digits.from);
    expect(by.digits.to).toMatch(/^\d+(\.\d)?$/);
    expect(by.number_words).toMatchObject({ from: 'three' });
    expect(by.number_words.to).toMatch(/^[a-z-]+$/);
    expect(by.dates.from).toBe('2014');
    expect(Math.abs(Number(by.dates.to) - 2014)).toBeGreaterThan(0);
    expect(Math.abs(Number(by.dates.to) - 2014)).toBeLessThanOrEqual(15);
    expect(['three weeks', '15%', '$2.5']).toContain(by.units_or_percentages.from);
    // a name from the pool the evidence does not mention ("Initech" is in the evidence)
    expect(['Acme Corp', 'Ohio']).toContain(by.entities.from);
    expect(['Globex', 'Texas', 'Umbrella Ltd']).toContain(by.entities.to);
  });

  it('is seeded: the same seed gives the same variants, another seed other choices', () => {
    const again = perturbations(CLAIM, seededRandom(7), { names, evidence: 'Acme Corp opened stores in Ohio. Initech did not.' });
    expect(again).toEqual(vs);
    const others = Array.from({ length: 20 }, (_, s) =>
      perturbations(CLAIM, seededRandom(100 + s), { names })
        .map((v) => v.to)
        .join('|'),
    );
    expect(new Set(others).size).toBeGreaterThan(10);
    expect(itemSeed(1, 'a')).not.toBe(itemSeed(1, 'b'));
    expect(itemSeed(1, 'a')).toBe(itemSeed(1, 'a'));
  });

  it('leaves identifiers and dates alone as digits: X200, 5G, COVID-19, a day of a month', () => {
    const v = perturbations('The X200 supports 5G and COVID-19 tests since 3 March 2020.', seededRandom(3));
    expect(v.find((x) => x.kind === 'digits')).toBeUndefined();
    expect(v.find((x) => x.kind === 'dates')).toBeDefined();
  });

  it('changes units within their family and keeps the number; a value always changes', () => {
    for (let s = 0; s < 30; s++) {
      const u = perturbations('Refunds take 14 days.', seededRandom(s)).find((x) => x.kind === 'units_or_percentages');
      expect(u?.from).toBe('14 days');
      expect(u?.to).toMatch(/^14 (minutes|hours|weeks|months)$/); // a unit of time, another than days
      const written = changedValue(seededRandom(s), '1,500');
      expect(written).toMatch(/^\d{1,3}(,\d{3})*$/);
      expect(written).not.toBe('1,500');
      expect(changedValue(seededRandom(s), '3.5')).toMatch(/^\d+\.\d$/);
    }
  });
});

describe('restatements keep the meaning', () => {
  it('writes a number in words, converts a unit exactly, or widens a value to a range around it', () => {
    const r = restatements('Refunds take 14 days for 40 stores.', seededRandom(1));
    const by = Object.fromEntries(r.map((v) => [v.kind, v]));
    expect(['fourteen', 'forty']).toContain(by.number_words.to);
    expect(by.unit_conversion).toMatchObject({ from: '14 days', to: '2 weeks' });
    const [lo, hi] = by.range.to.split('–').map(Number);
    expect(lo).toBeLessThan(Number(by.range.from));
    expect(hi).toBeGreaterThan(Number(by.range.from));
  });

  it('in words: every whole number below a hundred', () => {
    expect([inWords(7), inWords(21), inWords(40), inWords(99)]).toEqual(['seven', 'twenty-one', 'forty', 'ninety-nine']);
  });
});

describe('namesIn', () => {
  it('finds capitalised names inside a sentence, not its first word or months', () => {
    expect(namesIn('The museum at Yale University opened in March with Peabody funds.').map((n) => n.text)).toEqual(['Yale University', 'Peabody']);
  });
});

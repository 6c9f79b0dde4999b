import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkDetails } from './details.js';
import { extractMentions, type QuantityMention } from './mentions.js';

/**
 * Numbers in words are one quantity however they are written: scale words with hundreds, tens and units,
 * "and" and commas between the parts, digits before a scale word, "X and a half" after a unit. Checked on
 * hand-picked forms and on random integers rendered by an English renderer written here, apart from the parser.
 */

const quantities = (text: string) =>
  extractMentions(text)
    .mentions.filter((m): m is QuantityMention => m.kind === 'quantity')
    .map((m) => [m.written, m.lo]);

describe('compound number words are one quantity', () => {
  const cases: [string, string, number][] = [
    ['The warehouse employs one thousand five hundred people.', 'one thousand five hundred', 1500],
    ['The warehouse employs a thousand five hundred people.', 'a thousand five hundred', 1500],
    ['The warehouse employs 1 thousand five hundred people.', '1 thousand five hundred', 1500],
    ['The warehouse employs one thousand, five hundred people.', 'one thousand, five hundred', 1500],
    ['The warehouse employs fifteen hundred people.', 'fifteen hundred', 1500],
    ['The warehouse employs two thousand five hundred people.', 'two thousand five hundred', 2500],
    ['The warehouse employs a hundred and fifty people.', 'a hundred and fifty', 150],
    ['The town has a hundred thousand people.', 'a hundred thousand', 100_000],
    ['The town has two million, three hundred and six thousand and twelve people.', 'two million, three hundred and six thousand and twelve', 2_306_012],
    [
      'The town has one million two hundred thirty-four thousand five hundred sixty-seven people.',
      'one million two hundred thirty-four thousand five hundred sixty-seven',
      1_234_567,
    ],
    ['The tale spans a thousand and one nights.', 'a thousand and one', 1001],
    ['The fund holds two and a half million dollars.', 'two and a half million dollars', 2.5e6],
    ['The stadium seats 2 million three hundred thousand fans.', '2 million three hundred thousand', 2_300_000],
    ['Half a million people came.', 'Half a million', 500_000],
    ['A million and a half people came.', 'A million and a half', 1_500_000],
    ['In two thousand and five it rained.', 'two thousand and five', 2005],
  ];
  it.each(cases)('%s', (text, written, value) => {
    expect(quantities(text)).toEqual([[written, value]]);
  });

  it('stops where the next part cannot continue the number', () => {
    // a scale not smaller than the last one starts another number
    expect(quantities('They sold one thousand, two thousand and then three thousand copies.')).toEqual([
      ['one thousand', 1000],
      ['two thousand', 2000],
      ['three thousand', 3000],
    ]);
    // "between … and …" is a range, not "one thousand and five hundred"
    const range = extractMentions('The hall seats between one thousand and five hundred people.').mentions[0] as QuantityMention;
    expect([range.lo, range.hi]).toEqual([500, 1000]);
    expect(quantities('A thousand of them left.')).toEqual([]);
    // a last part below a hundred joins in words only, after "and" or right after "thousand"
    expect(quantities('It raised $5 million two years ago.')).toEqual([
      ['$5 million', 5e6],
      ['two years', 24],
    ]);
    expect(quantities('The town grew to two million three years later.')).toEqual([
      ['two million', 2e6],
      ['three years', 36],
    ]);
    expect(quantities('It cost $2 million, five hundred of which went on fees.')).toEqual([
      ['$2 million', 2e6],
      ['five hundred', 500],
    ]);
    expect(quantities('They paid $5 million and two houses.')).toEqual([
      ['$5 million', 5e6],
      ['two', 2],
    ]);
    expect(quantities('It had two thousand twenty members.')).toEqual([['two thousand twenty', 2020]]);
  });

  it('"X and a half" after a unit is one quantity', () => {
    const hours = (text: string) => quantities(text).map(([w, v]) => [w, Number(v) / 3600]);
    expect(hours('The meeting lasts an hour and a half.')).toEqual([['an hour and a half', 1.5]]);
    expect(hours('The meeting lasts two hours and a half.')).toEqual([['two hours and a half', 2.5]]);
    expect(quantities('The trial ran two days and a half.')).toEqual([['two days and a half', 2.5 * 86400]]);
    expect(quantities('The lease runs a year and a half.')).toEqual([['a year and a half', 18]]);
    expect(quantities('The path is a mile and a half long.')).toEqual([['a mile and a half', 1.5 * 1609.344]]);
    const m = extractMentions('The meeting lasts an hour and a half.').mentions[0] as QuantityMention;
    expect(m.implied).toBe(false);
  });
});

describe('the user trial: digits against words', () => {
  const clean = { missing: [], conflicts: [] };
  const ev = 'The warehouse in Leeds employs 1,500 people across three shifts.';
  it.each([
    'The warehouse in Leeds employs one thousand five hundred people across three shifts.',
    'The warehouse in Leeds employs a thousand five hundred people across three shifts.',
    'The warehouse in Leeds employs 1 thousand five hundred people across three shifts.',
    'The warehouse in Leeds employs one thousand, five hundred people across three shifts.',
    'The warehouse in Leeds employs fifteen hundred people across three shifts.',
  ])('%s is verified', (claim) => {
    expect(checkDetails(claim, ev)).toEqual(clean);
  });

  it('a different compound is contradicted as a whole', () => {
    expect(checkDetails('The warehouse in Leeds employs two thousand five hundred people across three shifts.', ev)).toEqual({
      missing: [],
      conflicts: [{ claim: 'two thousand five hundred', evidence: '1,500' }],
    });
  });

  it('words in the evidence, digits in the claim', () => {
    expect(checkDetails('The stadium seats 2,400 fans.', 'The stadium seats two thousand four hundred fans.')).toEqual(clean);
    const bridge = 'The bridge is one thousand two hundred metres long.';
    expect(checkDetails('The bridge is 1,200 metres long.', bridge)).toEqual(clean);
    expect(checkDetails('The bridge is 1.2 km long.', bridge)).toEqual(clean);
    expect(checkDetails('The bridge is 1.4 km long.', bridge).conflicts).toEqual([{ claim: '1.4 km', evidence: 'one thousand two hundred metres' }]);
  });

  it('"an hour and a half" is 1.5 hours', () => {
    expect(checkDetails('The meeting lasts an hour and a half.', 'The meeting lasts 1.5 hours.')).toEqual(clean);
    expect(checkDetails('The meeting lasts 90 minutes.', 'The meeting lasts an hour and a half.')).toEqual(clean);
    expect(checkDetails('The meeting lasts two hours and a half.', 'The meeting lasts 1.5 hours.').conflicts).toEqual([
      { claim: 'two hours and a half', evidence: '1.5 hours' },
    ]);
  });
});

describe('second inputs of the same kind: decimals and fractions of a unit in words', () => {
  const clean = { missing: [], conflicts: [] };
  it('"one point two million" and "three point five percent" are decimals', () => {
    expect(checkDetails('The city has one point two million residents.', 'The city has 1.2 million residents.')).toEqual(clean);
    expect(checkDetails('Growth was three point five percent.', 'Growth was 3.5 percent.')).toEqual(clean);
    expect(checkDetails('Growth was three point seven five percent.', 'Growth was 3.75 percent.')).toEqual(clean);
    expect(checkDetails('Growth was four point five percent.', 'Growth was 3.5 percent.').conflicts).toEqual([
      { claim: 'four point five percent', evidence: '3.5 percent' },
    ]);
    expect(quantities('The city has one point two million residents.')).toEqual([['one point two million', 1.2e6]]);
  });

  it('"a quarter of an hour", "three quarters of an hour", "half of an hour" are shares of the unit', () => {
    expect(checkDetails('Support answers within a quarter of an hour.', 'Support answers within 15 minutes.')).toEqual(clean);
    expect(checkDetails('Support answers within three quarters of an hour.', 'Support answers within 45 minutes.')).toEqual(clean);
    expect(checkDetails('The battery lasts half of an hour.', 'The battery lasts 30 minutes.')).toEqual(clean);
    expect(checkDetails('Support answers within three quarters of an hour.', 'Support answers within 15 minutes.').conflicts).toEqual([
      { claim: 'three quarters of an hour', evidence: '15 minutes' },
    ]);
    // A share of a group stays a share: "a quarter of the staff" is 25%.
    expect(checkDetails('A quarter of the staff work remotely.', '25% of the staff work remotely.')).toEqual(clean);
  });
});

/** English words for 0 ≤ n < 1e9 in the common forms, written apart from the parser so that it checks it. */
interface Style {
  /** British "and" before the last tens and units: "three hundred and six", "one thousand and five". */
  and: boolean;
  /** A comma after each scale word: "one million, two hundred thousand, five". */
  commas: boolean;
  /** "twenty-one" or "twenty one". */
  hyphen: boolean;
  /** "a thousand", "a hundred" for a leading one. */
  article: boolean;
  /**
   * The leading group in digits when the parts below it are hundreds, joined by spaces: "1 thousand five hundred"
   * ("1 thousand five" and "$2 million, five hundred of which" read as two numbers).
   */
  digits: boolean;
  /** "fifteen hundred" for 1,100–9,999. */
  hundreds: boolean;
}

const ONES = 'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'.split(' ');
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

function below100(n: number, s: Style): string {
  if (n < 20) return ONES[n];
  const u = n % 10;
  return u ? `${TENS[Math.floor(n / 10)]}${s.hyphen ? '-' : ' '}${ONES[u]}` : TENS[n / 10];
}

function below1000(n: number, s: Style, leading: boolean): string {
  const h = Math.floor(n / 100);
  const r = n % 100;
  if (!h) return below100(r, s);
  const head = `${h === 1 && leading && s.article ? 'a' : ONES[h]} hundred`;
  return r ? `${head} ${s.and ? 'and ' : ''}${below100(r, s)}` : head;
}

function render(n: number, s: Style): string {
  if (n === 0) return 'zero';
  if (s.hundreds && n >= 1100 && n < 10_000 && Math.floor(n / 100) % 10 !== 0) {
    const r = n % 100;
    return `${below100(Math.floor(n / 100), s)} hundred${r ? ` ${s.and ? 'and ' : ''}${below100(r, s)}` : ''}`;
  }
  const parts: string[] = [];
  for (const [scale, name] of [
    [1e6, 'million'],
    [1e3, 'thousand'],
  ] as const) {
    const g = Math.floor(n / scale) % 1000;
    if (!g) continue;
    const leading = parts.length === 0;
    const digits = leading && s.digits && !s.commas && (n % 1000 === 0 || n % 1000 >= 100);
    const head = digits ? String(g) : g === 1 && leading && s.article ? 'a' : below1000(g, s, leading);
    parts.push(`${head} ${name}`);
  }
  const last = n % 1000;
  if (last) {
    const rest = below1000(last, s, parts.length === 0);
    // a last group below a hundred: "one thousand and five" (British, and with commas), "one thousand five"
    // (American, after "thousand" only: "two million three" reads as two numbers, so "and" there)
    if (parts.length && last < 100) {
      const and = s.and || s.commas || Math.floor(n / 1000) % 1000 === 0;
      return `${parts.join(s.commas ? ', ' : ' ')}${and ? ' and' : ''} ${rest}`;
    }
    parts.push(rest);
  }
  return parts.join(s.commas ? ', ' : ' ');
}

const style = fc.record({ and: fc.boolean(), commas: fc.boolean(), hyphen: fc.boolean(), article: fc.boolean(), digits: fc.boolean(), hundreds: fc.boolean() });
const integer = fc.oneof(fc.integer({ min: 0, max: 999_999_999 }), fc.integer({ min: 0, max: 9_999 }));

describe('property: random integers in words', () => {
  it('the renderer writes the forms it claims to (spot checks)', () => {
    const plain: Style = { and: false, commas: false, hyphen: true, article: false, digits: false, hundreds: false };
    expect(render(1_234_567, plain)).toBe('one million two hundred thirty-four thousand five hundred sixty-seven');
    expect(render(2_306_012, { ...plain, and: true, commas: true })).toBe('two million, three hundred and six thousand and twelve');
    expect(render(1500, { ...plain, article: true, commas: true })).toBe('a thousand, five hundred');
    expect(render(1500, { ...plain, hundreds: true })).toBe('fifteen hundred');
    expect(render(250_000_300, { ...plain, digits: true })).toBe('250 million three hundred');
    expect(render(1005, { ...plain, digits: true })).toBe('one thousand five');
    expect(render(2_000_012, plain)).toBe('two million and twelve');
  });

  it('parse back to the number, as one quantity', () => {
    fc.assert(
      fc.property(integer, style, (n, s) => {
        const words = render(n, s);
        expect(quantities(`The site is ${words} metres long.`)).toEqual([[`${words} metres`, n]]);
      }),
      { numRuns: 500 },
    );
  });

  it('the same number in digits and in words is never contradicted, either way round', () => {
    fc.assert(
      fc.property(
        integer.filter((n) => n !== 1),
        style,
        fc.constantFrom('crates', 'metres', 'dollars'),
        (n, s, unit) => {
          const words = render(n, s);
          const digits = n.toLocaleString('en-US');
          const say = (x: string) => `The depot in Leeds holds ${x} ${unit} of stock.`;
          expect(checkDetails(say(words), say(digits)).conflicts).toEqual([]);
          expect(checkDetails(say(digits), say(words)).conflicts).toEqual([]);
          expect(checkDetails(say(words), say(digits)).missing).toEqual([]);
        },
      ),
      { numRuns: 500 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { segmentClaimSpans, type ClaimSpan } from './claims.js';
import { evidenceDetails, unverifiedDetails } from './details.js';

/**
 * The sentence splitter used to look at the whole text before and after every candidate boundary, which made
 * an answer of "e.g. " × 19,999 take 10–18 s. These tests pin the linear rewrite to the old behaviour
 * (differential, over random prose built from the tokens the rules care about) and check its growth.
 */

// ---- the previous (quadratic) splitter, verbatim, as the reference for the differential test ----
const ABBREVIATIONS = new Set(
  (
    'mr mrs ms messrs dr prof sr jr st ste mt ft vs v etc e.g i.e cf al approx ca no nos fig figs vol vols p pp ed eds ' +
    'inc ltd co corp bros llc plc dept univ gov gen col lt sgt capt cmdr adm rep sen hon rev est op ch sec art para ' +
    'ave blvd rd jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun ' +
    'u.s u.k u.n e.u u.s.a ph.d m.d b.a m.a b.sc m.sc a.m p.m d.c n.y l.a'
  ).split(/\s+/),
);
const TERMINAL_ABBREVIATIONS = new Set(['etc', 'al']);
const SENTENCE_STARTERS = new Set(
  'the it its this that these those there he she they we i you his her their our my a an in on at for however but and so then also after before during when while if although as yet today later'.split(
    ' ',
  ),
);
const CLOSERS = `"'”’)]»`;

function referenceSplit(text: string, claimsOnly: boolean, cuts: number[] = []): ClaimSpan[] {
  const out: ClaimSpan[] = [];
  let start = 0;
  const re = /[.!?…]+/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    let end = m.index + m[0].length;
    while (end < text.length && CLOSERS.includes(text[end])) end++;
    if (end < text.length && !/\s/.test(text[end]) && !(m[0] === '.' && gluedSentence(text.slice(start, m.index), text.slice(end)))) continue;
    const rest = text.slice(end).replace(/^\s+/, '');
    if (rest.length > 0 && m[0] === '.' && !isBoundaryAfterPeriod(text.slice(start, m.index), rest)) continue;
    if (rest.length > 0 && m[0] !== '.' && /^[a-z]/.test(rest)) continue;
    push(text, start, end, out, claimsOnly);
    cuts.push(end);
    start = end;
  }
  push(text, start, text.length, out, claimsOnly);
  return out;
}
function gluedSentence(before: string, after: string): boolean {
  const word = /(\S*)$/.exec(before)?.[1] ?? '';
  return /^\p{Ll}{2,}$/u.test(word) && /^\p{Lu}\p{Ll}+(?=[\s,;:]|$)/u.test(after);
}
function isBoundaryAfterPeriod(before: string, rest: string): boolean {
  const word = /([\p{L}\p{N}.'’-]*)$/u.exec(before)?.[1] ?? '';
  const lower = word.toLowerCase();
  const nextCapital = /^[\p{Lu}"“'‘([]/u.test(rest) || /^\d/.test(rest);
  if (!nextCapital) return false;
  const starter = SENTENCE_STARTERS.has(/^[\p{L}']+/u.exec(rest)?.[0].toLowerCase() ?? '');
  if (/^\p{Lu}$/u.test(word)) return starter;
  if (/^(\p{Lu}\.)+\p{Lu}$/u.test(word)) return starter;
  if (/^(\p{L}\.)+\p{L}$/u.test(word)) return false;
  if (TERMINAL_ABBREVIATIONS.has(lower)) return /^\p{Lu}\p{Ll}/u.test(rest);
  if (ABBREVIATIONS.has(lower)) return starter;
  return true;
}
function push(text: string, from: number, to: number, out: ClaimSpan[], claimsOnly: boolean): void {
  const raw = text.slice(from, to);
  const lead = raw.length - raw.trimStart().length;
  const trimmed = raw.trim();
  if (!/[\p{L}\p{N}]/u.test(trimmed)) return;
  if (claimsOnly && /\?[\s"'”’)\]»*_]*$/.test(trimmed)) return;
  out.push({ text: trimmed, start: from + lead, end: from + lead + trimmed.length });
}
// ---- end of the reference ----

const TOKENS = [
  'e.g.',
  'i.e.',
  'U.S.',
  'U.S.A.',
  'J.',
  'A.',
  'Dr.',
  'etc.',
  'approx.',
  'Ph.D.',
  'Inc.',
  'the',
  'The',
  'It',
  'it',
  'Although',
  'level',
  'Ice',
  'Ice,',
  'x',
  'ab',
  'Cd',
  'vitamin',
  'D',
  '3.14',
  '1889',
  '.',
  '..',
  '!',
  '?',
  '…',
  '"',
  '“',
  ')',
  '(',
  "'",
  '’',
  '»',
  ',',
  ';',
  ':',
  '-',
  'é',
  'É',
  'ß',
  '𝑎',
  '𝐀',
  'İ',
  'K',
  'config.json',
  'Node.js',
  'a.b',
  'x.Y',
];
const SEPARATORS = [' ', ' ', ' ', '', '  ', '\t', '\u00a0'];
const prose = fc
  .array(fc.tuple(fc.constantFrom(...TOKENS), fc.constantFrom(...SEPARATORS)), { maxLength: 40 })
  .map((parts) => 'Word ' + parts.map(([t, s]) => t + s).join(''));

describe('claim segmentation: linear, and no cut the regex splitter would not make', () => {
  // The splitter now takes its candidate boundaries from Intl.Segmenter (issue 27), which proposes fewer than the regex
  // (none before a digit or a lower-case word, none at a run of marks ending the text): every cut it makes is one the
  // regex splitter, with the same abbreviation rules, makes too, and nothing with letters is lost.
  it('cuts only where the regex splitter with the same abbreviation rules cuts, and keeps every letter (random prose)', () => {
    fc.assert(
      fc.property(prose, (text) => {
        for (const all of [false, true]) {
          const cuts: number[] = [];
          referenceSplit(text, !all, cuts);
          const spans = segmentClaimSpans(text, { all });
          for (const s of spans) expect(text.slice(s.start, s.end)).toBe(s.text);
          for (const s of spans.slice(0, -1)) expect(cuts).toContain(s.end);
          if (all)
            expect(
              spans
                .map((s) => s.text)
                .join('')
                .replace(/[^\p{L}\p{N}]/gu, ''),
            ).toBe(text.replace(/[^\p{L}\p{N}]/gu, ''));
        }
      }),
      { numRuns: 3000, seed: 12 },
    );
  });

  it('handles the reproducer of issue 12 (one 100,000-character run of "e.g. ") as one claim', () => {
    const answer = 'e.g. '.repeat(19_999) + 'x';
    const spans = segmentClaimSpans(answer);
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({ start: 0, end: answer.length });
  });

  // Growth, not speed: 16× the input must cost far less than the 256× a quadratic splitter needs.
  // CPU time of this process (not wall time) and the best of three runs (one when it takes seconds) keep a busy machine out of it;
  // the bound (64×) is 4× the linear expectation and 4× below quadratic.
  const patterns: Record<string, string> = {
    'e.g. ': 'e.g. ',
    'U.S. ': 'U.S. ',
    'J. ': 'J. ',
    'a.': 'a.',
    'The cat sat. ': 'The cat sat. ',
    'ab.Cd ': 'ab.Cd ',
  };
  it.each(Object.keys(patterns))('grows linearly on %j repeated', (unit) => {
    expect(growth((text) => segmentClaimSpans(text), patterns[unit])).toBeLessThan(32);
  });

  // Issue 17: the table-rule pattern split a run of whitespace between two adjacent \s* in every way (10.4 s
  // for 99,999 spaces and "x"); a pipe or colon in the middle did the same to the run before it.
  it.each([' ', '\t', '\r', ' \t', '  |  ', '  :  '])('grows linearly on a run of %j before a word', (unit) => {
    expect(growth((text) => segmentClaimSpans(text + 'x'), unit)).toBeLessThan(32);
  });

  it('splits the reproducer of issue 17 (99,999 spaces and "x") into the one claim "x"', () => {
    expect(segmentClaimSpans(' '.repeat(99_999) + 'x')).toEqual([{ text: 'x', start: 99_999, end: 100_000 }]);
  });

  // A single 100,000-character claim then goes through the detail check (numbers, dates, names).
  const evidence = evidenceDetails('The Eiffel Tower is in Paris. It was completed in 1889.');
  it.each(['e.g. ', 'Big Names here. ', 'In 1889 the Tower ', 'The '])('checks the details of a long claim in linear time (%j repeated)', (unit) => {
    expect(growth((text) => unverifiedDetails(text, evidence), unit)).toBeLessThan(32);
  });

  it('reads acronyms off a long run of capitalised words in linear time, and still finds short ones', () => {
    expect(growth((text) => evidenceDetails(text), 'Big ')).toBeLessThan(32);
    expect(unverifiedDetails('The WHO said so.', 'The World Health Organization said so.')).toEqual([]);
  });
});

/**
 * CPU time of `f` on 100,000 characters of `unit` repeated, over its time on 12,500: about 8 when linear, 64 when
 * quadratic. Best of five runs each, after a warm-up at both sizes, so that a GC pause or a busy neighbour on a
 * loaded machine inflates neither side (the smaller size was once 6,250 with best of three: too short to time).
 */
function growth(f: (text: string) => unknown, unit: string): number {
  const cpu = (n: number) => {
    const text = unit.repeat(Math.ceil(n / unit.length));
    let best = Infinity;
    for (let r = 0; r < 5; r++) {
      const t0 = process.cpuUsage();
      f(text);
      const t = process.cpuUsage(t0);
      best = Math.min(best, t.user + t.system);
    }
    return Math.max(best, 1);
  };
  cpu(12_500); // warm-up (JIT) at both sizes
  cpu(100_000);
  return cpu(100_000) / cpu(12_500);
}

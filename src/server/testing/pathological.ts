/**
 * Answers built to attack the claim splitter, the detail check and their regular expressions (issue 17): long
 * runs of one character, table rules, giant tokens, deep nesting, mixed scripts and combining marks, and the
 * largest answer /analyze accepts. Generated here rather than kept as fixture files. Each entry says what
 * /analyze answers when the analysis finishes: 200 with a report, 422 when nothing in it is a claim (only
 * markup or punctuation), 400 when it holds more claims than one request may have.
 */
import { heaviestAnswer, MAX_ANSWER_CHARS } from '../../ground/testing/heavy.js';

export interface PathologicalAnswer {
  name: string;
  answer: string;
  /** The status when the analysis finishes in time (else 504). */
  status: 200 | 400 | 422;
}

const N = MAX_ANSWER_CHARS;
/** `unit` repeated to fill `chars` characters (cut at a code-point boundary), then `tail`. */
function fill(unit: string, tail = '', chars = N): string {
  const points = [...unit];
  const out: string[] = [];
  let length = 0;
  for (let i = 0; length + tail.length < chars; i++) {
    const p = points[i % points.length];
    if (length + p.length + tail.length > chars) break;
    out.push(p);
    length += p.length;
  }
  return out.join('') + tail;
}

/** Lines of a nested list, each one level deeper, until the answer is full. */
function nestedList(): string {
  const lines: string[] = [];
  let length = 0;
  for (let depth = 0; ; depth++) {
    const line = `${'  '.repeat(depth % 2000)}- item ${depth} is here`;
    if (length + line.length + 1 > N) break;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}

const scripts = ['English words', 'русские слова', 'ελληνικά λόγια', '中文字符', 'كلمات عربية', 'מילים בעברית', 'हिन्दी शब्द', '日本語の文', '한국어 단어'];

export function pathologicalAnswers(): PathologicalAnswer[] {
  return [
    // the reproducer: TABLE_RULE was quadratic on leading whitespace (10.4 s in one step)
    { name: '99,999 spaces + "x"', answer: ' '.repeat(N - 1) + 'x', status: 200 },
    { name: '99,999 tabs + "x"', answer: '\t'.repeat(N - 1) + 'x', status: 200 },
    { name: 'spaces and tabs + "|x"', answer: fill(' \t', '|x'), status: 200 },
    { name: 'spaces, a pipe, spaces + "x"', answer: ' '.repeat(50_000) + '|' + ' '.repeat(49_998) + 'x', status: 200 },
    { name: 'spaces + ":" + spaces + "x"', answer: ' '.repeat(50_000) + ':' + ' '.repeat(49_998) + 'x', status: 200 },
    { name: '99,999 pipes + "x"', answer: '|'.repeat(N - 1) + 'x', status: 200 },
    { name: '99,999 dashes + "x" (a table rule)', answer: '-'.repeat(N - 1) + 'x', status: 422 },
    { name: '"- " × 49,999 + "x"', answer: fill('- ', 'x'), status: 200 },
    { name: '"* " × 49,999 + "x"', answer: fill('* ', 'x'), status: 200 },
    { name: '"1. " × 33,333 + "x"', answer: fill('1. ', 'x'), status: 400 },
    { name: '"> " × 49,999 + "x"', answer: fill('> ', 'x'), status: 200 },
    { name: '"#" × 99,998 + " x"', answer: fill('#', ' x'), status: 200 },
    { name: '99,999 newlines + "x"', answer: '\n'.repeat(N - 1) + 'x', status: 200 },
    { name: '"\\r\\n" × 49,999 + "x"', answer: fill('\r\n', 'x'), status: 200 },
    { name: '99,999 carriage returns + "x"', answer: '\r'.repeat(N - 1) + 'x', status: 200 },
    { name: 'table rules "|---" × 25,000', answer: fill('|---'), status: 422 },
    { name: 'spaces + one table rule', answer: ' '.repeat(N - 4) + '|---', status: 422 },
    { name: 'a table of 4,000 rows', answer: fill('| a | 1 |\n|---|---|\n'), status: 422 },
    { name: 'rule lines ":---|" × many, one per line', answer: fill(':---|:---|\n'), status: 422 },
    { name: 'code fences "```\\n" × 25,000 + "x"', answer: fill('```\n', 'x'), status: 422 },
    { name: 'a 100,000-letter token', answer: 'a'.repeat(N), status: 200 },
    { name: 'a 100,000-digit number', answer: '7'.repeat(N), status: 200 },
    { name: 'a 100,000-character URL', answer: 'https://example.com/' + fill('a/', '', N - 20), status: 200 },
    { name: '"X200 " × 20,000 (identifiers)', answer: fill('X200 '), status: 200 },
    { name: '"1." × 50,000 (decimals)', answer: fill('1.'), status: 200 },
    { name: '"1," × 50,000', answer: fill('1,'), status: 200 },
    { name: '"12:30 " × 16,666 (times)', answer: fill('12:30 '), status: 200 },
    { name: '"2024-01-01 " × 9,090 (dates)', answer: fill('2024-01-01 '), status: 200 },
    { name: '"$1 50% " × 14,285 (money, percentages)', answer: fill('$1 50% '), status: 200 },
    { name: '"10–14 days " × 9,090 (ranges)', answer: fill('10–14 days '), status: 200 },
    { name: '"e.g. " × 19,999 + "x" (issue 12)', answer: fill('e.g. ', 'x'), status: 200 },
    { name: '"U.S. " × 20,000', answer: fill('U.S. '), status: 200 },
    { name: '"J. " × 33,333', answer: fill('J. '), status: 200 },
    { name: '99,999 full stops + "x"', answer: '.'.repeat(N - 1) + 'x', status: 200 },
    { name: '"?!" × 50,000', answer: fill('?!'), status: 422 },
    { name: '"?" + 99,998 spaces + "x"', answer: '?' + ' '.repeat(N - 2) + 'x', status: 200 },
    { name: '"…" × 99,999 + "x"', answer: '…'.repeat(N - 1) + 'x', status: 200 },
    { name: '":" × 99,999 + "x"', answer: ':'.repeat(N - 1) + 'x', status: 200 },
    { name: '"level.The " × 10,000 (glued sentences)', answer: fill('level.The '), status: 400 },
    { name: 'a lower-case run, then ".A." × many', answer: 'a'.repeat(50_000) + fill('.A', '', 50_000), status: 200 },
    { name: '"(" × 50,000 + "x" + ")" × 49,999', answer: '('.repeat(50_000) + 'x' + ')'.repeat(N - 50_001), status: 200 },
    { name: '"[" × 99,999 + "x"', answer: '['.repeat(N - 1) + 'x', status: 200 },
    { name: '"\\"" × 99,999 + "x"', answer: '"'.repeat(N - 1) + 'x', status: 200 },
    { name: 'nested quotes “‘«»’” × many + "x"', answer: fill('“‘«', 'x', 50_000) + fill('»’”', '', 50_000), status: 200 },
    { name: '"*" × 99,999 + "x"', answer: '*'.repeat(N - 1) + 'x', status: 200 },
    { name: '"_" × 99,999 + "x"', answer: '_'.repeat(N - 1) + 'x', status: 200 },
    { name: 'a list nested thousands of levels deep', answer: nestedList(), status: 400 },
    { name: 'mixed scripts, no full stop', answer: fill(scripts.join(' ') + ' '), status: 200 },
    { name: 'mixed scripts in sentences', answer: fill(scripts.map((s) => s + '. ').join('')), status: 400 },
    { name: '"e" + 99,999 combining acute accents', answer: 'e' + '\u0301'.repeat(N - 1), status: 200 },
    { name: 'zero-width joiners and emoji', answer: fill('👩\u200d👩\u200d👧 \u200b\u200c\u200d\ufeff'), status: 422 },
    { name: 'astral letters "𝔘" × 50,000', answer: fill('𝔘'), status: 200 },
    { name: 'lone surrogates × 99,999 + "x"', answer: '\ud800'.repeat(N - 1) + 'x', status: 200 },
    { name: 'NUL characters × 99,999 + "x"', answer: '\u0000'.repeat(N - 1) + 'x', status: 200 },
    { name: 'right-to-left marks and Arabic', answer: fill('\u202e\u200fمرحبا '), status: 200 },
    { name: 'the heaviest accepted answer (100,000 characters, 200 claims)', answer: heaviestAnswer(), status: 200 },
    { name: '"A b. " × 20,000 (too many claims)', answer: fill('A b. '), status: 400 },
  ];
}

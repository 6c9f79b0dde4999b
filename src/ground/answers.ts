import { createReadStream, readFileSync } from 'node:fs';
import { FirstSeen } from '../core/first-seen.js';
import { withoutBom } from '../core/text.js';
import { UsageError } from '../errors.js';
import { extractClaims } from './claims/claims.js';
import { MAX_ANSWER_CHARS, MAX_QUERY_CHARS } from './types.js';

/**
 * Answers files of `assay analyze --answers` (JSON Lines: `{"query": …, "answer": …}` a line, `id` optional),
 * read as a stream: `checkAnswersFile` checks every line before anything is analysed (each problem names the
 * file, the line and the field, what was expected and what was found), then `readAnswers` yields the lines one
 * at a time. Neither holds the file, its lines or its ids: memory stays flat however many answers there are.
 * Blank lines are skipped; a byte-order mark is dropped.
 */

/** One line of an answers file: what to audit. */
export interface AnswerLine {
  /** The line's `id`, else its line number ("line 7"). */
  id: string;
  line: number;
  query: string;
  /** Absent only when an LLM generates it (--llm / --llm-model). */
  answer?: string;
}

export interface AnswersOptions {
  /** An LLM generates answers that are left out. */
  generate: boolean;
  /** The engine's per-answer limit, checked here so a batch never stops halfway (default 200). */
  maxClaims?: number;
  /** The flag that named the file, in messages (default --answers). */
  flag?: string;
}

/**
 * The longest line read whole (characters): far above the largest valid line (an answer of 100,000 characters
 * and a query of 10,000, even written as \u escapes), so a line that long is refused without being held.
 */
export const MAX_ANSWERS_LINE_CHARS = 2 ** 25;

const KEYS = ['id', 'query', 'answer'];
const SHOWN = 10;

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

type Problem = { field?: string; message: string };
/** A line up to its id: its key (the id, else "line N"), or what is wrong with it. */
type Head = { key: string; query: string; answer: unknown } | Problem;

function head(raw: string, line: number): Head {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return { message: `expected a JSON object {"query": …, "answer": …}, found unreadable JSON (${(err as Error).message})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { message: `expected a JSON object {"query": …, "answer": …}, found ${describe(value)}` };
  const obj = value as Record<string, unknown>;
  const unknown = Object.keys(obj).filter((k) => !KEYS.includes(k));
  if (unknown.length) return { field: unknown[0], message: 'unknown key (expected query, answer and optionally id)' };
  const { id, query, answer } = obj;
  if (typeof query !== 'string' || !query.trim()) return { field: 'query', message: `expected a non-empty string, found ${describe(query)}` };
  if (query.length > MAX_QUERY_CHARS)
    return { field: 'query', message: `expected at most ${MAX_QUERY_CHARS.toLocaleString('en')} characters, found ${query.length.toLocaleString('en')}` };
  if (id !== undefined && !(typeof id === 'string' && id.trim()) && !(typeof id === 'number' && Number.isFinite(id)))
    return { field: 'id', message: `expected a non-empty string or a number, found ${describe(id)}` };
  return { key: id === undefined ? `line ${line}` : String(id), query, answer };
}

/** The line's answer, checked (claims extracted and counted only when `claims`), or what is wrong with it. */
function checkAnswer(answer: unknown, o: AnswersOptions, claims: boolean): { answer?: string } | Problem {
  if (answer === undefined || answer === null) {
    if (!o.generate)
      return { field: 'answer', message: 'expected a string, found nothing (only with --llm or --llm-model may the answer be left out, to be generated)' };
    return {};
  }
  if (typeof answer !== 'string') return { field: 'answer', message: `expected a string, found ${describe(answer)}` };
  if (!answer.trim()) return { field: 'answer', message: 'expected an answer to audit, found an empty string' };
  // Checked before its claims are extracted: that is the work the limit bounds.
  if (answer.length > MAX_ANSWER_CHARS)
    return {
      field: 'answer',
      message: `expected at most ${MAX_ANSWER_CHARS.toLocaleString('en')} characters (split a longer text into answers), found ${answer.length.toLocaleString('en')}`,
    };
  if (claims) {
    const n = extractClaims(answer).length;
    if (n === 0) return { field: 'answer', message: 'expected an answer with a claim to verify, found none (no sentence with words or numbers)' };
    const maxClaims = o.maxClaims ?? 200;
    if (n > maxClaims) return { field: 'answer', message: `expected at most ${maxClaims} claims per answer, found ${n}` };
  }
  return { answer };
}

const isProblem = (x: object): x is Problem => 'message' in x;
const tooLong = (chars: number): Problem => ({
  message: `expected a line of at most ${MAX_ANSWERS_LINE_CHARS.toLocaleString('en')} characters, found ${chars.toLocaleString('en')}`,
});

/** A line of the file: its text, or its length when it is longer than MAX_ANSWERS_LINE_CHARS. */
type RawLine = { line: number; text: string } | { line: number; chars: number };

function* splitLines(text: string): Generator<RawLine> {
  let line = 0;
  for (const t of withoutBom(text).split('\n')) {
    line++;
    yield t.length > MAX_ANSWERS_LINE_CHARS ? { line, chars: t.length } : { line, text: t };
  }
}

/** The file's lines (split at \n, as JSON Lines are), read in chunks: never more than one line held. */
async function* streamLines(file: string, flag: string): AsyncGenerator<RawLine> {
  const pieces: string[] = [];
  let held = 0;
  let line = 1;
  let first = true;
  const done = (): RawLine => {
    const r: RawLine = held > MAX_ANSWERS_LINE_CHARS ? { line, chars: held } : { line, text: pieces.join('') };
    pieces.length = 0;
    held = 0;
    line++;
    return r;
  };
  try {
    for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 16 })) {
      let text = chunk as string;
      if (first) text = withoutBom(text);
      first = false;
      let from = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
        add(text.slice(from, nl));
        from = nl + 1;
        yield done();
      }
      add(text.slice(from));
    }
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${file}: ${(err as Error).message.split('\n')[0]}`, { file, path: flag });
  }
  yield done();

  function add(piece: string): void {
    held += piece.length;
    // Past the limit only the length is counted.
    if (held <= MAX_ANSWERS_LINE_CHARS) pieces.push(piece);
    else pieces.length = 0;
  }
}

/**
 * Every line's problems, in line order: the first ten kept with a count of the rest. A repeated id is found by
 * its hash (FirstSeen) and confirmed by reading the two lines again (`confirm`), so no id is held.
 */
class AnswersCheck {
  private readonly ids = new FirstSeen();
  private readonly shown: { line: number; message: string }[] = [];
  private others = 0;
  /** Lines whose id hashes like an earlier line's: [line, earlier line] pairs, and what else is wrong with each. */
  readonly suspects: { line: number; earlier: number; otherwise?: Problem }[] = [];
  rows = 0;

  constructor(
    private readonly file: string,
    private readonly o: AnswersOptions,
  ) {}

  add(raw: RawLine): void {
    if ('chars' in raw) return this.problem(raw.line, tooLong(raw.chars));
    if (!raw.text.trim()) return;
    const h = head(raw.text, raw.line);
    if (isProblem(h)) return this.problem(raw.line, h);
    const earlier = this.ids.seen(h.key, raw.line);
    const a = checkAnswer(h.answer, this.o, true);
    if (earlier !== undefined) {
      this.suspects.push({ line: raw.line, earlier, ...(isProblem(a) ? { otherwise: a } : {}) });
      return;
    }
    if (isProblem(a)) return this.problem(raw.line, a);
    this.rows++;
  }

  problem(line: number, p: Problem): void {
    const message = `${p.field ? `${p.field}: ` : ''}${p.message}`;
    // Suspects are confirmed after the other lines, so problems may arrive out of line order.
    let at = this.shown.length;
    while (at > 0 && this.shown[at - 1].line > line) at--;
    if (at >= SHOWN) {
      this.others++;
      return;
    }
    this.shown.splice(at, 0, { line, message });
    if (this.shown.length > SHOWN) {
      this.shown.pop();
      this.others++;
    }
  }

  /** Sorts out the suspects: a repeated id, or (a 64-bit hash collision) a line judged on its other fields. */
  confirm(lines: Iterable<RawLine>): void;
  confirm(lines: AsyncIterable<RawLine>): Promise<void>;
  confirm(lines: Iterable<RawLine> | AsyncIterable<RawLine>): void | Promise<void> {
    if (!this.suspects.length) return Symbol.asyncIterator in lines ? Promise.resolve() : undefined;
    const wanted = new Set(this.suspects.map((s) => s.earlier));
    const later = new Map(this.suspects.map((s) => [s.line, s]));
    const keys = new Map<number, string>();
    const visit = (raw: RawLine) => {
      if (!('text' in raw) || (!wanted.has(raw.line) && !later.has(raw.line))) return;
      const h = head(raw.text, raw.line);
      if (isProblem(h)) return;
      if (wanted.has(raw.line)) keys.set(raw.line, h.key);
      const s = later.get(raw.line);
      if (!s) return;
      if (keys.get(s.earlier) === h.key)
        this.problem(s.line, { field: 'id', message: `expected a unique id, found ${JSON.stringify(h.key)} (also on line ${s.earlier})` });
      else if (s.otherwise) this.problem(s.line, s.otherwise);
      else this.rows++;
    };
    if (Symbol.iterator in lines) {
      for (const raw of lines) visit(raw);
      return;
    }
    return (async () => {
      for await (const raw of lines) visit(raw);
    })();
  }

  /** Throws the problems found, or that there was no answer at all. */
  finish(): void {
    const { file, shown, others } = this;
    if (shown.length) {
      const text = shown.map((p) => `${file}:${p.line}: ${p.message}`);
      if (others) text.push(`… and ${others} more`);
      throw new UsageError(text.join('\n'), { file, line: shown[0].line, path: this.o.flag ?? '--answers' });
    }
    if (this.rows === 0)
      throw new UsageError(`${file}: expected at least one line {"query": …, "answer": …}, found none`, { file, path: this.o.flag ?? '--answers' });
  }
}

/** Checks a whole answers file, streamed, before anything is analysed; resolves to the number of answers. */
export async function checkAnswersFile(file: string, o: AnswersOptions): Promise<number> {
  const flag = o.flag ?? '--answers';
  const check = new AnswersCheck(file, o);
  for await (const raw of streamLines(file, flag)) check.add(raw);
  await check.confirm(streamLines(file, flag));
  check.finish();
  return check.rows;
}

/**
 * The answers of a file `checkAnswersFile` passed, one at a time. A line that no longer passes (the file changed
 * in between) stops the batch with a usage error naming it.
 */
export async function* readAnswers(file: string, o: AnswersOptions): AsyncGenerator<AnswerLine> {
  const flag = o.flag ?? '--answers';
  for await (const raw of streamLines(file, flag)) {
    const row = answerLine(raw, o);
    if (row === undefined) continue;
    if ('message' in row)
      throw new UsageError(`${file}:${raw.line}: ${row.message} (the file changed after it was checked)`, { file, line: raw.line, path: flag });
    yield row;
  }
}

function answerLine(raw: RawLine, o: AnswersOptions): AnswerLine | Problem | undefined {
  if ('chars' in raw) return tooLong(raw.chars);
  if (!raw.text.trim()) return undefined;
  const h = head(raw.text, raw.line);
  if (isProblem(h)) return h;
  // The claims were counted by the check; the engine extracts them again.
  const a = checkAnswer(h.answer, o, false);
  if (isProblem(a)) return a;
  return { id: h.key, line: raw.line, query: h.query, ...(a.answer !== undefined ? { answer: a.answer } : {}) };
}

/** A small answers file read whole (library use and tests): the same checks and messages as the stream. */
export function readAnswersFile(file: string, o: AnswersOptions): AnswerLine[] {
  const flag = o.flag ?? '--answers';
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${file}: ${(err as Error).message.split('\n')[0]}`, { file, path: flag });
  }
  const check = new AnswersCheck(file, o);
  for (const raw of splitLines(text)) check.add(raw);
  check.confirm(splitLines(text));
  check.finish();
  const rows: AnswerLine[] = [];
  for (const raw of splitLines(text)) {
    const row = answerLine(raw, o);
    if (row && !('message' in row)) rows.push(row);
  }
  return rows;
}

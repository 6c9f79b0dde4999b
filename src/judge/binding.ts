import type { StructuredMode } from './types.js';

/**
 * A judge's verdict is read only when it is bound to the call that asked for it. Each call carries a fresh
 * random nonce (prompt.ts) that the output under judgement cannot know; the judge must repeat it with its
 * verdict:
 *
 * - structured modes (json_schema, tool, json_object): the one JSON object holds `"nonce": "<nonce>"`
 *   beside `verdict` and `reasons`;
 * - free text (mode `text`): the answer ends with the line `VERDICT <nonce>: PASS` (or `FAIL`), the reasons
 *   before it.
 *
 * So a verdict quoted from the output (planted JSON, a planted verdict line, with no nonce or a guessed one)
 * and an echo of the request are never the judge's: they are `error` outcomes, never a PASS and never a FAIL.
 * The mock servers' judge rules (src/mock/rules.ts) and the test doubles answer through this module too.
 */

export type AnswerFormat = 'json' | 'line';

/** How a judge in `mode` answers: one JSON object in every structured mode, free text ending in a verdict line in `text`. */
export function answerFormatOf(mode: StructuredMode): AnswerFormat {
  return mode === 'text' ? 'line' : 'json';
}

export type BoundVerdict = { verdict: 'pass' | 'fail'; reasons: string[] } | { error: string };

/** Prefix of every binding error (tests, docs and the mock's notes quote it). */
export const NOT_BOUND = "the judge's answer is not bound to this call's nonce";

/** The words of the prompt that state the nonce; a mock judge finds its call by them. */
export const NONCE_STATEMENT = "This call's verdict nonce is";
/** Said in a text-mode prompt only: how the verdict line reads. */
export const LINE_REQUEST = 'end your answer with one last line that reads';

/** The verdict line of a text-mode answer. */
export function verdictLine(nonce: string, verdict: 'PASS' | 'FAIL'): string {
  return `VERDICT ${nonce}: ${verdict}`;
}

/** A judge's answer bound to `nonce`, in `format`: what a deliberate judge (the mock's `judge:` rules, test doubles) says. */
export function boundAnswer(format: AnswerFormat, nonce: string, verdict: 'PASS' | 'FAIL', reasons: readonly string[] = []): string {
  if (format === 'json') return JSON.stringify({ nonce, verdict, reasons });
  return [...reasons.map((r) => `- ${r}`), verdictLine(nonce, verdict)].join('\n');
}

/** A judge request as a mock sees it: the nonce its prompt states and the format it asks for; undefined for any other request. */
export function judgeCallOf(prompt: string): { nonce: string; format: AnswerFormat } | undefined {
  const at = prompt.indexOf(NONCE_STATEMENT);
  if (at < 0) return undefined;
  const nonce = /^\s*([0-9a-f]{16,64})\b/.exec(prompt.slice(at + NONCE_STATEMENT.length))?.[1];
  if (!nonce) return undefined;
  return { nonce, format: prompt.includes(LINE_REQUEST) ? 'line' : 'json' };
}

const excerpt = (raw: string) => JSON.stringify(raw.length > 200 ? `${raw.slice(0, 200)}…` : raw);

/**
 * A verdict line, allowing the decoration models add (bold, backticks, a quote marker, a trailing period):
 * group 1 the nonce (absent on a nonce-less line), group 2 PASS or FAIL.
 */
const LINE = /^[\s>*_`#-]*VERDICT\b[*_`]*(?:\s+[*_`]*([0-9A-Za-z]+)[*_`]*)?\s*[:=-]\s*[*_`"']*(PASS|FAIL)(?:ED)?[*_`"'.!]*\s*$/i;

/** Reasons before a verdict line: one a line, list markers dropped, blank lines and code fences left out. */
function reasonLines(lines: readonly string[]): string[] {
  return lines
    .map((l) =>
      l
        .trim()
        .replace(/^(?:[-*•]|\d+[.)])\s+/, '')
        .trim(),
    )
    .filter((l) => l && !/^```/.test(l) && !/^reasons?:?$/i.test(l));
}

/**
 * Free text (mode `text`): the last line that is not blank (nor a closing code fence) must be this call's
 * verdict line. A line with this nonce elsewhere that disagrees makes the answer ambiguous; lines with
 * other nonces, or none, are text the judge quoted.
 */
export function parseVerdictLine(text: string | null | undefined, nonce: string): BoundVerdict {
  const raw = (text ?? '').trim();
  if (!raw) return { error: 'the judge gave an empty answer' };
  const lines = raw.split(/\r?\n/);
  let last = lines.length - 1;
  while (last >= 0 && (!lines[last].trim() || /^\s*```\s*$/.test(lines[last]))) last--;
  const m = LINE.exec(lines[last] ?? '');
  if (!m)
    return {
      error: `${NOT_BOUND}: it does not end with the line "VERDICT <nonce>: PASS|FAIL" (an echo of the request, or a verdict quoted from the output, is not the judge's): ${excerpt(raw)}`,
    };
  if (m[1] === undefined)
    return { error: `${NOT_BOUND}: its verdict line carries no nonce (a verdict quoted from the output is not the judge's): ${excerpt(raw)}` };
  if (m[1].toLowerCase() !== nonce.toLowerCase())
    return {
      error: `${NOT_BOUND}: its verdict line names the nonce ${JSON.stringify(m[1])}, not this call's (a verdict planted in the output, or an answer to another call): ${excerpt(raw)}`,
    };
  const verdict = m[2].toUpperCase() === 'PASS' ? 'pass' : 'fail';
  for (const l of lines.slice(0, last)) {
    const other = LINE.exec(l);
    if (other?.[1]?.toLowerCase() === nonce.toLowerCase() && (other[2].toUpperCase() === 'PASS' ? 'pass' : 'fail') !== verdict)
      return { error: `ambiguous judge answer: it gives this call's verdict both as PASS and as FAIL: ${excerpt(raw)}` };
  }
  return { verdict, reasons: reasonLines(lines.slice(0, last).filter((l) => LINE.exec(l)?.[1]?.toLowerCase() !== nonce.toLowerCase())) };
}

/** A structured answer's binding: its `nonce` field (any case of the key) must be this call's. */
export function nonceProblem(obj: Record<string, unknown>, nonce: string): string | undefined {
  const key = Object.keys(obj).find((k) => k.toLowerCase() === 'nonce');
  const value = key === undefined ? undefined : obj[key];
  if (value === undefined || value === null)
    return `${NOT_BOUND}: it has no "nonce" field (a verdict quoted from the output, or a default answer, is not the judge's)`;
  if (typeof value !== 'string' || !value.trim()) return `${NOT_BOUND}: its "nonce" field is ${JSON.stringify(value)} (a default answer is not the judge's)`;
  if (value.trim().toLowerCase() !== nonce.toLowerCase())
    return `${NOT_BOUND}: its "nonce" field holds ${JSON.stringify(value)}, not this call's (a verdict planted in the output, or an answer to another call)`;
  return undefined;
}

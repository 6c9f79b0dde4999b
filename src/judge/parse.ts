/**
 * Reading a judge's answer robustly: a JSON object, possibly in a code fence, after some prose, or inside
 * other text; verdict keys and PASS/FAIL in any case. Anything else is unparsable, which the caller turns
 * into an `error` outcome (a judge we cannot read has not failed the output).
 */

import { nonceProblem } from './binding.js';

export type ParsedVerdict = { verdict: 'pass' | 'fail'; reasons: string[] } | { error: string };

const VERDICT_KEYS = ['verdict', 'result', 'decision', 'outcome', 'grade'];
const REASON_KEYS = ['reasons', 'reason', 'explanation', 'feedback'];
const BOOLEAN_KEYS = ['pass', 'passed', 'passes'];

/** End (exclusive) of the balanced {...} starting at `start`, strings and escapes respected; -1 if unbalanced. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return i + 1;
  }
  return -1;
}

/** Every balanced {...} substring, in order of appearance (strings and escapes respected). */
export function jsonObjectCandidates(text: string): string[] {
  const out: string[] = [];
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    const end = balancedEnd(text, start);
    if (end !== -1) out.push(text.slice(start, end));
  }
  return out;
}

function normaliseVerdict(v: unknown): 'pass' | 'fail' | undefined {
  if (typeof v === 'boolean') return v ? 'pass' : 'fail';
  if (typeof v !== 'string') return undefined;
  const s = v
    .trim()
    .toUpperCase()
    .replace(/[^A-Z]/g, '');
  if (s === 'PASS' || s === 'PASSED') return 'pass';
  if (s === 'FAIL' || s === 'FAILED') return 'fail';
  return undefined;
}

function reasonsOf(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v))
    return v
      .map((r) => (typeof r === 'string' ? r : JSON.stringify(r)))
      .map((r) => r.trim())
      .filter(Boolean);
  if (typeof v === 'string') return v.trim() ? [v.trim()] : [];
  return [JSON.stringify(v)];
}

/** Read a verdict from a parsed JSON value; undefined when it carries none. */
export function verdictFromObject(obj: unknown): ParsedVerdict | undefined {
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return undefined;
  const lower = new Map(Object.entries(obj).map(([k, v]) => [k.toLowerCase(), v]));
  let verdict: 'pass' | 'fail' | undefined;
  for (const k of VERDICT_KEYS) if (verdict === undefined && lower.has(k)) verdict = normaliseVerdict(lower.get(k));
  for (const k of BOOLEAN_KEYS) if (verdict === undefined && typeof lower.get(k) === 'boolean') verdict = normaliseVerdict(lower.get(k));
  if (verdict === undefined) return undefined;
  const key = REASON_KEYS.find((k) => lower.has(k));
  return { verdict, reasons: key ? reasonsOf(lower.get(key)) : [] };
}

/**
 * The outermost JSON objects in a text that parse, in order: an object nested in one already found (a
 * `details` field, say) is part of it, not a verdict of its own.
 */
function topLevelObjects(text: string): unknown[] {
  const out: unknown[] = [];
  let covered = -1;
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    if (start < covered) continue;
    const end = balancedEnd(text, start);
    if (end === -1) continue;
    try {
      out.push(JSON.parse(text.slice(start, end)));
      covered = end;
    } catch {
      // not JSON: an object nested in it may still be
    }
  }
  return out;
}

export function parseVerdict(text: string | null | undefined): ParsedVerdict {
  const raw = (text ?? '').trim();
  if (!raw) return { error: 'the judge gave an empty answer' };
  const verdicts = topLevelObjects(raw).flatMap((o) => verdictFromObject(o) ?? []);
  if (verdicts.length > 0) {
    // A judge that quotes the output may quote a verdict planted in it ("{"verdict":"PASS"}"): when the
    // objects in its answer disagree, we cannot tell which is its own, so the answer is unreadable.
    const kinds = new Set(verdicts.map((v) => ('verdict' in v ? v.verdict : 'error')));
    if (kinds.size > 1) return { error: `ambiguous judge answer: it holds both PASS and FAIL verdicts: ${JSON.stringify(raw.slice(0, 200))}` };
    return verdicts[verdicts.length - 1];
  }
  // A bare word and nothing else ("PASS", "**FAIL**.") is unambiguous; prose mentioning both is not.
  const bare = normaliseVerdict(raw.length <= 20 ? raw : '');
  if (bare) return { verdict: bare, reasons: [] };
  return { error: `unparsable judge answer: ${JSON.stringify(raw.slice(0, 200))}` };
}

/**
 * A structured answer (a JSON-schema response format, a forced tool call, JSON mode): the whole answer must be
 * one JSON object, and that object is the verdict. Nothing else is searched, so a verdict the judge quotes
 * from a hostile output can never be taken for its own. With `nonce` (as the judge reads every answer), the
 * object must also carry this call's nonce (binding.ts): an output that is itself a verdict object, echoed
 * back, is not the judge's.
 */
export function parseStructuredVerdict(text: string | null | undefined, nonce?: string): ParsedVerdict {
  const raw = (text ?? '')
    .trim()
    .replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/i, '$1')
    .trim();
  if (!raw) return { error: 'the judge gave an empty answer' };
  let obj: unknown;
  try {
    obj = JSON.parse(raw);
  } catch {
    // Not the one object asked for: never read as a verdict. Say why as precisely as the lenient reader can
    // (an answer quoting a planted verdict beside its own is ambiguous).
    const lenient = parseVerdict(raw);
    if ('error' in lenient) return lenient;
    return {
      error: `unparsable judge answer: expected one JSON verdict object bound to this call's nonce, and nothing else; found ${JSON.stringify(raw.slice(0, 200))}`,
    };
  }
  const verdict = verdictFromObject(obj);
  if (!verdict) return { error: `unparsable judge answer: the JSON holds no PASS/FAIL verdict: ${JSON.stringify(raw.slice(0, 200))}` };
  const unbound = nonce === undefined ? undefined : nonceProblem(obj as Record<string, unknown>, nonce);
  return unbound ? { error: `${unbound}: ${JSON.stringify(raw.slice(0, 200))}` } : verdict;
}

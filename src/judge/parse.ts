/**
 * Reading a judge's answer robustly: a JSON object, possibly in a code fence, after some prose, or inside
 * other text; verdict keys and PASS/FAIL in any case. Anything else is unparsable, which the caller turns
 * into an `error` outcome (a judge we cannot read has not failed the output).
 */

export type ParsedVerdict = { verdict: 'pass' | 'fail'; reasons: string[] } | { error: string };

const VERDICT_KEYS = ['verdict', 'result', 'decision', 'outcome', 'grade'];
const REASON_KEYS = ['reasons', 'reason', 'explanation', 'feedback'];
const BOOLEAN_KEYS = ['pass', 'passed', 'passes'];

/** Every balanced {...} substring, in order of appearance (strings and escapes respected). */
export function jsonObjectCandidates(text: string): string[] {
  const out: string[] = [];
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const ch = text[i];
      if (inString) {
        if (ch === '\\') i++;
        else if (ch === '"') inString = false;
      } else if (ch === '"') inString = true;
      else if (ch === '{') depth++;
      else if (ch === '}' && --depth === 0) {
        out.push(text.slice(start, i + 1));
        break;
      }
    }
  }
  return out;
}

function normaliseVerdict(v: unknown): 'pass' | 'fail' | undefined {
  if (typeof v === 'boolean') return v ? 'pass' : 'fail';
  if (typeof v !== 'string') return undefined;
  const s = v.trim().toUpperCase().replace(/[^A-Z]/g, '');
  if (s === 'PASS' || s === 'PASSED') return 'pass';
  if (s === 'FAIL' || s === 'FAILED') return 'fail';
  return undefined;
}

function reasonsOf(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).map((r) => r.trim()).filter(Boolean);
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

export function parseVerdict(text: string | null | undefined): ParsedVerdict {
  const raw = (text ?? '').trim();
  if (!raw) return { error: 'the judge gave an empty answer' };
  const fenced = [...raw.matchAll(/```[a-zA-Z]*\s*([\s\S]*?)```/g)].map((m) => m[1]);
  for (const chunk of [...fenced, raw]) {
    for (const candidate of [chunk.trim(), ...jsonObjectCandidates(chunk)]) {
      try {
        const v = verdictFromObject(JSON.parse(candidate));
        if (v) return v;
      } catch {
        // not JSON: try the next candidate
      }
    }
  }
  // A bare word and nothing else ("PASS", "**FAIL**.") is unambiguous; prose mentioning both is not.
  const bare = normaliseVerdict(raw.length <= 20 ? raw : '');
  if (bare) return { verdict: bare, reasons: [] };
  return { error: `unparsable judge answer: ${JSON.stringify(raw.slice(0, 200))}` };
}

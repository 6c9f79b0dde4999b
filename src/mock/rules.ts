import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import * as z from 'zod';
import { mulberry32 } from '../core/prng.js';
import { UsageError } from '../errors.js';
import { boundAnswer, judgeCallOf } from '../judge/binding.js';
import type { ChatHandler, MockChatView, MockReply } from './types.js';

/**
 * What `assay mock` answers: the first rule that matches the last user message, else an echo of it. A
 * client that asks for JSON with a schema and matches no rule gets the smallest object of that schema.
 *
 * A judge's request is no exception: its verdict counts only when bound to the call's nonce (src/judge/
 * binding.ts), which neither an echo nor a schema's smallest object carries, so without a rule every verdict
 * is an `error` saying so. A rule with `judge: pass` or `judge: fail` answers a judge deliberately: bound to
 * the nonce it finds in the request, in the format asked (JSON, or a verdict line), with its `reasons`.
 */

const ERROR_STATUS = 'expected an HTTP error status from 400 to 599';

export const mockRuleSchema = z.strictObject({
  /** Matches when the last user message contains this text (case-insensitive). */
  match: z.string().min(1, { error: 'expected a non-empty string' }).optional(),
  /** Matches when this regular expression finds the last user message. */
  regex: z.string().min(1, { error: 'expected a non-empty regular expression' }).optional(),
  /** Matches only requests for this model. */
  model: z.string().min(1, { error: 'expected a non-empty model name' }).optional(),
  /** The answer; `{{input}}` is the last user message. */
  reply: z.string().optional(),
  /** Answer a judge's request (only those) with this verdict, bound to the request's nonce. */
  judge: z.enum(['pass', 'fail'], { error: 'expected "pass" or "fail" (the verdict this rule gives a judge request)' }).optional(),
  /** The judge's reasons with `judge:` (default: none on pass, one saying which rule failed it on fail). */
  reasons: z.array(z.string({ error: 'expected a list of strings' }), { error: 'expected a list of strings' }).optional(),
  /** An HTTP error status instead of an answer. */
  status: z.number().int({ error: ERROR_STATUS }).min(400, { error: ERROR_STATUS }).max(599, { error: ERROR_STATUS }).optional(),
  retryAfterSeconds: z.number().min(0, { error: 'expected a number of seconds ≥ 0' }).optional(),
  delayMs: z.number().min(0, { error: 'expected a number of milliseconds ≥ 0' }).optional(),
});
export type MockRule = z.output<typeof mockRuleSchema>;

export interface MockResponderOptions {
  rules?: readonly MockRule[];
  /** Added to every answer, in ms. */
  latencyMs?: number;
  /** Share of requests answered with `errorStatus` (default 503) instead. */
  errorRate?: number;
  errorStatus?: number;
  /** Seed of the error draws (default 1). */
  seed?: number;
}

function lastUser(view: MockChatView): string {
  for (let i = view.messages.length - 1; i >= 0; i--) if (view.messages[i].role === 'user') return view.messages[i].content;
  return '';
}

/** The smallest value of a JSON Schema: first enum value, empty string, 0, false→true, [] and required properties. */
export function minimalValue(schema: unknown): unknown {
  const s = (schema ?? {}) as { type?: string | string[]; enum?: unknown[]; properties?: Record<string, unknown>; required?: string[]; const?: unknown };
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === 'object' || s.properties) {
    const out: Record<string, unknown> = {};
    for (const k of s.required ?? Object.keys(s.properties ?? {})) out[k] = minimalValue(s.properties?.[k]);
    return out;
  }
  if (type === 'array') return [];
  if (type === 'number' || type === 'integer') return 0;
  if (type === 'boolean') return true;
  if (type === 'null') return null;
  return '';
}

export function mockResponder(options: MockResponderOptions = {}): ChatHandler {
  const rules = (options.rules ?? []).map((r) => ({ ...r, re: r.regex !== undefined ? new RegExp(r.regex) : undefined }));
  const random = mulberry32(options.seed ?? 1);
  const delay = options.latencyMs ?? 0;
  return (view): MockReply => {
    if (options.errorRate && random() < options.errorRate) return { status: options.errorStatus ?? 503, delayMs: delay };
    const input = lastUser(view);
    const judgeCall = judgeCallOf(view.system ?? '');
    const rule = rules.find(
      (r) =>
        (r.judge === undefined || judgeCall !== undefined) &&
        (r.model === undefined || r.model === view.model) &&
        (r.match === undefined || input.toLowerCase().includes(r.match.toLowerCase())) &&
        (r.re === undefined || r.re.test(input)),
    );
    const delayMs = delay + (rule?.delayMs ?? 0);
    if (rule?.status !== undefined)
      return { status: rule.status, delayMs, ...(rule.retryAfterSeconds !== undefined ? { retryAfterSeconds: rule.retryAfterSeconds } : {}) };
    if (rule?.reply !== undefined) return { content: rule.reply.replaceAll('{{input}}', input), delayMs };
    if (rule?.judge !== undefined && judgeCall) {
      const reasons = rule.reasons ?? (rule.judge === 'fail' ? [`failed by the mock rule ${describeRule(rule)}`] : []);
      return { content: boundAnswer(judgeCall.format, judgeCall.nonce, rule.judge === 'pass' ? 'PASS' : 'FAIL', reasons), delayMs };
    }
    if (view.json && view.schema !== undefined) return { content: JSON.stringify(minimalValue(view.schema)), delayMs };
    return { content: input, delayMs };
  };
}

/** A rule in a few words, for the reasons of a judge rule. */
function describeRule(r: MockRule): string {
  if (r.match !== undefined) return `match ${JSON.stringify(r.match)}`;
  if (r.regex !== undefined) return `regex ${JSON.stringify(r.regex)}`;
  return r.model !== undefined ? `for model ${JSON.stringify(r.model)}` : 'that matches every request';
}

/** A rule's first problem as config errors read: the field, what was expected, what was found. */
function explainRuleIssue(issue: z.core.$ZodIssue & { input?: unknown }): { field: string; message: string } {
  if (issue.code === 'unrecognized_keys')
    return { field: issue.keys[0], message: `unknown key (expected one of: ${Object.keys(mockRuleSchema.shape).join(', ')})` };
  const expected = issue.message.startsWith('expected')
    ? issue.message
    : issue.code === 'invalid_type'
      ? `expected ${issue.expected === 'object' ? 'an object' : `a ${issue.expected}`}`
      : issue.message;
  const found = issue.input === undefined ? 'nothing' : JSON.stringify(issue.input);
  return { field: issue.path.map(String).join('.'), message: `${expected}, found ${found}` };
}

/** Rules from a YAML file (a list, or { rules: [...] }) or JSON Lines (one rule a line); errors name file and line. */
export function loadMockRules(file: string): MockRule[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--rules: cannot read ${file}: ${(err as Error).message}`, { file, path: '--rules' });
  }
  const rows: { value: unknown; line: number }[] = [];
  const ext = extname(file).toLowerCase();
  const jsonLines = ext === '.jsonl' || ext === '.ndjson';
  if (jsonLines) {
    text.split('\n').forEach((l, n) => {
      if (!l.trim()) return;
      try {
        rows.push({ value: JSON.parse(l), line: n + 1 });
      } catch (err) {
        throw new UsageError(`${file}:${n + 1}: expected a JSON object, found unreadable JSON (${(err as Error).message})`, { file, line: n + 1 });
      }
    });
  } else {
    const lc = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lc });
    if (doc.errors.length) {
      const e = doc.errors[0];
      throw new UsageError(`${file}:${e.linePos?.[0].line ?? 1}: ${e.message.split('\n')[0]}`, { file, line: e.linePos?.[0].line });
    }
    const raw = doc.toJS() as unknown;
    const list = Array.isArray(raw) ? raw : (raw as { rules?: unknown })?.rules;
    if (!Array.isArray(list))
      throw new UsageError(`${file}: expected a list of rules (or { rules: [...] }), found ${raw === null ? 'nothing' : typeof raw}`, { file });
    list.forEach((value, i) => rows.push({ value, line: i + 1 }));
  }
  return rows.map(({ value, line }) => {
    const r = mockRuleSchema.safeParse(value, { reportInput: true });
    const where = jsonLines ? `${file}:${line}` : `${file}: rules[${line - 1}]`;
    if (!r.success) {
      // As config errors read: the field, what was expected, what was found.
      const { field, message } = explainRuleIssue(r.error.issues[0]);
      throw new UsageError(`${where}${field ? (jsonLines ? `: ${field}` : `.${field}`) : ''}: ${message}`, { file, ...(jsonLines ? { line } : {}) });
    }
    const at = { file, ...(jsonLines ? { line } : {}) };
    const other = (['reply', 'status'] as const).find((k) => r.data[k] !== undefined);
    if (r.data.judge !== undefined && other) throw new UsageError(`${where}: expected either judge or ${other} (a rule gives one answer), found both`, at);
    if (r.data.reasons !== undefined && r.data.judge === undefined)
      throw new UsageError(`${where}${jsonLines ? ': ' : '.'}reasons: expected only beside judge: pass or judge: fail (they are the judge's reasons)`, at);
    if (r.data.regex !== undefined) {
      try {
        new RegExp(r.data.regex);
      } catch (err) {
        throw new UsageError(`${where}.regex: expected a regular expression, found ${JSON.stringify(r.data.regex)} (${(err as Error).message})`, { file });
      }
    }
    return r.data;
  });
}

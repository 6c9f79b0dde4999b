import { readFileSync } from 'node:fs';
import { withoutBom } from '../core/text.js';
import { extname } from 'node:path';
import * as z from 'zod';
import { mulberry32 } from '../core/prng.js';
import { UsageError } from '../errors.js';
import { describeFound, explainIssues, fieldError, issuesError, schemaKeys, type IssuePath, type Locate } from '../core/issues.js';
import { readYaml } from '../config/yaml.js';
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

const CALL_EXPECTED = 'expected { name: <tool>, arguments?: { … } }, or a list of them (calls made at once)';
const callSchema = z.strictObject(
  { name: z.string().min(1, { error: 'expected a tool name' }), arguments: z.record(z.string(), z.unknown(), { error: 'expected an object' }).optional() },
  { error: CALL_EXPECTED },
);

export const mockRuleSchema = z.strictObject({
  /** Matches when the last user message contains this text (case-insensitive). */
  match: z.string().min(1, { error: 'expected a non-empty string' }).optional(),
  /** Matches when this regular expression finds the last user message. */
  regex: z.string().min(1, { error: 'expected a non-empty regular expression' }).optional(),
  /** Matches only requests for this model. */
  model: z.string().min(1, { error: 'expected a non-empty model name' }).optional(),
  /** Matches when the request's last message is a result of this tool (`*`: of any tool): the model reacting to it. */
  afterTool: z.string().min(1, { error: 'expected a tool name, or * for any tool' }).optional(),
  /** Matches when the request's last message is a tool result containing this text (case-insensitive). */
  result: z.string().min(1, { error: 'expected a non-empty string' }).optional(),
  /** The answer; `{{input}}` is the last user message, `{{result}}` the last tool result, `{{1}}` … the regex's groups. */
  reply: z.string().optional(),
  /**
   * Answer with a call of this tool, its arguments templated like `reply`. Without `afterTool` or `result` it answers
   * only the first request of a user's turn (no tool result yet), so the tool's result does not trigger it again.
   */
  call: z.union([callSchema, z.array(callSchema).min(1, { error: 'expected at least one call' })], { error: CALL_EXPECTED }).optional(),
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

/** The tool result the request ends with (the model is to react to it), if it ends with one. */
function lastToolResult(view: MockChatView): { name?: string; content: string } | undefined {
  const last = view.messages[view.messages.length - 1];
  return last?.role === 'tool' ? { ...(last.toolName !== undefined ? { name: last.toolName } : {}), content: last.content } : undefined;
}

/** `{{input}}`, `{{result}}` and `{{1}}` … `{{9}}` (the rule's regex groups) in a text. */
function fill(text: string, vars: { input: string; result: string; groups: readonly string[] }): string {
  return text.replace(/\{\{(input|result|[1-9])\}\}/g, (_m, k: string) =>
    k === 'input' ? vars.input : k === 'result' ? vars.result : (vars.groups[Number(k)] ?? ''),
  );
}

/** The arguments with every string in them templated. */
function fillValue(v: unknown, vars: Parameters<typeof fill>[1]): unknown {
  if (typeof v === 'string') return fill(v, vars);
  if (Array.isArray(v)) return v.map((x) => fillValue(x, vars));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fillValue(x, vars)]));
  return v;
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
    const tool = lastToolResult(view);
    const judgeCall = judgeCallOf(view.system ?? '');
    const rule = rules.find(
      (r) =>
        (r.judge === undefined || judgeCall !== undefined) &&
        (r.model === undefined || r.model === view.model) &&
        (r.match === undefined || input.toLowerCase().includes(r.match.toLowerCase())) &&
        (r.re === undefined || r.re.test(input)) &&
        (r.afterTool === undefined || (tool !== undefined && (r.afterTool === '*' || tool.name === r.afterTool))) &&
        (r.result === undefined || (tool !== undefined && tool.content.toLowerCase().includes(r.result.toLowerCase()))) &&
        // A call answers the start of a turn unless it says which result it follows: its own result does not repeat it.
        (r.call === undefined || r.afterTool !== undefined || r.result !== undefined || tool === undefined),
    );
    const delayMs = delay + (rule?.delayMs ?? 0);
    if (rule?.status !== undefined)
      return { status: rule.status, delayMs, ...(rule.retryAfterSeconds !== undefined ? { retryAfterSeconds: rule.retryAfterSeconds } : {}) };
    const vars = { input, result: tool?.content ?? '', groups: rule?.re?.exec(input) ?? [] };
    if (rule?.call !== undefined) {
      const calls = (Array.isArray(rule.call) ? rule.call : [rule.call]).map((c) => ({
        name: c.name,
        arguments: JSON.stringify(fillValue(c.arguments ?? {}, vars)),
      }));
      return calls.length === 1 ? { content: '', toolCall: calls[0], delayMs } : { content: '', toolCalls: calls, delayMs };
    }
    if (rule?.reply !== undefined) return { content: fill(rule.reply, vars), delayMs };
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
  if (r.afterTool !== undefined) return `after the tool ${JSON.stringify(r.afterTool)}`;
  return r.model !== undefined ? `for model ${JSON.stringify(r.model)}` : 'that matches every request';
}

/** Rules from a YAML file (a list, or { rules: [...] }) or JSON Lines (one rule a line); errors name file and line. */
export function loadMockRules(file: string): MockRule[] {
  let text: string;
  try {
    text = withoutBom(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--rules: cannot read ${file}: ${(err as Error).message}`, { file, path: '--rules' });
  }
  // Each rule with where it sits: a YAML list item (rules[i], its lines known) or a JSON line (the line).
  const rows: { value: unknown; prefix: IssuePath; locate: Locate }[] = [];
  const ext = extname(file).toLowerCase();
  if (ext === '.jsonl' || ext === '.ndjson') {
    text.split('\n').forEach((l, n) => {
      if (!l.trim()) return;
      const locate = () => n + 1;
      try {
        rows.push({ value: JSON.parse(l), prefix: [], locate });
      } catch (err) {
        throw issuesError({ file, locate }, [{ path: [], message: `expected a JSON object, found unreadable JSON (${(err as Error).message})` }]);
      }
    });
  } else {
    const { raw, locate } = readYaml(text, file);
    const list = Array.isArray(raw) ? raw : (raw as { rules?: unknown })?.rules;
    if (!Array.isArray(list)) throw fieldError({ file }, [], `expected a list of rules (or { rules: [...] }), found ${describeFound(raw ?? undefined)}`);
    // Messages say rules[i] either way; the document has the list at its root or under `rules:`.
    const at = (path: IssuePath) => locate(Array.isArray(raw) ? path.slice(1) : path);
    list.forEach((value, i) => rows.push({ value, prefix: ['rules', i], locate: at }));
  }
  return rows.map(({ value, prefix, locate }) => {
    const source = { file, locate };
    const r = mockRuleSchema.safeParse(value, { reportInput: true });
    // As config errors read: the field, what was expected, what was found, the line.
    if (!r.success) throw issuesError(source, explainIssues(r.error.issues, { prefix, keysAt: schemaKeys(mockRuleSchema) }));
    const answers = (['reply', 'call', 'status'] as const).filter((k) => r.data[k] !== undefined);
    if (answers.length > 1) throw fieldError(source, prefix, `expected one of reply, call or status (a rule gives one answer), found ${answers.join(' and ')}`);
    const other = answers[0];
    if (r.data.judge !== undefined && other) throw fieldError(source, prefix, `expected either judge or ${other} (a rule gives one answer), found both`);
    if (r.data.reasons !== undefined && r.data.judge === undefined)
      throw fieldError(source, [...prefix, 'reasons'], "expected only beside judge: pass or judge: fail (they are the judge's reasons)");
    if (r.data.regex !== undefined) {
      try {
        new RegExp(r.data.regex);
      } catch (err) {
        throw fieldError(source, [...prefix, 'regex'], `expected a regular expression, found ${describeFound(r.data.regex)} (${(err as Error).message})`);
      }
    }
    return r.data;
  });
}

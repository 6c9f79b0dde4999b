import type * as z from 'zod';
import { UsageError } from '../errors.js';
import { quoted } from './show.js';
import { pushAll } from './arrays.js';

/**
 * The one translator from zod issues to what a person reads: `<file>: <field>: expected …, found … (line N)`,
 * with "did you mean" for an unknown key. Every surface that checks what a user wrote goes through it: config
 * files (YAML, JSON, TypeScript), `system:` and `judge:` values, rate limits, check options, describeReliability
 * options and matcher arguments, mock rules files, SPADE files, the HTTP API's bodies. Pure: no I/O.
 */

type Issue = z.core.$ZodIssue & { input?: unknown };
export type IssuePath = readonly PropertyKey[];

/** One problem at a field path, worded "expected …, found …". */
export interface LocatedMessage {
  path: IssuePath;
  message: string;
}

/** The keys allowed at a path of the checked object (for "did you mean"); undefined when not known. */
export type KeysAt = (path: IssuePath, input: unknown) => string[] | undefined;

/** The line of a field path in the file it was read from; undefined when not known (a TypeScript config, a stored copy). */
export type Locate = (path: IssuePath) => number | undefined;

/** `validators[0].minSuccess` from ['validators', 0, 'minSuccess']. */
export function formatPath(path: IssuePath): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out;
}

/** What the user wrote, short enough for one line: `"text"`, `42`, `[1]`, `a list of 12`, `an object`, `nothing`. */
export function describeFound(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'string') return quoted(v.length <= 58 ? v : `${v.slice(0, 55)}...`);
  let json: string | undefined;
  try {
    json = JSON.stringify(v);
  } catch {
    json = undefined;
  }
  if (json !== undefined && json.length <= 60) return json;
  if (Array.isArray(v)) return `a list of ${v.length}`;
  if (typeof v === 'object' && v !== null) return 'an object';
  return json === undefined ? typeof v : `${json.slice(0, 57)}...`;
}

/** Edit distance, for "did you mean" on unknown keys. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length][b.length];
}

/** An unknown key, with the keys allowed there and the nearest one when it is close enough to be a typo. */
export function unknownKeyMessage(key: string, known: readonly string[] | undefined): string {
  if (!known) return 'unknown key';
  const best = known.map((k) => [k, distance(key.toLowerCase(), k.toLowerCase())] as const).sort((a, b) => a[1] - b[1])[0];
  const hint = best && best[1] <= Math.max(2, Math.floor(key.length / 3)) ? `; did you mean "${best[0]}"?` : '';
  return `unknown key (expected one of: ${known.join(', ')})${hint}`;
}

// ---- the keys a schema allows at a path (read from zod's definitions) ----

interface Def {
  type: string;
  shape?: Record<string, unknown>;
  innerType?: unknown;
  element?: unknown;
  options?: unknown[];
  discriminator?: string;
  in?: unknown;
  valueType?: unknown;
  values?: unknown[];
}
const defOf = (s: unknown): Def | undefined => (s as { _zod?: { def?: Def } } | undefined)?._zod?.def;
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional', 'lazy']);

/** The schema under optional/default/pipe wrappers. */
function bare(s: unknown): unknown {
  for (let d = defOf(s); d; d = defOf(s)) {
    if (WRAPPERS.has(d.type) && d.innerType !== undefined) s = d.innerType;
    else if (d.type === 'pipe') s = d.in;
    else break;
  }
  return s;
}

/** The object options of a union that fit `input` (by its discriminator, when the union has one). */
function objectOptions(d: Def, input: unknown): unknown[] {
  const objects = (d.options ?? []).map(bare).filter((o) => defOf(o)?.type === 'object');
  if (d.discriminator === undefined || !input || typeof input !== 'object') return objects;
  const tag = (input as Record<string, unknown>)[d.discriminator];
  return objects.filter((o) => defOf(defOf(o)!.shape![d.discriminator!])?.values?.includes(tag));
}

function step(s: unknown, p: PropertyKey, input: unknown): unknown {
  const d = defOf(bare(s));
  if (!d) return undefined;
  if (d.type === 'object') return d.shape?.[String(p)];
  if (d.type === 'array') return typeof p === 'number' ? d.element : undefined;
  if (d.type === 'record') return d.valueType;
  if (d.type === 'union') {
    const fits = objectOptions(d, input).filter((o) => defOf(o)!.shape![String(p)] !== undefined);
    return fits.length === 1 ? defOf(fits[0])!.shape![String(p)] : undefined;
  }
  return undefined;
}

/** "Did you mean" from the schema itself: the keys of the object the schema has at a path. */
export function schemaKeys(schema: unknown): KeysAt {
  return (path, input) => {
    let s: unknown = schema;
    for (const p of path) if ((s = step(s, p, undefined)) === undefined) return undefined;
    const d = defOf(bare(s));
    if (d?.type === 'object') return Object.keys(d.shape ?? {});
    if (d?.type !== 'union') return undefined;
    const fits = objectOptions(d, input);
    return fits.length === 1 ? Object.keys(defOf(fits[0])!.shape ?? {}) : undefined;
  };
}

// ---- issues → messages ----

export interface ExplainOptions {
  /** Put before every issue's path (where the checked value sits in its document). */
  prefix?: IssuePath;
  /** The keys allowed at a path (relative to the checked value), for "did you mean". */
  keysAt?: KeysAt;
}

/**
 * Turns zod issues into one "expected …, found …" message each, at its field path, descending into unions.
 * Parse with `{ reportInput: true }` so that the message can say what was found.
 */
export function explainIssues(issues: readonly z.core.$ZodIssue[], options: ExplainOptions = {}): LocatedMessage[] {
  return explain(issues as readonly Issue[], [], options.keysAt ?? (() => undefined)).map((m) => ({
    path: [...(options.prefix ?? []), ...m.path],
    message: m.message,
  }));
}

function explain(issues: readonly Issue[], prefix: IssuePath, keysAt: KeysAt): LocatedMessage[] {
  const out: LocatedMessage[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys) out.push({ path: [...path, key], message: unknownKeyMessage(key, keysAt(path, issue.input)) });
        break;
      case 'invalid_union': {
        if (issue.discriminator !== undefined) {
          const found = issue.input && typeof issue.input === 'object' ? (issue.input as Record<string, unknown>)[issue.discriminator] : issue.input;
          const options = (issue as { options?: unknown[] }).options ?? [];
          // zod v4 already puts the discriminator key on the path; do not add it twice
          const at = path[path.length - 1] === issue.discriminator ? path : [...path, issue.discriminator];
          out.push({ path: at, message: `expected one of ${options.map((o) => String(o)).join(', ')}, found ${describeFound(found)}` });
          break;
        }
        // The branch that got past the root is the one the user meant; otherwise say what the union wants.
        const deep = issue.errors.filter((branch) => branch.some((b) => b.path.length > 0 || b.code !== 'invalid_type'));
        if (deep.length === 1) pushAll(out, explain(deep[0] as Issue[], path, keysAt));
        else out.push({ path, message: withFound(issue.message, issue.input) });
        break;
      }
      case 'invalid_value': {
        // A schema's own "expected …" wins, as for every other code.
        const own = issue.message.startsWith('expected') ? issue.message : `expected one of ${issue.values.map((v) => String(v)).join(', ')}`;
        out.push({ path, message: withFound(own, issue.input) });
        break;
      }
      default: {
        const message = issue.message.startsWith('expected') ? issue.message : genericMessage(issue);
        out.push({ path, message: withFound(message, issue.input) });
      }
    }
  }
  return out;
}

function withFound(message: string, input: unknown): string {
  return /\bfound\b/.test(message) ? message : `${message}, found ${describeFound(input)}`;
}

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bigint: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'a list',
};

function genericMessage(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${ARTICLE[issue.expected] ?? issue.expected}`;
    case 'too_small':
      if (issue.origin === 'array' || issue.origin === 'set') return `expected at least ${String(issue.minimum)} item(s)`;
      if (issue.origin === 'string')
        return Number(issue.minimum) === 1 ? 'expected a non-empty string' : `expected at least ${String(issue.minimum)} characters`;
      return `expected a number ${issue.inclusive === false ? '>' : '≥'} ${String(issue.minimum)}`;
    case 'too_big':
      if (issue.origin === 'array' || issue.origin === 'set') return `expected at most ${String(issue.maximum)} item(s)`;
      if (issue.origin === 'string') return `expected at most ${String(issue.maximum)} characters`;
      return `expected a number ${issue.inclusive === false ? '<' : '≤'} ${String(issue.maximum)}`;
    case 'invalid_format':
      return `expected a valid ${issue.format}`;
    case 'not_multiple_of':
      return `expected a multiple of ${String(issue.divisor)}`;
    default:
      return `expected a valid value (${issue.message.replace(/^Invalid input: /, '')})`;
  }
}

// ---- messages → one error ----

/** Where checked values came from, as messages name it. */
export interface IssueSource {
  /** The file as the user wrote it (or what stands for one: `support.test.ts › bot (describeReliability)`). */
  file?: string;
  /** A code expression the paths continue (`toSatisfy(rule)` → `toSatisfy(rule).type: …`), instead of a file. */
  expression?: string;
  /** The line of a field path, when the file was parsed with positions (YAML). */
  locate?: Locate;
  /** Structured `where.key` of the error (an option's key, which the CLI shows as its flag). */
  key?: string;
}

/** The lines of a list of problems: `<file>: <field>: <message> (line N)` each, in file order, at most 10. */
export function issueLines(source: IssueSource, unsorted: readonly LocatedMessage[]): { lines: string[]; first?: LocatedMessage } {
  const locate = source.locate ?? (() => undefined);
  // In file order, so the first message is the first problem the user will see in the editor.
  const messages = unsorted
    .map((m, i) => ({ m, i, line: locate(m.path) ?? Infinity }))
    .sort((a, b) => a.line - b.line || a.i - b.i)
    .map((x) => x.m);
  const lines = messages.slice(0, 10).map((m) => {
    const line = locate(m.path);
    const field = formatPath(m.path);
    const head =
      source.expression !== undefined
        ? `${source.expression}${field ? (field.startsWith('[') ? field : `.${field}`) : ''}: `
        : `${source.file !== undefined ? `${source.file}: ` : ''}${field ? `${field}: ` : ''}`;
    return `${head}${m.message}${line ? ` (line ${line})` : ''}`;
  });
  if (messages.length > 10) lines.push(`… and ${messages.length - 10} more`);
  return { lines, first: messages[0] };
}

/** One UsageError for a document's problems (see issueLines), with the first one's file, field and line as `where`. */
export function issuesError(source: IssueSource, messages: readonly LocatedMessage[]): UsageError {
  const { lines, first } = issueLines(source, messages);
  const path = first ? formatPath(first.path) : undefined;
  const line = first ? source.locate?.(first.path) : undefined;
  return new UsageError(lines.join('\n'), {
    ...(source.file !== undefined ? { file: source.file } : {}),
    ...(source.expression !== undefined ? { path: source.expression } : path ? { path } : {}),
    ...(line !== undefined ? { line } : {}),
    ...(source.key !== undefined ? { key: source.key } : {}),
  });
}

/** A zod failure as one UsageError: `issuesError(source, explainIssues(issues, { prefix, keysAt: schemaKeys(schema) }))`. */
export function zodUsageError(error: { issues: readonly z.core.$ZodIssue[] }, source: IssueSource & { prefix?: IssuePath; schema?: unknown }): UsageError {
  const keysAt = source.schema !== undefined ? schemaKeys(source.schema) : undefined;
  return issuesError(source, explainIssues(error.issues, { ...(source.prefix ? { prefix: source.prefix } : {}), ...(keysAt ? { keysAt } : {}) }));
}

/** `verifiers[0].judge.openai` → ['verifiers', 0, 'judge', 'openai']: the inverse of formatPath. */
export function parseFieldPath(path: string): PropertyKey[] {
  const out: PropertyKey[] = [];
  for (const part of path.split('.')) for (const m of part.matchAll(/([^[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]);
  return out;
}

/** One problem at one field (`system.openai.model`, or its keys) as a UsageError, worded like every other. */
export function fieldError(source: IssueSource, path: string | IssuePath, message: string): UsageError {
  return issuesError(source, [{ path: typeof path === 'string' ? parseFieldPath(path) : path, message }]);
}

/** A request body's first problem for an HTTP API: its field and the message every other surface would print. */
export function firstIssue(error: { issues: readonly z.core.$ZodIssue[] }, schema: unknown): { field?: string; message: string } {
  const [first] = explainIssues(error.issues, { keysAt: schemaKeys(schema) });
  const field = first && first.path.length ? formatPath(first.path) : undefined;
  return { ...(field ? { field } : {}), message: first ? `${field ? `${field}: ` : ''}${first.message}` : 'invalid request' };
}

import type * as z from 'zod';
import { quoted } from '../core/show.js';
import { configCheckSchema } from '../validators/grounded-schema.js';
import { CONFIG_KEYS, validatorConfigSchema, verifierConfigSchema } from './schema.js';

type Issue = z.core.$ZodIssue & { input?: unknown };
type Path = readonly PropertyKey[];

/** `validators[0].minSuccess` from ['validators', 0, 'minSuccess']. */
export function formatPath(path: Path): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out;
}

/** What the user wrote, short enough for one line. */
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

/** The keys allowed at a path of the checked object (for "did you mean"); undefined when not known. */
export type KeysAt = (path: Path, input: unknown) => string[] | undefined;

/** The keys of a config file's objects. */
function knownKeys(path: Path, input: unknown): string[] | undefined {
  const p = path.map((x) => (typeof x === 'number' ? '#' : String(x))).join('.');
  if (p === '') return CONFIG_KEYS;
  if (p === 'validators.#') return Object.keys(validatorConfigSchema.shape);
  if (p === 'verifiers.#') return Object.keys(verifierConfigSchema.shape);
  if (p === 'validators.#.check') return checkKeys(input);
  return undefined;
}

/** The keys of a check spec of its `type` (`{ type: 'contains', value }` → type, value, …); undefined for an unknown type. */
export function checkKeys(input: unknown): string[] | undefined {
  if (!input || typeof input !== 'object') return undefined;
  const type = (input as { type?: unknown }).type;
  const option = configCheckSchema.options.find((o) => (o.shape.type as unknown as { value: unknown }).value === type);
  return option ? Object.keys(option.shape) : undefined;
}

function unknownKeyMessage(key: string, known: string[] | undefined): string {
  if (!known) return 'unknown key';
  const best = known.map((k) => [k, distance(key.toLowerCase(), k.toLowerCase())] as const).sort((a, b) => a[1] - b[1])[0];
  const hint = best && best[1] <= Math.max(2, Math.floor(key.length / 3)) ? `; did you mean "${best[0]}"?` : '';
  return `unknown key (expected one of: ${known.join(', ')})${hint}`;
}

export interface LocatedMessage {
  path: Path;
  message: string;
}

/**
 * Turns zod issues into one "field: expected …, found …" message each, descending into unions. `keysAt` names
 * the keys of an object other than a config file (a describeReliability block's options, a matcher's).
 */
export function explainIssues(issues: readonly Issue[], prefix: Path = [], keysAt: KeysAt = knownKeys): LocatedMessage[] {
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
        if (deep.length === 1) out.push(...explainIssues(deep[0] as Issue[], path, keysAt));
        else out.push({ path, message: withFound(issue.message, issue.input) });
        break;
      }
      case 'invalid_value':
        out.push({ path, message: `expected one of ${issue.values.map((v) => String(v)).join(', ')}, found ${describeFound(issue.input)}` });
        break;
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

function genericMessage(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected === 'record' ? 'object' : issue.expected}`;
    case 'too_small':
      return issue.origin === 'array' ? `expected at least ${issue.minimum} item(s)` : `expected a value ≥ ${issue.minimum}`;
    case 'too_big':
      return issue.origin === 'array' ? `expected at most ${issue.maximum} item(s)` : `expected a value ≤ ${issue.maximum}`;
    default:
      return `expected a valid value (${issue.message})`;
  }
}

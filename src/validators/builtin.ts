import type { Ajv, ValidateFunction } from 'ajv';
import * as z from 'zod';
import type { Validator } from '../core/validator.js';
import { quoted } from '../core/show.js';
import { AssayError, ExitCode, hasMarker, setMarker } from '../errors.js';
import { lazyPackage } from '../lazy.js';
import { ajvRegExp, compileLinearRegex, RegexOptionError, type LinearRegex } from './regex.js';
import { buildTrajectoryCheck, isTrajectoryCheck, TRAJECTORY_CHECK_TYPES, trajectoryCheckSchemas, type TrajectoryPredicate } from './trajectory-checks.js';

/**
 * Built-in check types for YAML/JSON configs. Each is written `check: { type: <name>, ...options }`
 * and becomes an ordinary Validator whose `source` says, in words, what it checks.
 */
const stringOrList = z.union([z.string(), z.array(z.string()).min(1)]);
const bounds = { min: z.number().int().nonnegative().optional(), max: z.number().int().nonnegative().optional() };
const boundsRefine = (b: { min?: number; max?: number }) => b.min !== undefined || b.max !== undefined;
const boundsMessage = { message: 'expected at least one of min or max' };

/** The checks of an output's text (SPADE's assertions are these). */
export const textCheckSchemas = [
  z.strictObject({ type: z.literal('contains'), value: stringOrList, ignoreCase: z.boolean().optional(), match: z.enum(['all', 'any']).optional() }),
  z.strictObject({ type: z.literal('not-contains'), value: stringOrList, ignoreCase: z.boolean().optional() }),
  z.strictObject({ type: z.literal('regex'), pattern: z.string(), flags: z.string().optional(), mustMatch: z.boolean().optional() }),
  z.strictObject({ type: z.literal('max-count'), pattern: z.string(), flags: z.string().optional(), max: z.number().int().nonnegative() }),
  z.strictObject({ type: z.literal('words'), ...bounds }).refine(boundsRefine, boundsMessage),
  z.strictObject({ type: z.literal('sentences'), ...bounds }).refine(boundsRefine, boundsMessage),
  z.strictObject({ type: z.literal('json') }),
  z.strictObject({ type: z.literal('json-schema'), schema: z.record(z.string(), z.unknown()) }),
] as const;
export const textCheckSchema = z.discriminatedUnion('type', [...textCheckSchemas]);

export const checkSchema = z.discriminatedUnion('type', [
  ...textCheckSchemas,
  // An agent's steps (validators/trajectory-checks.ts): the text checks above read its final answer.
  ...trajectoryCheckSchemas,
]);

export type CheckSpec = z.infer<typeof checkSchema>;
export type CheckType = CheckSpec['type'];
export const CHECK_TYPES: readonly CheckType[] = [
  'contains',
  'not-contains',
  'regex',
  'max-count',
  'words',
  'sentences',
  'json',
  'json-schema',
  ...TRAJECTORY_CHECK_TYPES,
];

const CHECK_OPTION_ERROR = Symbol.for('assay.CheckOptionError');

/** Thrown for a check whose options are well-typed but unusable (bad regex, bad JSON Schema). */
export class CheckOptionError extends AssayError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message, ExitCode.USAGE);
    this.name = 'CheckOptionError';
    setMarker(this, CHECK_OPTION_ERROR);
  }

  static override isInstance(err: unknown): err is CheckOptionError {
    return hasMarker(err, CHECK_OPTION_ERROR);
  }
}

export interface ValidatorHeader {
  name: string;
  message?: string;
  minSuccess: number;
  weight?: number;
  timeoutMs?: number;
}

/** A Validator from a built-in check. Options are assumed already parsed by `checkSchema`. */
export function builtinValidator(header: ValidatorHeader, check: CheckSpec): Validator {
  const { predicate, source } = buildCheck(check);
  builtinPredicates.add(predicate);
  return validatorFromHeader(header, source, predicate);
}

/** Predicates of built-in checks: linear-time code of ours, called directly (see interruptible.ts). */
const builtinPredicates = new WeakSet<Validator['predicate']>();

export function isBuiltinPredicate(predicate: Validator['predicate']): boolean {
  return builtinPredicates.has(predicate);
}

/** The Validator of a config entry's header, its source (what it checks, in words or code) and predicate. */
export function validatorFromHeader(header: ValidatorHeader, source: string, predicate: Validator['predicate']): Validator {
  return {
    name: header.name,
    message: header.message ?? `Output does not satisfy: ${source}`,
    minSuccess: header.minSuccess,
    ...(header.weight !== undefined ? { weight: header.weight } : {}),
    ...(header.timeoutMs !== undefined ? { timeoutMs: header.timeoutMs } : {}),
    kind: 'validator',
    predicate,
    source,
  };
}

/** A check's predicate: text checks read the output (the final answer); trajectory checks the steps. */
export function buildCheck(check: CheckSpec): { predicate: TrajectoryPredicate; source: string } {
  if (isTrajectoryCheck(check)) return buildTrajectoryCheck(check, compileSchema);
  switch (check.type) {
    case 'contains': {
      const values = list(check.value);
      const norm = normaliser(check.ignoreCase);
      const any = check.match === 'any';
      const needles = values.map(norm);
      return {
        predicate: (o) => (any ? needles.some((n) => norm(o).includes(n)) : needles.every((n) => norm(o).includes(n))),
        source: `contains ${any && values.length > 1 ? 'any of ' : values.length > 1 ? 'all of ' : ''}${quoteList(values)}${check.ignoreCase ? ' (ignoring case)' : ''}`,
      };
    }
    case 'not-contains': {
      const values = list(check.value);
      const norm = normaliser(check.ignoreCase);
      const needles = values.map(norm);
      return {
        predicate: (o) => !needles.some((n) => norm(o).includes(n)),
        source: `does not contain ${values.length > 1 ? 'any of ' : ''}${quoteList(values)}${check.ignoreCase ? ' (ignoring case)' : ''}`,
      };
    }
    case 'regex': {
      const re = compileRegex(check.pattern, (check.flags ?? '').replace(/[gy]/g, ''));
      const must = check.mustMatch ?? true;
      return { predicate: (o) => re.test(o) === must, source: `${must ? 'matches' : 'does not match'} ${re.display}` };
    }
    case 'max-count': {
      const flags = check.flags ?? '';
      const re = compileRegex(check.pattern, flags.includes('g') ? flags : flags + 'g');
      return { predicate: (o) => re.count(o) <= check.max, source: `at most ${check.max} match${check.max === 1 ? '' : 'es'} of ${re.display}` };
    }
    case 'words':
      return { predicate: (o) => within(countWords(o), check), source: `word count ${describeBounds(check)}` };
    case 'sentences':
      return { predicate: (o) => within(countSentences(o), check), source: `sentence count ${describeBounds(check)}` };
    case 'json':
      return { predicate: (o) => parses(o), source: 'parses as JSON' };
    case 'json-schema': {
      const validate = compileSchema(check.schema);
      return {
        predicate: (o) => {
          let value: unknown;
          try {
            value = JSON.parse(o);
          } catch {
            return false; // not JSON at all: the output breaks the rule, it is not an infrastructure error
          }
          return validate(value);
        },
        source: `parses as JSON matching the schema ${truncate(JSON.stringify(check.schema), 120)}`,
      };
    }
  }
}

function list(v: string | string[]): string[] {
  return Array.isArray(v) ? v : [v];
}

function normaliser(ignoreCase?: boolean): (s: string) => string {
  return ignoreCase ? (s) => s.toLocaleLowerCase() : (s) => s;
}

function quoteList(values: string[]): string {
  return values.map(quoted).join(', ');
}

/** A linear-time (RE2) regex: no pattern can make a check hang (see regex.ts). */
function compileRegex(pattern: string, flags: string): LinearRegex {
  try {
    return compileLinearRegex(pattern, flags);
  } catch (err) {
    if (RegexOptionError.isInstance(err)) throw new CheckOptionError(err.field, err.message);
    throw err;
  }
}

export function countMatches(re: RegExp, text: string): number {
  let n = 0;
  for (const _ of text.matchAll(re)) n++;
  return n;
}

/** Words are maximal runs of non-whitespace characters. */
export function countWords(text: string): number {
  return text.match(/\S+/gu)?.length ?? 0;
}

// Made on first use: making one loads ICU's segmentation data (≈ 8 ms), which a run without this check never needs.
let sentenceSegmenter: Intl.Segmenter | undefined;

/** Sentences by Unicode sentence segmentation (UAX #29); segments of only whitespace or punctuation do not count. */
export function countSentences(text: string): number {
  sentenceSegmenter ??= new Intl.Segmenter('en', { granularity: 'sentence' });
  let n = 0;
  for (const s of sentenceSegmenter.segment(text)) if (/[\p{L}\p{N}]/u.test(s.segment)) n++;
  return n;
}

function within(n: number, b: { min?: number; max?: number }): boolean {
  return (b.min === undefined || n >= b.min) && (b.max === undefined || n <= b.max);
}

function describeBounds(b: { min?: number; max?: number }): string {
  if (b.min !== undefined && b.max !== undefined) return `between ${b.min} and ${b.max}`;
  return b.min !== undefined ? `at least ${b.min}` : `at most ${b.max}`;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function truncate(s: string, n: number): string {
  return s.length <= n ? s : s.slice(0, n - 1) + '…';
}

// Ajv loads with the first json-schema check, not with every config (start-up, docs/runner.md).
const ajvPackage = lazyPackage<typeof import('ajv')>('ajv');
const ajv2020Package = lazyPackage<typeof import('ajv/dist/2020.js')>('ajv/dist/2020.js');
const ajvFormats = lazyPackage<{ default?: unknown }>('ajv-formats');

/** A JSON Schema's validator: Ajv (2020-12 when the schema says so) with formats, `pattern` on the linear-time engine. */
export function compileSchema(schema: Record<string, unknown>, field = 'schema'): ValidateFunction {
  const is2020 = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12');
  // `pattern` keywords run on the linear-time engine too.
  const options = { allErrors: false, strict: false, code: { regExp: ajvRegExp } };
  const ajv: Ajv = is2020 ? new (ajv2020Package().Ajv2020)(options) : new (ajvPackage().Ajv)(options);
  // ajv-formats is CommonJS: its module object is the plugin (with itself as `default`).
  const addFormats = (ajvFormats().default ?? ajvFormats()) as (ajv: Ajv) => Ajv;
  addFormats(ajv);
  try {
    return ajv.compile(schema);
  } catch (err) {
    throw new CheckOptionError(field, `expected a valid JSON Schema, found one that does not compile (${(err as Error).message})`);
  }
}

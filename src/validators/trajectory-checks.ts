import type { ValidateFunction } from 'ajv';
import * as z from 'zod';
import { quoted } from '../core/show.js';
import { toolCallsOf, type ToolCallRecord, type Trajectory } from '../core/trajectory.js';
import type { InputValue } from '../core/validator.js';
import { AssayError, ExitCode, hasMarker, setMarker } from '../errors.js';

/**
 * Built-in checks of an agent's trajectory (core/trajectory.ts): which tools it called, with what arguments,
 * how often, in what order, in how many steps, whether its arguments fit the declared schemas and whether any
 * call failed. Written like the text checks (`check: { type: tool-called, name: refund }`); the text checks
 * read the final answer. A trajectory check of an output without steps is an `error` outcome, never a FAIL.
 */

const name = z.string({ error: 'expected a tool name' }).min(1, { error: 'expected a tool name' });
const count = (what: string) =>
  z
    .number({ error: `expected ${what}` })
    .int({ error: `expected ${what}` })
    .nonnegative({ error: `expected ${what}` });
const jsonSchema = z.record(z.string(), z.unknown(), { error: 'expected a JSON Schema (an object)' });
const argumentsMatch = z.record(z.string(), z.unknown(), { error: 'expected the arguments to match, an object such as { orderId: A1 }' });

export const trajectoryCheckSchemas = [
  z
    .strictObject({
      type: z.literal('tool-called'),
      name,
      /** The call's arguments include these (objects matched key by key, recursively). */
      arguments: argumentsMatch.optional(),
      /** The call's arguments are valid against this JSON Schema. */
      argumentsSchema: jsonSchema.optional(),
      /** Exactly this many matching calls (instead of min/max). */
      times: count('a whole number of calls ≥ 0').optional(),
      min: count('a whole number of calls ≥ 0').optional(),
      max: count('a whole number of calls ≥ 0').optional(),
    })
    .refine((c) => c.times === undefined || (c.min === undefined && c.max === undefined), { error: 'expected times, or min and max, not both' })
    .refine((c) => c.min === undefined || c.max === undefined || c.min <= c.max, { error: 'expected min ≤ max' }),
  z.strictObject({ type: z.literal('tool-not-called'), name: z.union([name, z.array(name).min(1)], { error: 'expected a tool name or a list of them' }) }),
  z.strictObject({
    type: z.literal('tool-order'),
    sequence: z.array(name, { error: 'expected a list of tool names' }).min(1, { error: 'expected at least one tool name' }),
    mode: z.enum(['exact', 'in-order', 'any-order']).optional(),
  }),
  z.strictObject({
    type: z.literal('max-steps'),
    max: z
      .number({ error: 'expected a whole number of steps ≥ 1' })
      .int({ error: 'expected a whole number of steps ≥ 1' })
      .min(1, { error: 'expected a whole number of steps ≥ 1' }),
  }),
  z.strictObject({
    type: z.literal('tool-args-valid'),
    /** Schemas of tools' arguments by tool name, over (or instead of) those the trajectory declares. */
    tools: z.record(z.string(), jsonSchema, { error: 'expected { <tool name>: <JSON Schema of its arguments> }' }).optional(),
  }),
  z.strictObject({ type: z.literal('no-tool-errors') }),
] as const;

export const TRAJECTORY_CHECK_TYPES = ['tool-called', 'tool-not-called', 'tool-order', 'max-steps', 'tool-args-valid', 'no-tool-errors'] as const;
export type TrajectoryCheckType = (typeof TRAJECTORY_CHECK_TYPES)[number];
export type TrajectoryCheckSpec = z.infer<(typeof trajectoryCheckSchemas)[number]>;

export function isTrajectoryCheck(c: { type: string }): c is TrajectoryCheckSpec {
  return (TRAJECTORY_CHECK_TYPES as readonly string[]).includes(c.type);
}

const TRAJECTORY_CHECK_ERROR = Symbol.for('assay.TrajectoryCheckError');

/**
 * A trajectory check that cannot be checked on this output (it has no steps; no tool is declared to check
 * arguments against): an `error` outcome, never a FAIL, and never turned into one by `onError: fail`.
 */
export class TrajectoryCheckError extends AssayError {
  constructor(message: string) {
    super(message, ExitCode.USAGE);
    this.name = 'TrajectoryCheckError';
    setMarker(this, TRAJECTORY_CHECK_ERROR);
  }

  static override isInstance(err: unknown): err is TrajectoryCheckError {
    return hasMarker(err, TRAJECTORY_CHECK_ERROR);
  }
}

/** Why a trajectory check of a text-only output decides nothing. */
export function noTrajectoryMessage(check: string): string {
  return `${check} needs the agent's steps, and this output has none: the system answered with text only (return the AI SDK's generateText result, or { output, steps })`;
}

/** A check's predicate: the final answer, the input and the trajectory. */
export type TrajectoryPredicate = (output: string, input?: InputValue, trajectory?: Trajectory) => boolean;

/** `expected` is included in `actual`: objects key by key (recursively), arrays element by element, the rest equal. */
export function partialMatch(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((e, n) => partialMatch(actual[n], e));
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
    return Object.entries(expected).every(
      ([k, v]) => Object.prototype.hasOwnProperty.call(actual, k) && partialMatch((actual as Record<string, unknown>)[k], v),
    );
  }
  return Object.is(actual, expected) || actual === expected;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

function timesText(c: { times?: number; min?: number; max?: number }): string {
  if (c.times !== undefined) return `exactly ${plural(c.times, 'time')}`;
  if (c.min !== undefined && c.max !== undefined) return `${c.min} to ${plural(c.max, 'time')}`;
  if (c.max !== undefined) return `at most ${plural(c.max, 'time')}`;
  return `at least ${plural(c.min ?? 1, 'time')}`;
}

const truncate = (s: string, n: number) => (s.length <= n ? s : s.slice(0, n - 1) + '…');

/**
 * A trajectory check's predicate and what it checks, in words. `compile` makes a JSON Schema validator (the
 * text checks' own, builtin.ts: Ajv loaded on first use, patterns on the linear-time engine).
 */
export function buildTrajectoryCheck(
  check: TrajectoryCheckSpec,
  compile: (schema: Record<string, unknown>, field: string) => ValidateFunction,
): { predicate: TrajectoryPredicate; source: string } {
  const needs = (t: Trajectory | undefined): Trajectory => {
    if (!t) throw new TrajectoryCheckError(noTrajectoryMessage(check.type));
    return t;
  };
  switch (check.type) {
    case 'tool-called': {
      const validate = check.argumentsSchema ? compile(check.argumentsSchema, 'argumentsSchema') : undefined;
      const matches = (c: ToolCallRecord) =>
        c.name === check.name &&
        (check.arguments === undefined || partialMatch(c.arguments, check.arguments)) &&
        (validate === undefined || (c.arguments !== undefined && validate(c.arguments)));
      const ok = (n: number) =>
        check.times !== undefined ? n === check.times : n >= (check.min ?? (check.max === undefined ? 1 : 0)) && (check.max === undefined || n <= check.max);
      const args = [
        check.arguments ? `with arguments including ${truncate(JSON.stringify(check.arguments), 80)}` : '',
        check.argumentsSchema ? `with arguments matching the schema ${truncate(JSON.stringify(check.argumentsSchema), 80)}` : '',
      ].filter(Boolean);
      return {
        predicate: (_o, _i, t) => ok(toolCallsOf(needs(t)).filter(matches).length),
        source: `calls the tool ${quoted(check.name)}${args.length ? ` ${args.join(' and ')}` : ''} ${timesText(check)}`,
      };
    }
    case 'tool-not-called': {
      const names = Array.isArray(check.name) ? check.name : [check.name];
      return {
        predicate: (_o, _i, t) => !toolCallsOf(needs(t)).some((c) => names.includes(c.name)),
        source: `never calls ${names.length > 1 ? 'any of the tools ' : 'the tool '}${names.map(quoted).join(', ')}`,
      };
    }
    case 'tool-order': {
      const mode = check.mode ?? 'in-order';
      const seq = check.sequence;
      const test = (called: string[]): boolean => {
        if (mode === 'exact') return called.length === seq.length && called.every((n, x) => n === seq[x]);
        if (mode === 'in-order') {
          let at = 0;
          for (const n of called) if (n === seq[at]) at++;
          return at === seq.length;
        }
        const left = [...called];
        return seq.every((n) => {
          const x = left.indexOf(n);
          if (x < 0) return false;
          left.splice(x, 1);
          return true;
        });
      };
      const list = seq.map(quoted).join(', ');
      const source =
        mode === 'exact'
          ? `calls exactly the tools ${list}, in that order`
          : mode === 'in-order'
            ? `calls the tools ${list} in that order`
            : `calls the tools ${list}, in any order`;
      return { predicate: (_o, _i, t) => test(toolCallsOf(needs(t)).map((c) => c.name)), source };
    }
    case 'max-steps':
      // A run the step limit cut short, or a conversation its turn limit ended before its stop condition, did not
      // finish: a failure of this check, whatever its count.
      return {
        predicate: (_o, _i, t) => needs(t).steps.length <= check.max && needs(t).ended !== 'max-steps' && needs(t).ended !== 'max-turns',
        source: `finishes within ${plural(check.max, 'step')}`,
      };
    case 'tool-args-valid': {
      const own = new Map(Object.entries(check.tools ?? {}).map(([n, s]) => [n, compile(s, `tools.${n}`)]));
      // Schemas a trajectory declares, compiled once each (the same declarations come back with every sample).
      const compiled = new Map<string, ValidateFunction>();
      const declared = (t: Trajectory, tool: string): ValidateFunction | null | undefined => {
        if (own.has(tool)) return own.get(tool);
        const d = t.tools?.find((x) => x.name === tool);
        if (!d) return undefined;
        if (!d.parameters) return null;
        const key = JSON.stringify(d.parameters);
        let v = compiled.get(key);
        if (!v) {
          try {
            v = compile(d.parameters, 'parameters');
          } catch (err) {
            // The agent's own declaration is broken: nothing to check its calls against (an error, not its failure).
            throw new TrajectoryCheckError(`tool-args-valid: the tool ${quoted(tool)} declares a schema that does not compile: ${(err as Error).message}`);
          }
          compiled.set(key, v);
        }
        return v;
      };
      return {
        predicate: (_o, _i, t) => {
          const tr = needs(t);
          if (!own.size && !tr.tools?.length)
            throw new TrajectoryCheckError(
              'tool-args-valid has no schema to check arguments against: the trajectory declares no tools and the check has no tools: option',
            );
          return toolCallsOf(tr).every((c) => {
            const v = declared(tr, c.name);
            if (v === undefined) return false; // a tool that was never declared
            if (c.arguments === undefined) return false; // arguments that were not JSON
            return v === null || v(c.arguments);
          });
        },
        source: `every tool call names a declared tool, with arguments valid against its schema${check.tools ? ` (${Object.keys(check.tools).map(quoted).join(', ')} given here)` : ''}`,
      };
    }
    case 'no-tool-errors':
      return { predicate: (_o, _i, t) => !toolCallsOf(needs(t)).some((c) => c.error !== undefined), source: 'no tool call ends in an error' };
  }
}

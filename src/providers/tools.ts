import type { Ajv, ValidateFunction } from 'ajv';
import * as z from 'zod';
import { fieldError, type IssuePath, type Locate } from '../core/issues.js';
import type { ToolDeclaration } from '../core/trajectory.js';
import { lazyPackage } from '../lazy.js';

/**
 * The tools of a provider system that acts (`system: { openai: { tools: [...] } }`): each a name, a description
 * and the JSON Schema of its arguments, with what it does — a function (`execute`, in a TypeScript config) or a
 * stub (a fixed `result`, `results` chosen by rules on the arguments, or an `error`). The loop that runs them is
 * agent-system.ts.
 */

/** What a tool function is given besides its arguments: the call's abort signal (its timeout or the run's stop). */
export interface ToolCallContext {
  signal: AbortSignal;
  /** The call's id, as the model gave it. */
  toolCallId: string;
}

export type ToolFunction = (args: unknown, ctx: ToolCallContext) => unknown;

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const ms = (what: string) =>
  z
    .number({ error: `expected ${what}` })
    .int({ error: `expected ${what}` })
    .min(0, { error: `expected ${what}` });
const posMs = z
  .number({ error: 'expected a whole number of milliseconds ≥ 1' })
  .int({ error: 'expected a whole number of milliseconds ≥ 1' })
  .min(1, { error: 'expected a whole number of milliseconds ≥ 1' });

/** One rule of a stub: when the arguments include `when` (key by key), answer `result` or fail with `error`. */
const stubRuleSchema = z
  .strictObject(
    {
      when: z.record(z.string(), z.unknown(), { error: 'expected the arguments to match, an object such as { orderId: A1 }' }).optional(),
      result: z.unknown().optional(),
      error: z.string({ error: 'expected the error message, a string' }).optional(),
    },
    { error: 'expected { when?: { …arguments }, result | error }' },
  )
  .superRefine((r, ctx) => {
    if ((r.result === undefined) === (r.error === undefined))
      ctx.addIssue({ code: 'custom', path: [], message: `expected either result or error, found ${r.result === undefined ? 'neither' : 'both'}` });
  });

const BEHAVIOURS = ['execute', 'result', 'results', 'error'] as const;

export const toolSchema = z
  .strictObject(
    {
      name: z.string({ error: 'expected a tool name' }).regex(TOOL_NAME, { error: 'expected a tool name of letters, digits, _ and - (at most 64)' }),
      description: z.string({ error: 'expected a string' }).optional(),
      /** JSON Schema of the arguments; default: an object with any properties. */
      parameters: z.record(z.string(), z.unknown(), { error: 'expected a JSON Schema (an object)' }).optional(),
      /** The tool itself (a TypeScript config): its arguments in, its result out; a throw is the call's error. */
      execute: z.custom<ToolFunction>((v) => typeof v === 'function', { error: 'expected a function (args, { signal }) => result' }).optional(),
      /** A stub: this result for every call. */
      result: z.unknown().optional(),
      /** A stub: the first rule whose `when` the arguments include gives the result (or error). */
      results: z.array(stubRuleSchema, { error: 'expected a list of { when?, result | error }' }).min(1, { error: 'expected at least one rule' }).optional(),
      /** A stub: every call fails with this message. */
      error: z.string({ error: 'expected the error message, a string' }).optional(),
      /** A stub's answer waits this long (to try the per-call timeout). */
      delayMs: ms('a whole number of milliseconds ≥ 0').optional(),
    },
    { error: 'expected a tool { name, description?, parameters?, execute | result | results | error }' },
  )
  .superRefine((t, ctx) => {
    const given = BEHAVIOURS.filter((k) => t[k] !== undefined);
    if (given.length !== 1)
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `expected one of execute (a function, in a TypeScript config), result, results or error, found ${given.length ? given.join(' and ') : 'none'}`,
      });
  });

const nonEmpty = z.string({ error: 'expected a non-empty string' }).min(1, { error: 'expected a non-empty string' });

/**
 * A conversation: several user turns, each answered by the agent (with its tools, if any). The turns are the input's
 * `turns` (a scripted conversation), or the input and then a simulated user's replies.
 */
export const conversationSchema = z.strictObject(
  {
    /** User turns at most (default 10); a conversation still going then ends as `max-turns`. */
    maxTurns: z
      .number({ error: 'expected a whole number of turns from 1 to 100' })
      .int({ error: 'expected a whole number of turns from 1 to 100' })
      .min(1, { error: 'expected a whole number of turns from 1 to 100' })
      .max(100, { error: 'expected a whole number of turns from 1 to 100' })
      .optional(),
    /** The conversation ends when the agent's reply contains this text (case-insensitive). */
    stopWhen: nonEmpty.optional(),
    /** A simulated user: a model given a persona and a goal (both may use the input's {{fields}}). */
    user: z
      .strictObject(
        {
          model: z.unknown().refine((v) => v !== undefined && v !== null, { error: 'expected a provider object such as { openai: { model: gpt-4o-mini } }' }),
          persona: nonEmpty,
          goal: nonEmpty,
        },
        { error: 'expected { model: { <provider>: {...} }, persona, goal }' },
      )
      .optional(),
  },
  { error: 'expected { maxTurns?, stopWhen?, user?: { model, persona, goal } }' },
);
export type ConversationConfig = z.output<typeof conversationSchema>;

/** What a system's options gain when it acts: its tools, its step limit and each tool call's time limit. */
export const agentOptionsShape = {
  tools: z.array(toolSchema, { error: 'expected a list of tools' }).min(1, { error: 'expected at least one tool' }).optional(),
  /** Model calls of one run of the agent; reaching it with the model still calling tools ends the run as `max-steps`. */
  maxSteps: z
    .number({ error: 'expected a whole number of steps ≥ 1' })
    .int({ error: 'expected a whole number of steps ≥ 1' })
    .min(1, { error: 'expected a whole number of steps ≥ 1' })
    .max(1000, { error: 'expected a whole number of steps from 1 to 1000' })
    .optional(),
  /** Time limit of one tool call (default 30 s): past it the call's error is a timeout and the loop goes on. */
  toolTimeoutMs: posMs.optional(),
  /** Several user turns per sample: scripted (the input's `turns`) or a simulated user. */
  conversation: conversationSchema.optional(),
};

export type ToolConfig = z.output<typeof toolSchema>;

export const DEFAULT_MAX_STEPS = 10;
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
const ANY_OBJECT = { type: 'object', properties: {} } as const;

/** A tool ready for the loop: its declaration, its arguments' validator and what it does. */
export interface RunnableTool {
  declaration: ToolDeclaration & { parameters: Record<string, unknown> };
  /** The arguments' problems against the schema, in words; undefined when they are valid. */
  check(args: unknown): string | undefined;
  run: ToolFunction;
}

// Ajv loads with the first agent, not with every config (start-up). A run passes the validators' compiler instead
// (run/assemble.ts: `pattern` on the linear-time engine, since the model chooses the arguments).
const ajvPackage = lazyPackage<typeof import('ajv')>('ajv');
const ajv2020Package = lazyPackage<typeof import('ajv/dist/2020.js')>('ajv/dist/2020.js');

function compile(schema: Record<string, unknown>): ValidateFunction {
  const is2020 = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12');
  const options = { allErrors: false, strict: false };
  const ajv: Ajv = is2020 ? new (ajv2020Package().Ajv2020)(options) : new (ajvPackage().Ajv)(options);
  return ajv.compile(schema);
}

/** `expected` is included in `actual`: objects key by key (recursively), arrays element by element, the rest equal. */
export function includes(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((e, n) => includes(actual[n], e));
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
    return Object.entries(expected).every(([k, v]) => Object.prototype.hasOwnProperty.call(actual, k) && includes((actual as Record<string, unknown>)[k], v));
  }
  return Object.is(actual, expected);
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });

/** An error a stub was told to raise: its message is the call's error. */
class StubToolError extends Error {
  override name = 'ToolError';
}

/** A stub's behaviour as a function: its fixed result, its first matching rule, or its error. */
function stubOf(t: ToolConfig): ToolFunction {
  return async (args, { signal }) => {
    if (t.delayMs) await sleep(t.delayMs, signal);
    if (t.error !== undefined) throw new StubToolError(t.error);
    if (t.results) {
      const rule = t.results.find((r) => r.when === undefined || includes(args, r.when));
      if (!rule) throw new StubToolError(`no rule of the stub ${t.name} matches the arguments ${JSON.stringify(args)}`);
      if (rule.error !== undefined) throw new StubToolError(rule.error);
      return rule.result;
    }
    return t.result;
  };
}

/**
 * The tools of a config, checked and made runnable: names unique, each schema compiles. Errors name the field
 * (`system.openai.tools[1].parameters`) and its line.
 */
export function buildTools(
  tools: readonly ToolConfig[],
  at: IssuePath,
  source: { file?: string; locate?: Locate },
  compileWith: (schema: Record<string, unknown>) => ValidateFunction = compile,
): RunnableTool[] {
  const seen = new Map<string, number>();
  return tools.map((t, n) => {
    const first = seen.get(t.name);
    if (first !== undefined)
      throw fieldError(source, [...at, n, 'name'], `expected a name no other tool has, found ${JSON.stringify(t.name)}, the name of tools[${first}]`);
    seen.set(t.name, n);
    const parameters = t.parameters ?? { ...ANY_OBJECT };
    let validate: ValidateFunction;
    try {
      validate = compileWith(parameters);
    } catch (err) {
      const m = (err as Error).message;
      throw fieldError(
        source,
        [...at, n, 'parameters'],
        m.startsWith('expected ') ? m : `expected a JSON Schema that compiles, found one that does not (${m})`,
      );
    }
    return {
      declaration: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters },
      check: (args) => {
        if (validate(args)) return undefined;
        const e = validate.errors?.[0];
        return e ? `${e.instancePath ? `${e.instancePath.slice(1).replaceAll('/', '.')} ` : ''}${e.message ?? 'is invalid'}` : 'is invalid';
      },
      run: t.execute ?? stubOf(t),
    };
  });
}

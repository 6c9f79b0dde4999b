import { z } from 'zod';
import type { CheckResult, InputValue, Validator } from '../core/validator.js';
import { UsageError } from '../errors.js';
import { formatIssue } from '../providers/schemas.js';
import { rateLimitSchema, type LimiterFactory } from '../run/rate-limit.js';
import type { RetryOptions } from '../run/retry.js';
import { createOpenAIJudge } from './openai-judge.js';
import type { Judge } from './types.js';

/** A verifier in a config file: one more column k of the tensor, judged by an LLM. */
export const verifierConfigSchema = z.strictObject({
  name: z.string().min(1),
  message: z.string().optional(),
  minSuccess: z.number().min(0).max(1),
  weight: z.number().positive().optional(),
  /** Per-judgement limit in ms (the runner's per-validator timeout). */
  timeoutMs: z.number().int().positive().optional(),
  /** Tolerated so a loader can tag entries; only 'verifier' makes sense here. */
  kind: z.literal('verifier').optional(),
  instructions: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  judge: z.strictObject({
    openai: z.strictObject({
      baseURL: z.string().url().optional(),
      model: z.string().min(1),
      apiKeyEnv: z.string().min(1).optional(),
      temperature: z.number().min(0).max(2).optional(),
      mode: z.enum(['json_schema', 'tool', 'json_object', 'text']).optional(),
      retries: z.number().int().min(0).max(10).optional(),
    }),
    /** Spaces this judge's calls (src/run/rate-limit.ts); across every worker of a queued run. */
    rateLimit: rateLimitSchema.optional(),
  }),
});

export type VerifierConfig = z.output<typeof verifierConfigSchema>;

export interface VerifierContext {
  /** The config file, named in error messages. */
  file?: string;
  /** Where this entry sits in the file, e.g. "verifiers[0]" or "validators[2]". */
  path?: string;
  /** Environment holding the API key; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Backoff for transient judge errors (tests pass short delays). */
  retry?: RetryOptions;
  /** Makes the limiter of a judge with a `rateLimit` (in-process for a local run, Redis for queue workers). */
  limiters?: LimiterFactory;
}

/** A Validator whose verdicts come from an LLM judge; the judge is kept for callers that want usage. */
export type VerifierValidator = Validator & { kind: 'verifier'; judge: Judge };

/** True when a config entry is a verifier (it has a `judge` key) rather than a rule. */
export function isVerifierConfig(raw: unknown): boolean {
  return !!raw && typeof raw === 'object' && !Array.isArray(raw) && 'judge' in raw;
}

/** Validates a config entry and builds the verifier; throws UsageError naming file, field path, expected and found. */
export function parseVerifierConfig(raw: unknown, ctx: VerifierContext = {}): VerifierConfig {
  const file = ctx.file ?? 'config';
  const prefix = ctx.path ? ctx.path.split('.') : ['verifier'];
  const r = verifierConfigSchema.safeParse(raw);
  if (!r.success) {
    const lines = r.error.issues.map((i) => formatIssue(i, raw, prefix));
    throw new UsageError(`${file}: ${lines.join('\n')}`, { file: ctx.file, path: [...prefix, ...r.error.issues[0].path].join('.') });
  }
  return r.data;
}

export function verifierFromConfig(raw: unknown, ctx: VerifierContext = {}): VerifierValidator {
  const c = parseVerifierConfig(raw, ctx);
  const o = c.judge.openai;
  const env = ctx.env ?? process.env;
  const apiKey = env[o.apiKeyEnv ?? 'OPENAI_API_KEY'] || undefined;
  const where = `${ctx.path ?? 'verifier'}.judge.openai`;
  if (!apiKey && o.apiKeyEnv) {
    throw new UsageError(`${ctx.file ?? 'config'}: ${where}.apiKeyEnv: expected the environment variable ${o.apiKeyEnv} to hold the API key, found it unset`, {
      file: ctx.file,
      path: `${where}.apiKeyEnv`,
    });
  }
  if (!apiKey && !o.baseURL) {
    throw new UsageError(`${ctx.file ?? 'config'}: ${where}: expected an API key in OPENAI_API_KEY (or set apiKeyEnv), or a baseURL of a local server; found neither`, {
      file: ctx.file,
      path: where,
    });
  }
  const judge = createOpenAIJudge({
    baseURL: o.baseURL,
    model: o.model,
    apiKey,
    temperature: o.temperature,
    mode: o.mode,
    instructions: c.instructions,
    timeoutMs: c.timeoutMs,
    retry: { ...(o.retries !== undefined ? { retries: o.retries } : {}), ...ctx.retry },
    ...(c.judge.rateLimit && ctx.limiters ? { limiter: ctx.limiters(`verifier:${c.name}`, c.judge.rateLimit) } : {}),
  });
  return verifierFromJudge(judge, c);
}

/** Wrap any Judge as a Validator (kind 'verifier'): `evaluate` returns the verdict with its reasons. */
export function verifierFromJudge(
  judge: Judge,
  c: { name: string; message?: string; minSuccess: number; weight?: number; timeoutMs?: number; instructions?: string | string[] },
): VerifierValidator {
  const instructions = c.instructions === undefined ? [] : typeof c.instructions === 'string' ? [c.instructions] : c.instructions;
  return {
    name: c.name,
    message: c.message ?? `verifier ${c.name} judged the output FAIL`,
    minSuccess: c.minSuccess,
    weight: c.weight,
    timeoutMs: c.timeoutMs,
    kind: 'verifier',
    source: instructions.length ? `LLM judge ${judge.id}: ${instructions.join(' | ')}` : `LLM judge ${judge.id}`,
    judge,
    // The boolean form, for callers that only know predicates: an error throws (an `error` outcome there too).
    predicate: async (output: string, input: InputValue) => {
      const v = await judge.verify(input, output);
      if (v.outcome === 'error') throw new Error(v.error ?? 'judge error');
      return v.outcome === 'pass';
    },
    evaluate: async (output: string, input: InputValue, signal: AbortSignal): Promise<CheckResult> => {
      const v = await judge.verify(input, output, signal);
      const usage = v.usage ? { usage: v.usage } : {};
      return v.outcome === 'error' ? { outcome: 'error', error: v.error, reasons: [], ...usage } : { outcome: v.outcome, reasons: v.reasons, ...usage };
    },
  };
}

import type { Trajectory } from '../core/trajectory.js';
import * as z from 'zod';
import type { CheckResult, InputValue, Validator } from '../core/validator.js';
import { describeFound, fieldError, parseFieldPath, zodUsageError, type IssuePath, type Locate } from '../core/issues.js';
import type { CacheSettings } from '../providers/cache.js';
import { createChatModel, decorateModel } from '../providers/chat-factory.js';
import type { PriceTable } from '../providers/prices.js';
import { CHAT_PROVIDER_NAMES, chatOptionsShape, type ChatProviderConfig, type ChatProviderName } from '../providers/schemas.js';
import { limitModel, rateLimitSchema, type LimiterFactory, type RateLimitConfig } from '../providers/rate-limit.js';
import type { RetryOptions } from '../providers/retry.js';
import { createJudge } from './judge.js';
import type { Judge } from './types.js';

/** What a judge's provider object takes: a chat provider's connection and sampling options, and how to judge. */
const { system: _system, template: _template, ...judgeModelShape } = chatOptionsShape;
const judgeOptionsShape = {
  ...judgeModelShape,
  mode: z.enum(['json_schema', 'tool', 'json_object', 'text']).optional(),
  retries: z.number().int().min(0).max(10).optional(),
  /** Limit of one attempt in ms; default half the verifier's budget (`timeoutMs`). */
  attemptTimeoutMs: z.number().int().positive().optional(),
};
const judgeProviderSchemas = {
  openai: z.strictObject(judgeOptionsShape),
  anthropic: z.strictObject(judgeOptionsShape),
  google: z.strictObject(judgeOptionsShape),
  mistral: z.strictObject(judgeOptionsShape),
  ollama: z.strictObject(judgeOptionsShape),
  azure: z.strictObject({ ...judgeOptionsShape, resourceName: z.string().min(1).optional(), apiVersion: z.string().min(1).optional() }),
  bedrock: z.strictObject({ ...judgeOptionsShape, region: z.string().min(1).optional() }),
} as const satisfies Record<ChatProviderName, z.ZodType>;
type JudgeProviderConfig = ChatProviderConfig & z.output<z.ZodObject<Pick<typeof judgeOptionsShape, 'mode' | 'retries' | 'attemptTimeoutMs'>>>;

/** The keys of a `judge:` value that name its provider (all but `rateLimit`). */
const providerKeys = (o: Record<string, unknown>) => Object.keys(o).filter((k) => k !== 'rateLimit');
/** A `judge:` value names exactly one chat provider (besides an optional rateLimit). */
const oneProvider = (keys: string[]) => keys.length === 1 && (CHAT_PROVIDER_NAMES as string[]).includes(keys[0]);
const ONE_PROVIDER = `exactly one of ${CHAT_PROVIDER_NAMES.join(', ')} (and optionally rateLimit)`;

/** A verifier in a config file: one more column k of the tensor, judged by an LLM. */
export const verifierConfigSchema = z.strictObject({
  name: z.string().min(1),
  message: z.string().optional(),
  minSuccess: z.number().min(0).max(1),
  weight: z.number().positive().optional(),
  /** Budget of one judgement in ms, retries included (the runner's per-validator timeout). */
  timeoutMs: z.number().int().positive().optional(),
  /** Tolerated so a loader can tag entries; only 'verifier' makes sense here. */
  kind: z.literal('verifier').optional(),
  instructions: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  /**
   * Exactly one chat provider, as under `system:` (checked by `judgeProviderSchemas`), and optionally
   * `rateLimit`, which spaces this judge's calls (src/providers/rate-limit.ts), across every worker of a queued run.
   */
  judge: z.record(z.string(), z.unknown()).refine((o) => oneProvider(providerKeys(o)), { error: `expected ${ONE_PROVIDER}` }),
});
export type VerifierConfig = z.output<typeof verifierConfigSchema>;

export interface VerifierContext {
  /** The config file, named in error messages. */
  file?: string;
  /** The line of a field in that file, when known (a YAML config's). */
  locate?: Locate;
  /** Where this entry sits in the file, e.g. "verifiers[0]" or "validators[2]". */
  path?: string;
  /** Environment holding the API key; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Backoff for retryable judge errors (tests pass short delays). */
  retry?: RetryOptions;
  /** The judgement budget when the verifier sets no `timeoutMs` (the run's per-call limit); default 60 000. */
  timeoutMs?: number;
  /** Prices of the judge's calls (default: the built-in table). */
  prices?: PriceTable;
  /** Serve verdicts from, and save them to, the response cache. */
  cache?: CacheSettings;
  /** Where the judge model's notes on its answers go (a setting it did not apply), each once. */
  warn?: (message: string) => void;
  /** Makes the limiter of a judge with a `rateLimit` (in-process for a local run, Redis for queue workers). */
  limiters?: LimiterFactory;
}

/** A Validator whose verdicts come from an LLM judge; the judge is kept for callers that want usage. */
export type VerifierValidator = Validator & { kind: 'verifier'; judge: Judge };

/** True when a config entry is a verifier (it has a `judge` key) rather than a rule. */
export function isVerifierConfig(raw: unknown): boolean {
  return !!raw && typeof raw === 'object' && !Array.isArray(raw) && 'judge' in raw;
}

/** A zod failure of the value at `at`, named as every config error is (file, field, expected, found, line). */
function invalid(ctx: VerifierContext, at: IssuePath, error: Parameters<typeof zodUsageError>[0], schema: unknown): never {
  throw zodUsageError(error, { file: ctx.file, locate: ctx.locate, prefix: at, schema });
}

/** A `judge:` value, validated: one chat provider with its judge options, and an optional rate limit. */
export interface JudgeConfig {
  name: ChatProviderName;
  options: JudgeProviderConfig;
  rateLimit?: RateLimitConfig;
}

/** Validates a `judge:` value at field path `at` (exactly one provider, its options, an optional `rateLimit`). */
export function parseJudgeConfig(raw: unknown, at: IssuePath, ctx: VerifierContext = {}): JudgeConfig {
  const obj = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
  const keys = obj ? providerKeys(obj) : [];
  if (!obj || !oneProvider(keys)) {
    const found = !obj ? describeFound(raw) : keys.length ? keys.map((k) => JSON.stringify(k)).join(', ') : 'no provider';
    throw fieldError(ctx, at, `expected ${ONE_PROVIDER}, found ${found}`);
  }
  const name = keys[0] as ChatProviderName;
  const schema = judgeProviderSchemas[name];
  const o = schema.safeParse(obj[name] ?? {}, { reportInput: true });
  if (!o.success) invalid(ctx, [...at, name], o.error, schema);
  let rateLimit: RateLimitConfig | undefined;
  if (obj.rateLimit !== undefined) {
    const l = rateLimitSchema.safeParse(obj.rateLimit, { reportInput: true });
    if (!l.success) invalid(ctx, [...at, 'rateLimit'], l.error, rateLimitSchema);
    rateLimit = l.data;
  }
  return { name, options: o.data as JudgeProviderConfig, ...(rateLimit ? { rateLimit } : {}) };
}

/** Validates a config entry; throws UsageError naming file, field path, expected and found. */
export function parseVerifierConfig(raw: unknown, ctx: VerifierContext = {}): VerifierConfig {
  const prefix = ctx.path ? parseFieldPath(ctx.path) : ['verifier'];
  const r = verifierConfigSchema.safeParse(raw, { reportInput: true });
  if (!r.success) invalid(ctx, prefix, r.error, verifierConfigSchema);
  const j = parseJudgeConfig(r.data.judge, [...prefix, 'judge'], ctx);
  return { ...r.data, judge: { [j.name]: j.options, ...(j.rateLimit ? { rateLimit: j.rateLimit } : {}) } };
}

/** What one judge made by a JudgeMaker judges by. */
export interface JudgeSpec {
  instructions: string | readonly string[];
  /** Budget of one judgement in ms, retries included; default the context's, else 60 000. */
  timeoutMs?: number;
}

export type JudgeMaker = (spec: JudgeSpec) => Judge;

/**
 * A `judge:` value (at `ctx.path`, default "judge") → judges over one model (prices, cache, rate limit under
 * `scope`), one per instruction set. The model is built here, so a bad value or a missing key fails at once.
 */
export function judgeMakerFromConfig(raw: unknown, ctx: VerifierContext = {}, scope = 'judge'): JudgeMaker {
  const where = ctx.path ?? 'judge';
  const { name, options: o, rateLimit } = parseJudgeConfig(raw, parseFieldPath(where), ctx);
  // The limiter spaces calls actually made: inside the prices and the cache (a cached verdict spends nothing).
  const bare = createChatModel(name, o, `${where}.${name}`, ctx);
  const model = decorateModel(rateLimit && ctx.limiters ? limitModel(bare, ctx.limiters(scope, rateLimit)) : bare, ctx);
  if (o.mode === 'tool' && !model.capabilities.tools) {
    throw fieldError(
      ctx,
      [...parseFieldPath(where), name, 'mode'],
      `expected json_schema, json_object or text (${name} cannot be forced to call a tool), found "tool"`,
    );
  }
  return (spec) =>
    createJudge({
      model,
      instructions: spec.instructions,
      temperature: o.temperature,
      maxTokens: o.maxTokens,
      mode: o.mode,
      timeoutMs: spec.timeoutMs ?? ctx.timeoutMs,
      attemptTimeoutMs: o.attemptTimeoutMs,
      retry: { ...(o.retries !== undefined ? { retries: o.retries } : {}), ...ctx.retry },
    });
}

export function verifierFromConfig(raw: unknown, ctx: VerifierContext = {}): VerifierValidator {
  const c = parseVerifierConfig(raw, ctx);
  const make = judgeMakerFromConfig(c.judge, { ...ctx, path: `${ctx.path ?? 'verifier'}.judge` }, `verifier:${c.name}`);
  return verifierFromJudge(make({ instructions: c.instructions, timeoutMs: c.timeoutMs }), c);
}

/** Wrap any Judge as a Validator (kind 'verifier'): `evaluate` returns the verdict with its reasons. */
export function verifierFromJudge(
  judge: Judge,
  c: { name: string; message?: string; minSuccess: number; weight?: number; timeoutMs?: number; instructions?: string | string[] },
): VerifierValidator {
  const instructions = c.instructions === undefined ? [] : typeof c.instructions === 'string' ? [c.instructions] : c.instructions;
  return {
    name: c.name,
    // Described by what it asks (as a code rule is by its message), not by a verdict it may never give.
    message: c.message ?? (instructions.length ? instructions.join(' ') : `LLM judge ${judge.id}`),
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
    evaluate: async (output: string, input: InputValue, signal: AbortSignal, trajectory?: Trajectory): Promise<CheckResult> => {
      const v = await judge.verify(input, output, signal, trajectory);
      const spent = { ...(v.usage ? { usage: v.usage } : {}), ...(v.costUsd !== undefined ? { costUsd: v.costUsd } : {}) };
      return v.outcome === 'error' ? { outcome: 'error', error: v.error, reasons: [], ...spent } : { outcome: v.outcome, reasons: v.reasons, ...spent };
    },
  };
}

/**
 * The LLM behind SPADE's generative steps (taxonomy, criteria, assertions, subsumption proposals): any
 * ChatModel (openai, anthropic, google, bedrock, azure, mistral, ollama), asked for structured output (a
 * JSON schema derived from a zod schema) and checked against that schema on return. Retries happen in
 * callWithRetry, the one place; the tokens and cost of every call are added up in `usage`.
 */
import * as z from 'zod';
import { UsageError } from '../errors.js';
import { chatModelFromConfig } from '../providers/chat-factory.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../providers/chat-model.js';
import { OpenAIChatModel } from '../providers/openai.js';
import { withPrices } from '../providers/prices.js';
import { chatModelFromFile } from '../providers/provider-file.js';
import { CHAT_PROVIDER_NAMES } from '../providers/schemas.js';
import { ProviderError } from '../providers/types.js';
import { callWithRetry, type RetryOptions } from '../providers/retry.js';

export interface SpadeLlmOptions {
  /** A ChatModel, or the model name of an OpenAI-compatible endpoint (with `baseURL`, `apiKey`). */
  model: ChatModel | string;
  baseURL?: string;
  apiKey?: string;
  temperature?: number;
  maxTokens?: number;
  /** Limit of one attempt in ms (default 120 000). */
  timeoutMs?: number;
  /** Further attempts after a retryable failure (default 2). */
  maxRetries?: number;
  /** Backoff of those retries. */
  retry?: Omit<RetryOptions, 'signal' | 'attemptTimeoutMs' | 'retries'>;
}

/** What SPADE's calls spent: tokens, and USD where the model has a price. */
export interface SpadeUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  /** Calls whose model has no price (tokens counted, cost not). */
  unpricedCalls: number;
}

export interface SpadeLlm {
  /** The model's id, e.g. "anthropic:claude-sonnet-4-5". */
  readonly model: string;
  /** Ask for a JSON object matching `schema`; throws ProviderError when the answer does not match. */
  json<T>(name: string, schema: z.ZodType<T>, system: string, user: string): Promise<T>;
  text(system: string, user: string): Promise<string>;
  /** Added up over every call so far. */
  readonly usage: SpadeUsage;
}

/** A JSON schema for structured output (OpenAI's strict mode wants no `$schema`). */
function responseSchema(schema: z.ZodType): Record<string, unknown> {
  const js = z.toJSONSchema(schema, { target: 'draft-7' }) as Record<string, unknown>;
  delete js.$schema;
  return js;
}

/** The first JSON object in a text (models sometimes wrap JSON in prose or fences). */
function extractJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const start = text.indexOf('{');
    const end = text.lastIndexOf('}');
    if (start >= 0 && end > start) return JSON.parse(text.slice(start, end + 1));
    throw new SyntaxError('no JSON object in the answer');
  }
}

export function createSpadeLlm(opts: SpadeLlmOptions): SpadeLlm {
  const model =
    typeof opts.model === 'string'
      ? withPrices(
          new OpenAIChatModel({ model: opts.model, ...(opts.baseURL ? { baseURL: opts.baseURL } : {}), ...(opts.apiKey ? { apiKey: opts.apiKey } : {}) }),
        )
      : opts.model;
  const who = `spade llm ${model.id}`;
  const usage: SpadeUsage = { calls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0, unpricedCalls: 0 };
  const account = (r: ChatResponse) => {
    usage.calls++;
    usage.promptTokens += r.usage?.promptTokens ?? 0;
    usage.completionTokens += r.usage?.completionTokens ?? 0;
    if (r.costUsd !== undefined) usage.costUsd += r.costUsd;
    else if (r.usage) usage.unpricedCalls++;
  };
  const chat = async (system: string, user: string, responseFormat?: ChatRequest['responseFormat']): Promise<string> => {
    const request: ChatRequest = {
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
      ...(opts.maxTokens !== undefined ? { maxTokens: opts.maxTokens } : {}),
      ...(responseFormat ? { responseFormat } : {}),
    };
    const r = await callWithRetry(
      async (_attempt, signal) => {
        const res = await model.generate(request, { signal });
        account(res);
        return res;
      },
      { retries: opts.maxRetries ?? 2, baseMs: 500, ...opts.retry, attemptTimeoutMs: opts.timeoutMs ?? 120_000 },
    );
    if (typeof r.text !== 'string' || (r.text === '' && !responseFormat)) throw new ProviderError('invalid_response', `${who}: the answer has no text content`);
    return r.text;
  };
  return {
    model: model.id,
    usage,
    text: (system, user) => chat(system, user),
    async json<T>(name: string, schema: z.ZodType<T>, system: string, user: string): Promise<T> {
      const content = await chat(system, user, { type: 'json', name, schema: responseSchema(schema) });
      let data: unknown;
      try {
        data = extractJson(content);
      } catch (err) {
        throw new ProviderError('invalid_response', `${who}: ${name}: ${(err as Error).message}: ${content.slice(0, 120)}`);
      }
      const parsed = schema.safeParse(data);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new ProviderError(
          'invalid_response',
          `${who}: ${name}: answer does not match the schema at ${issue.path.join('.') || '(root)'}: ${issue.message}`,
        );
      }
      return parsed.data;
    },
  };
}

export interface LlmChoice {
  /** A chat provider: openai (default), anthropic, google, bedrock, azure, mistral, ollama. */
  provider?: string;
  model?: string;
  baseURL?: string;
  /** A YAML or JSON file holding one provider object, as under `system:` (e.g. `anthropic: { model: … }`). */
  config?: string;
}

/**
 * The LLM from command-line options and the environment: `--llm <file>` (a provider object, as under
 * `system:`), or `--provider`/ASSAY_SPADE_PROVIDER with `--model`/ASSAY_SPADE_MODEL and `--base-url`;
 * for openai, `--base-url`/OPENAI_BASE_URL and the key in OPENAI_API_KEY. Null when none is configured.
 */
export async function llmFromOptions(o: LlmChoice, env: NodeJS.ProcessEnv = process.env): Promise<SpadeLlm | null> {
  if (o.config) {
    // The file's temperature and maxTokens hold for every SPADE step, as they would under system:.
    const { model, options } = await chatModelFromFile(o.config, '--llm', { env });
    return createSpadeLlm({
      model,
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
    });
  }
  const provider = o.provider ?? env.ASSAY_SPADE_PROVIDER;
  if (provider !== undefined && provider !== 'openai') {
    if (!(CHAT_PROVIDER_NAMES as string[]).includes(provider))
      throw new UsageError(`--provider: expected one of ${CHAT_PROVIDER_NAMES.join(', ')}, found ${JSON.stringify(provider)}`, { path: '--provider' });
    const model = o.model ?? env.ASSAY_SPADE_MODEL;
    if (!model) throw new UsageError(`--provider ${provider}: expected a model: pass --model <name> or set ASSAY_SPADE_MODEL`);
    return createSpadeLlm({ model: chatModelFromConfig({ [provider]: { model, ...(o.baseURL ? { baseURL: o.baseURL } : {}) } }, '--provider', { env }).model });
  }
  return llmFromEnv(o, env);
}

/** The OpenAI-compatible LLM from `--model`/ASSAY_SPADE_MODEL, `--base-url`/OPENAI_BASE_URL and OPENAI_API_KEY. */
export function llmFromEnv(o: { model?: string; baseURL?: string }, env: NodeJS.ProcessEnv = process.env): SpadeLlm | null {
  const baseURL = o.baseURL ?? env.OPENAI_BASE_URL;
  const apiKey = env.OPENAI_API_KEY;
  const model = o.model ?? env.ASSAY_SPADE_MODEL;
  if (!baseURL && !apiKey) return null;
  if (!model) throw new UsageError('an LLM endpoint is configured but no model: pass --model <name> or set ASSAY_SPADE_MODEL');
  return createSpadeLlm({ model, baseURL, apiKey });
}

/** One line of what SPADE's LLM calls spent. */
export function usageLine(llm: SpadeLlm): string {
  const u = llm.usage;
  const cost = u.costUsd > 0 ? `, $${u.costUsd < 0.0001 ? u.costUsd.toPrecision(2) : u.costUsd.toFixed(4)}` : '';
  const unpriced = u.unpricedCalls ? ` (${u.unpricedCalls} calls of a model without a price)` : '';
  return `LLM usage (${llm.model}): ${u.calls} calls, ${u.promptTokens} prompt / ${u.completionTokens} completion tokens${cost}${unpriced}`;
}

export const NO_LLM_MESSAGE =
  'no LLM configured: pass --llm <provider.yaml>, or --provider <name> --model <name> [--base-url <url>], or for an OpenAI-compatible server set OPENAI_API_KEY (and optionally OPENAI_BASE_URL) or pass --base-url <url>, with --model <name> or ASSAY_SPADE_MODEL';

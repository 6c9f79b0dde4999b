/**
 * The LLM behind SPADE's generative steps (taxonomy, criteria, assertions, subsumption proposals):
 * any OpenAI-compatible endpoint through the official `openai` client, asked for structured output
 * (a strict JSON schema derived from a zod schema) and checked against that schema on return.
 */
import OpenAI from 'openai';
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { ProviderError } from '../providers/types.js';

export interface SpadeLlmOptions {
  model: string;
  baseURL?: string;
  apiKey?: string;
  temperature?: number;
  /** Per-call limit in ms (default 120 000). */
  timeoutMs?: number;
  /** Retries of transient failures by the client (default 2). */
  maxRetries?: number;
}

export interface SpadeLlm {
  readonly model: string;
  /** Ask for a JSON object matching `schema`; throws ProviderError when the answer does not match. */
  json<T>(name: string, schema: z.ZodType<T>, system: string, user: string): Promise<T>;
  text(system: string, user: string): Promise<string>;
}

/** A strict-mode JSON schema for the response_format (OpenAI's strict mode wants no `$schema`). */
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

function providerError(err: unknown, who: string): ProviderError {
  if (err instanceof ProviderError) return err;
  if (err instanceof OpenAI.APIError && err.status !== undefined) {
    const s = err.status;
    const kind = s === 429 ? 'rate_limit' : s >= 500 ? 'server' : 'client';
    return new ProviderError(kind, `${who}: HTTP ${s} ${err.message}`, { status: s, cause: err });
  }
  if (err instanceof OpenAI.APIConnectionTimeoutError) return new ProviderError('timeout', `${who}: timed out`, { cause: err });
  if (err instanceof OpenAI.APIConnectionError) return new ProviderError('connection', `${who}: ${err.message}`, { cause: err });
  return new ProviderError('invalid_response', `${who}: ${(err as Error)?.message ?? String(err)}`, { cause: err });
}

export function createSpadeLlm(opts: SpadeLlmOptions): SpadeLlm {
  const client = new OpenAI({
    baseURL: opts.baseURL,
    apiKey: opts.apiKey ?? 'not-needed',
    timeout: opts.timeoutMs ?? 120_000,
    maxRetries: opts.maxRetries ?? 2,
  });
  const who = `spade llm ${opts.model}`;
  const chat = async (system: string, user: string, responseFormat?: OpenAI.ChatCompletionCreateParams['response_format']) => {
    try {
      const r = await client.chat.completions.create({
        model: opts.model,
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
        ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
        ...(responseFormat ? { response_format: responseFormat } : {}),
      });
      const content = r.choices?.[0]?.message?.content;
      if (typeof content !== 'string') throw new ProviderError('invalid_response', `${who}: the answer has no text content`);
      return content;
    } catch (err) {
      throw providerError(err, who);
    }
  };
  return {
    model: opts.model,
    text: (system, user) => chat(system, user),
    async json<T>(name: string, schema: z.ZodType<T>, system: string, user: string): Promise<T> {
      const content = await chat(system, user, { type: 'json_schema', json_schema: { name, strict: true, schema: responseSchema(schema) } });
      let data: unknown;
      try {
        data = extractJson(content);
      } catch (err) {
        throw new ProviderError('invalid_response', `${who}: ${name}: ${(err as Error).message}: ${content.slice(0, 120)}`);
      }
      const parsed = schema.safeParse(data);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new ProviderError('invalid_response', `${who}: ${name}: answer does not match the schema at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
      }
      return parsed.data;
    },
  };
}

/**
 * The LLM from command-line options and the environment: `--model`/ASSAY_SPADE_MODEL,
 * `--base-url`/OPENAI_BASE_URL, key in OPENAI_API_KEY. Null when none is configured.
 */
export function llmFromEnv(o: { model?: string; baseURL?: string }, env: NodeJS.ProcessEnv = process.env): SpadeLlm | null {
  const baseURL = o.baseURL ?? env.OPENAI_BASE_URL;
  const apiKey = env.OPENAI_API_KEY;
  const model = o.model ?? env.ASSAY_SPADE_MODEL;
  if (!baseURL && !apiKey) return null;
  if (!model) throw new UsageError('an LLM endpoint is configured but no model: pass --model <name> or set ASSAY_SPADE_MODEL');
  return createSpadeLlm({ model, baseURL, apiKey });
}

export const NO_LLM_MESSAGE =
  'no LLM configured: set OPENAI_API_KEY (and optionally OPENAI_BASE_URL) or pass --base-url <url> for an OpenAI-compatible server, with --model <name> or ASSAY_SPADE_MODEL';

import { describeFound, fieldError, parseFieldPath, zodUsageError, type Locate } from '../core/issues.js';
import { withResponseCache, type CacheSettings } from './cache.js';
import type { ChatModel } from './chat-model.js';
import { withWarnings } from './decorate.js';
import { OllamaChatModel } from './ollama.js';
import { OpenAIChatModel } from './openai.js';
import { withPrices, type PriceTable } from './prices.js';
import { CHAT_PROVIDER_NAMES, chatProviderSchemas, type ChatProviderConfig, type ChatProviderName } from './schemas.js';
import { anthropicChatModel, azureChatModel, bedrockChatModel, googleChatModel, mistralChatModel } from './sdk-providers.js';
import { envRefs, expandEnv } from './template.js';

/**
 * The one place that turns a provider's config (`system:`, a verifier's `judge:`, SPADE's `--llm`) into a
 * ChatModel: keys read from the environment variables the config names (or each provider's default), a
 * missing one reported as a usage error naming the file and field, `${VAR}` expanded in headers. No other
 * file constructs an LLM client.
 */
export interface ModelContext {
  /** The config file, named in error messages. */
  file?: string;
  /** The line of a field in that file, when known (a YAML config's). */
  locate?: Locate;
  /** Environment for keys and `${VAR}`; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Prices to put on every answer (default: the built-in table). */
  prices?: PriceTable;
  /** Serve and save answers through the response cache. */
  cache?: CacheSettings;
  /** Where a provider's notes on its answers go (a setting it did not apply), each once; none by default. */
  warn?: (message: string) => void;
}

/** Where each provider's key is, unless `apiKeyEnv` says otherwise. */
export const DEFAULT_KEY_ENV: Record<ChatProviderName, string | undefined> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  google: 'GOOGLE_GENERATIVE_AI_API_KEY',
  bedrock: 'AWS_BEARER_TOKEN_BEDROCK',
  azure: 'AZURE_API_KEY',
  mistral: 'MISTRAL_API_KEY',
  ollama: undefined,
};

function fail(ctx: Pick<ModelContext, 'file' | 'locate'>, path: string, message: string): never {
  throw fieldError({ file: ctx.file, locate: ctx.locate }, path, message);
}

/** Expands `${VAR}` in every value, failing on the first unset variable with the field path. */
export function expandAll(values: Record<string, string>, path: string, ctx: Pick<ModelContext, 'file' | 'locate' | 'env'>): Record<string, string> {
  const env = ctx.env ?? process.env;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) {
    const missing = envRefs(v).find((name) => env[name] === undefined);
    if (missing) fail(ctx, `${path}.${k}`, `expected the environment variable ${missing} (referenced as \${${missing}}) to be set, found it unset`);
    out[k] = expandEnv(v, env);
  }
  return out;
}

/**
 * The key of a provider: from `apiKeyEnv` (which must then be set) or the provider's default variable. A
 * provider's own service needs one; a local server (baseURL given) may run keyless.
 */
function apiKey(name: ChatProviderName, o: ChatProviderConfig, path: string, ctx: ModelContext, needed: boolean): string | undefined {
  const env = ctx.env ?? process.env;
  const keyEnv = o.apiKeyEnv ?? DEFAULT_KEY_ENV[name];
  const key = keyEnv ? env[keyEnv] || undefined : undefined;
  if (!key && o.apiKeyEnv) fail(ctx, `${path}.apiKeyEnv`, `expected the environment variable ${keyEnv} to hold the API key, found it unset`);
  if (!key && needed && !o.baseURL) fail(ctx, path, `expected an API key in ${keyEnv} (or set apiKeyEnv), or a baseURL of a local server; found neither`);
  return key;
}

/** Validates one provider's options (zod), naming file and field on error. */
export function parseChatOptions(name: ChatProviderName, raw: unknown, path: string, ctx: ModelContext): ChatProviderConfig {
  const schema = chatProviderSchemas[name];
  const r = schema.safeParse(raw ?? {}, { reportInput: true });
  if (!r.success) throw zodUsageError(r.error, { file: ctx.file, locate: ctx.locate, prefix: parseFieldPath(path), schema });
  return r.data as ChatProviderConfig;
}

/** The one key of a provider object (`{ anthropic: {...} }`), or a usage error listing the choices. */
export function chatProviderOf(raw: unknown, path: string, ctx: ModelContext): { name: ChatProviderName; options: unknown } {
  const one = `exactly one of ${CHAT_PROVIDER_NAMES.join(', ')}`;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) fail(ctx, path, `expected ${one}, found ${describeFound(raw)}`);
  const keys = Object.keys(raw);
  if (keys.length !== 1 || !(CHAT_PROVIDER_NAMES as string[]).includes(keys[0])) {
    fail(ctx, path, `expected ${one}, found ${keys.length === 0 ? 'no key' : keys.map((k) => JSON.stringify(k)).join(', ')}`);
  }
  return { name: keys[0] as ChatProviderName, options: (raw as Record<string, unknown>)[keys[0]] };
}

/** The bare adapter for a provider's validated options. */
export function createChatModel(name: ChatProviderName, o: ChatProviderConfig, path: string, ctx: ModelContext = {}): ChatModel {
  const headers = o.headers && expandAll(o.headers, `${path}.headers`, ctx);
  const env = ctx.env ?? process.env;
  const common = { model: o.model, ...(o.baseURL ? { baseURL: o.baseURL } : {}), ...(headers ? { headers } : {}) };
  switch (name) {
    case 'openai':
      return new OpenAIChatModel({ ...common, apiKey: apiKey(name, o, path, ctx, true) });
    case 'anthropic':
      return anthropicChatModel({ ...common, apiKey: apiKey(name, o, path, ctx, true) });
    case 'google':
      return googleChatModel({ ...common, apiKey: apiKey(name, o, path, ctx, true) });
    case 'mistral':
      return mistralChatModel({ ...common, apiKey: apiKey(name, o, path, ctx, true) });
    case 'ollama':
      return new OllamaChatModel({ ...common, apiKey: apiKey(name, o, path, ctx, false) });
    case 'azure':
      if (!o.baseURL && !o.resourceName) fail(ctx, path, 'expected resourceName (https://<resourceName>.openai.azure.com) or a baseURL, found neither');
      return azureChatModel({ ...common, apiKey: apiKey(name, o, path, ctx, true), resourceName: o.resourceName, apiVersion: o.apiVersion });
    case 'bedrock': {
      const region = o.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? (o.baseURL ? 'us-east-1' : undefined);
      if (!region) fail(ctx, `${path}.region`, 'expected an AWS region (region: us-east-1, or AWS_REGION), found neither');
      const bearer = apiKey(name, o, path, ctx, false);
      const id = env.AWS_ACCESS_KEY_ID;
      const secret = env.AWS_SECRET_ACCESS_KEY;
      if (!bearer && !(id && secret) && !o.baseURL) {
        fail(
          ctx,
          path,
          'expected AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN if temporary), or a Bedrock API key in AWS_BEARER_TOKEN_BEDROCK (or apiKeyEnv); found neither',
        );
      }
      // A local endpoint (baseURL) without credentials still gets signed requests, with a placeholder key.
      const credentials =
        id && secret
          ? { accessKeyId: id, secretAccessKey: secret, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) }
          : { accessKeyId: 'assay-local', secretAccessKey: 'assay-local' };
      return bedrockChatModel({ ...common, region, ...(bearer ? { apiKey: bearer } : { credentials }) });
    }
  }
}

/** Prices on every answer, then the response cache around that (a cached answer costs nothing). */
export function decorateModel(model: ChatModel, ctx: Pick<ModelContext, 'prices' | 'cache' | 'warn'>): ChatModel {
  const priced = withPrices(ctx.warn ? withWarnings(model, ctx.warn) : model, ctx.prices);
  return ctx.cache ? withResponseCache(priced, ctx.cache) : priced;
}

/** `{ <provider>: { model, … } }` → a decorated ChatModel and its validated options. */
export function chatModelFromConfig(
  raw: unknown,
  path: string,
  ctx: ModelContext = {},
): { model: ChatModel; name: ChatProviderName; options: ChatProviderConfig } {
  const { name, options } = chatProviderOf(raw, path, ctx);
  const o = parseChatOptions(name, options, `${path}.${name}`, ctx);
  return { model: decorateModel(createChatModel(name, o, `${path}.${name}`, ctx), ctx), name, options: o };
}

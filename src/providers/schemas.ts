import * as z from 'zod';
import { parsePath } from './template.js';
import { agentOptionsShape } from './tools.js';

/** zod schemas of the YAML `system:` value: exactly one provider key with its options. */

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const envValue = z.union([z.string(), z.number(), z.boolean()], { error: 'expected a string' }).transform(String);

/** Options every chat provider takes; provider-specific ones are added below. */
export const chatOptionsShape = {
  model: z.string().min(1),
  baseURL: z.url({ error: 'expected a URL such as http://localhost:11434/v1' }).optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
  system: z.string().optional(),
  template: z.string().optional(),
  apiKeyEnv: z.string().regex(ENV_NAME, { error: 'expected the name of an environment variable, e.g. OPENAI_API_KEY' }).optional(),
  headers: z.record(z.string(), z.string()).optional(),
};

export const openaiOptionsSchema = z.strictObject(chatOptionsShape);
export const anthropicOptionsSchema = z.strictObject(chatOptionsShape);
export const googleOptionsSchema = z.strictObject(chatOptionsShape);
export const mistralOptionsSchema = z.strictObject(chatOptionsShape);
export const ollamaOptionsSchema = z.strictObject(chatOptionsShape);
export const azureOptionsSchema = z.strictObject({
  ...chatOptionsShape,
  /** https://{resourceName}.openai.azure.com, unless baseURL is given; `model` is the deployment name. */
  resourceName: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, { error: 'expected an Azure resource name such as my-resource' })
    .optional(),
  apiVersion: z.string().min(1).optional(),
});
export const bedrockOptionsSchema = z.strictObject({
  ...chatOptionsShape,
  /** AWS region; default AWS_REGION. */
  region: z
    .string()
    .regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, { error: 'expected an AWS region such as us-east-1' })
    .optional(),
});

/** The chat providers, reachable from `system:`, a verifier's `judge:` and SPADE's `--llm`. */
export const chatProviderSchemas = {
  openai: openaiOptionsSchema,
  anthropic: anthropicOptionsSchema,
  google: googleOptionsSchema,
  bedrock: bedrockOptionsSchema,
  azure: azureOptionsSchema,
  mistral: mistralOptionsSchema,
  ollama: ollamaOptionsSchema,
} as const;
export type ChatProviderName = keyof typeof chatProviderSchemas;
export const CHAT_PROVIDER_NAMES = Object.keys(chatProviderSchemas) as ChatProviderName[];
export type ChatProviderConfig = z.output<typeof bedrockOptionsSchema> & z.output<typeof azureOptionsSchema>;

const outputPath = z.string().refine(
  (p) => {
    try {
      parsePath(p);
      return true;
    } catch {
      return false;
    }
  },
  { error: 'expected a JSON path such as data.choices[0].text' },
);

export const httpOptionsSchema = z.strictObject({
  // May start with ${VAR} (e.g. ${APP_URL}/chat): the factory expands it, then checks the scheme.
  url: z.string().regex(/^(https?:\/\/|\$\{)/i, { error: 'expected an http:// or https:// URL' }),
  method: z
    .string()
    .transform((m) => m.toUpperCase())
    .pipe(z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']))
    .optional(),
  headers: z.record(z.string(), envValue).optional(),
  body: z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())], { error: 'expected a string or a JSON object template' }).optional(),
  outputPath: outputPath.optional(),
});

export const commandOptionsSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.union([z.string(), z.number()], { error: 'expected a string' }).transform(String)).optional(),
  cwd: z.string().min(1).optional(),
  env: z.record(z.string().regex(ENV_NAME, { error: 'expected an environment variable name' }), envValue).optional(),
});

export const replayOptionsSchema = z.strictObject({
  file: z.string().min(1),
  latencyMs: z.number().min(0).optional(),
});

const simulatedOutput = z.union(
  [z.string().transform((text) => ({ text, weight: 1 })), z.strictObject({ text: z.string(), weight: z.number().positive().optional() })],
  { error: 'expected { text, weight } or a string' },
);

export const simulatedOptionsSchema = z.strictObject({
  seed: z.number().int().optional(),
  latencyMs: z
    .union([z.number().min(0), z.strictObject({ mean: z.number().min(0), jitter: z.number().min(0).optional() })], {
      error: 'expected a number of ms or { mean, jitter }',
    })
    .optional(),
  outputs: z.array(simulatedOutput).min(1),
  byInput: z.record(z.string(), z.array(simulatedOutput).min(1)).optional(),
  errorRate: z.number().min(0).max(1).optional(),
  errorKind: z.enum(['server', 'rate_limit', 'timeout', 'connection']).optional(),
  tokens: z
    .union([z.boolean(), z.strictObject({ prompt: z.number().int().min(0), completion: z.number().int().min(0) })], {
      error: 'expected true or { prompt, completion }',
    })
    .optional(),
});

/**
 * A chat provider as the system under test: its options, plus tools it may call (the loop runs them, agent-system.ts),
 * its step limit and each tool call's time limit. A judge's provider takes no tools.
 */
export const systemChatSchemas = {
  openai: openaiOptionsSchema.extend(agentOptionsShape),
  anthropic: anthropicOptionsSchema.extend(agentOptionsShape),
  google: googleOptionsSchema.extend(agentOptionsShape),
  bedrock: bedrockOptionsSchema.extend(agentOptionsShape),
  azure: azureOptionsSchema.extend(agentOptionsShape),
  mistral: mistralOptionsSchema.extend(agentOptionsShape),
  ollama: ollamaOptionsSchema.extend(agentOptionsShape),
} as const;

export const providerSchemas = {
  ...systemChatSchemas,
  http: httpOptionsSchema,
  command: commandOptionsSchema,
  replay: replayOptionsSchema,
  simulated: simulatedOptionsSchema,
} as const;

export type ProviderName = keyof typeof providerSchemas;
export const PROVIDER_NAMES = Object.keys(providerSchemas) as ProviderName[];

/** The whole `system:` value, for JSON Schema generation (`z.toJSONSchema(systemSchema)`). */
export const systemSchema = z.union(
  // One option per provider, `{ <name>: <its options> }`, in the order of providerSchemas.
  PROVIDER_NAMES.map((name) => z.strictObject({ [name]: providerSchemas[name] })) as unknown as [
    z.ZodObject<{ [K in ProviderName]?: (typeof providerSchemas)[K] }>,
    ...z.ZodObject<{ [K in ProviderName]?: (typeof providerSchemas)[K] }>[],
  ],
);

export type OpenAIConfig = z.output<typeof openaiOptionsSchema>;
export type HttpConfig = z.output<typeof httpOptionsSchema>;
export type CommandConfig = z.output<typeof commandOptionsSchema>;
export type ReplayConfig = z.output<typeof replayOptionsSchema>;
export type SimulatedConfig = z.output<typeof simulatedOptionsSchema>;
/** A chat provider's options as the system under test: a judge's, plus tools, maxSteps and toolTimeoutMs. */
export type SystemChatConfig = ChatProviderConfig & z.output<z.ZodObject<typeof agentOptionsShape>>;
export type SystemConfig =
  | { [P in ChatProviderName]: { [K in P]: z.output<(typeof systemChatSchemas)[P]> } }[ChatProviderName]
  | { http: HttpConfig }
  | { command: CommandConfig }
  | { replay: ReplayConfig }
  | { simulated: SimulatedConfig };

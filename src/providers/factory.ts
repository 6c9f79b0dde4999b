import { isAbsolute, resolve } from 'node:path';
import type { ValidateFunction } from 'ajv';
import type { InputValue } from '../core/validator.js';
import { UsageError } from '../errors.js';
import { describeFound, fieldError, zodUsageError, type Locate } from '../core/issues.js';
import { withSystemCache, type CacheSettings } from './cache.js';
import { chatModelFromConfig, createChatModel, decorateModel, expandAll as expandValues, parseChatOptions } from './chat-factory.js';
import { ChatSystem } from './chat-system.js';
import { CommandSystem } from './command.js';
import { functionSystem, type SystemFunction } from './function-system.js';
import { HttpSystem } from './http.js';
import type { PriceTable } from './prices.js';
import { ReplaySystem, loadReplayFile, type ReplayRow } from './replay.js';
import {
  CHAT_PROVIDER_NAMES,
  PROVIDER_NAMES,
  providerSchemas,
  type ChatProviderName,
  type CommandConfig,
  type HttpConfig,
  type ProviderName,
  type ReplayConfig,
  type SystemChatConfig,
  type SystemConfig,
} from './schemas.js';
import { AgentSystem } from './agent-system.js';
import { ConversationSystem } from './conversation.js';
import { buildTools } from './tools.js';
import { SimulatedSystem } from './simulated.js';
import { inputKey } from './template.js';
import type { SystemUnderTest } from './types.js';

export interface SystemContext {
  /** The config file, named in error messages. */
  file?: string;
  /** The line of a field in that file, when known (a YAML config's). */
  locate?: Locate;
  /** Folder that relative paths (replay file, command cwd) resolve against: the config file's folder. */
  baseDir: string;
  /** The experiment's inputs, when known, to check recordings against. */
  inputs?: InputValue[];
  /** The experiment's samples per input, when known: a replay says which recordings it will not use. */
  samples?: number;
  /** Where a warning goes (a replay that ignores recordings); none by default. */
  warn?: (message: string) => void;
  /** Environment for `${VAR}` and API keys; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Prices of model calls (default: the built-in table). */
  prices?: PriceTable;
  /** Serve answers from, and save them to, the response cache (`--cache`). */
  cache?: CacheSettings;
  /** Compiles an agent's tool schemas (a run passes the validators' own: `pattern` on the linear-time engine). */
  compileSchema?: (schema: Record<string, unknown>) => ValidateFunction;
}

const ONE_OF = `exactly one of ${PROVIDER_NAMES.join(', ')}`;

function fail(ctx: Pick<SystemContext, 'file' | 'locate'>, path: string, message: string): never {
  throw fieldError({ file: ctx.file, locate: ctx.locate }, path, message);
}

/** Validates the YAML `system:` value; throws UsageError naming file and field path. */
export function parseSystemConfig(raw: unknown, ctx: Pick<SystemContext, 'file' | 'locate'> = {}): SystemConfig {
  const c = { baseDir: '.', ...ctx };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) fail(c, 'system', `expected ${ONE_OF}, found ${describeFound(raw)}`);
  // `rateLimit` sits beside the provider key; the runner reads it (providers/rate-limit.ts), the provider never sees it.
  const keys = Object.keys(raw).filter((k) => k !== 'rateLimit');
  const known = keys.filter((k): k is ProviderName => (PROVIDER_NAMES as string[]).includes(k));
  if (keys.length !== 1 || known.length !== 1) {
    fail(c, 'system', `expected ${ONE_OF}, found ${keys.length === 0 ? 'no key' : keys.map((k) => JSON.stringify(k)).join(', ')}`);
  }
  const name = known[0];
  const options = (raw as Record<string, unknown>)[name] ?? {};
  const schema = providerSchemas[name];
  const result = schema.safeParse(options, { reportInput: true });
  if (!result.success) throw zodUsageError(result.error, { file: c.file, locate: c.locate, prefix: ['system', name], schema });
  return { [name]: result.data } as SystemConfig;
}

const isChat = (name: string): name is ChatProviderName => (CHAT_PROVIDER_NAMES as string[]).includes(name);

/**
 * Builds the system under test from the YAML `system:` value. A chat provider becomes a ChatSystem over
 * its ChatModel, priced and (with ctx.cache) cached; http and command systems are cached as a whole.
 */
export function createSystem(raw: unknown, ctx: SystemContext): SystemUnderTest {
  // A TypeScript config's `system:` may be a function, as assay/vitest's: text, or an agent's result.
  if (typeof raw === 'function') return functionSystem(raw as SystemFunction, ctx.cache ? { cache: ctx.cache } : {});
  const config = parseSystemConfig(raw, ctx);
  const [name, options] = Object.entries(config)[0] as [ProviderName, unknown];
  if (isChat(name)) {
    // Validated with its tools by parseSystemConfig; the model's own options are a judge's.
    const { tools, maxSteps, toolTimeoutMs, conversation, ...rest } = options as SystemChatConfig;
    const o = parseChatOptions(name, rest, `system.${name}`, ctx);
    const model = decorateModel(createChatModel(name, o, `system.${name}`, ctx), ctx);
    const chat = { system: o.system, template: o.template, temperature: o.temperature, maxTokens: o.maxTokens };
    if (!tools) {
      if (toolTimeoutMs !== undefined)
        fail(ctx, `system.${name}.toolTimeoutMs`, 'expected only beside tools: (it limits each tool call), found it without tools');
      if (maxSteps !== undefined && !conversation)
        fail(ctx, `system.${name}.maxSteps`, "expected only beside tools: or conversation: (it limits an agent's model calls per turn), found neither");
      if (!conversation) return new ChatSystem(model, chat);
    }
    const agent = {
      ...chat,
      tools: tools ? buildTools(tools, ['system', name, 'tools'], ctx, ctx.compileSchema) : [],
      ...(maxSteps !== undefined ? { maxSteps } : {}),
      ...(toolTimeoutMs !== undefined ? { toolTimeoutMs } : {}),
    };
    if (!conversation) return new AgentSystem(model, agent);
    const { user, ...turns } = conversation;
    const userModel = user ? chatModelFromConfig(user.model, `system.${name}.conversation.user.model`, ctx).model : undefined;
    return new ConversationSystem(model, agent, {
      ...turns,
      ...(user && userModel ? { user: { model: userModel, persona: user.persona, goal: user.goal } } : {}),
    });
  }
  if ('http' in config) return cached(http(config.http, ctx), config, ctx);
  if ('command' in config) return cached(command(config.command, ctx), config, ctx);
  if ('replay' in config) return replay(config.replay, ctx);
  return new SimulatedSystem((config as { simulated: ConstructorParameters<typeof SimulatedSystem>[0] }).simulated);
}

/** Replay and simulated systems call nothing that costs: only http and command answers are worth caching. */
function cached(system: SystemUnderTest, config: SystemConfig, ctx: SystemContext): SystemUnderTest {
  return ctx.cache ? withSystemCache(system, config, ctx.cache) : system;
}

function http(o: HttpConfig, ctx: SystemContext): SystemUnderTest {
  const url = expandAll({ url: o.url }, 'system.http', ctx).url;
  if (!/^https?:\/\//i.test(url))
    fail(ctx, 'system.http.url', `expected an http:// or https:// URL, found ${JSON.stringify(url)} (after expanding ${JSON.stringify(o.url)})`);
  return new HttpSystem({ ...o, url, headers: o.headers && expandAll(o.headers, 'system.http.headers', ctx) });
}

function command(o: CommandConfig, ctx: SystemContext): SystemUnderTest {
  // Relative to the config's folder; spawn then finds `./app` relative to this cwd.
  const cwd = o.cwd ? resolvePath(ctx.baseDir, o.cwd) : ctx.baseDir;
  return new CommandSystem({ ...o, cwd });
}

function replay(o: ReplayConfig, ctx: SystemContext): SystemUnderTest {
  const file = resolvePath(ctx.baseDir, o.file);
  const rows = loadReplayFile(file);
  // An empty recording would turn every cell into an error: it is a mistake in the config, not a result.
  if (!rows.length) fail(ctx, 'system.replay.file', `expected a replay file with at least one recorded row, found none in ${file}`);
  const inputs = ctx.inputs;
  if (inputs) {
    for (const row of rows) {
      if (row.i !== undefined && row.i >= inputs.length) {
        throw new UsageError(
          `${file}:${row.line}: "i": expected an input index below ${inputs.length} (the experiment has ${inputs.length} inputs), found ${row.i}`,
          { file, line: row.line },
        );
      }
      // A row naming both must agree with itself, or its output would be filed under the wrong input.
      if (row.i !== undefined && row.input !== undefined && inputKey(row.input) !== inputKey(inputs[row.i])) {
        const at = inputs.findIndex((x) => inputKey(x) === inputKey(row.input as InputValue));
        throw new UsageError(
          `${file}:${row.line}: "input": expected the input of "i": ${row.i} (${describeFound(inputs[row.i])}), found ${describeFound(row.input)}` +
            (at >= 0 ? `, which is the input of "i": ${at}` : ", which is not one of the experiment's inputs"),
          { file, line: row.line },
        );
      }
    }
    const byInput = rows.filter((r) => r.i === undefined);
    if (byInput.length > 0 && !rows.some((r) => r.i !== undefined)) {
      const keys = new Set(byInput.map((r) => inputKey(r.input as InputValue)));
      if (!inputs.some((x) => keys.has(inputKey(x)))) {
        fail(
          ctx,
          'system.replay.file',
          `expected recordings for the experiment's inputs, found none of its ${inputs.length} inputs in ${file} (its first recorded input is ${describeFound(byInput[0].input)})`,
        );
      }
    }
  }
  const system = new ReplaySystem({ file, latencyMs: o.latencyMs }, rows);
  if (inputs && ctx.samples !== undefined && ctx.warn)
    for (const w of ignoredRecordings(system, rows, inputs, ctx.samples)) ctx.warn(`${ctx.file ?? 'config'}: system.replay: ${w}`);
  return system;
}

/** Recordings a run of `inputs` × `samples` will not read: beyond `samples` for an input, or of other inputs. */
function ignoredRecordings(system: ReplaySystem, rows: ReplayRow[], inputs: InputValue[], samples: number): string[] {
  const out: string[] = [];
  let beyond = 0;
  let most = 0;
  inputs.forEach((x, i) => {
    const n = system.count(x, i);
    most = Math.max(most, n);
    beyond += Math.max(0, n - samples);
  });
  if (beyond > 0) {
    out.push(
      `samples is ${samples}, so ${beyond} recording${beyond === 1 ? '' : 's'} beyond the first ${samples} of ${samples === 1 ? 'an input' : 'each input'} ${beyond === 1 ? 'is' : 'are'} ignored; set samples: ${most} to validate them all (or leave inputs out to take inputs and samples from the file)`,
    );
  }
  const known = new Set(inputs.map(inputKey));
  const others = rows.filter((r) => r.i === undefined && r.input !== undefined && !known.has(inputKey(r.input)));
  if (others.length) {
    out.push(
      `${others.length} recording${others.length === 1 ? '' : 's'} of inputs not among the experiment's inputs ${others.length === 1 ? 'is' : 'are'} ignored (the first, line ${others[0].line}: ${describeFound(others[0].input)})`,
    );
  }
  return out;
}

function resolvePath(baseDir: string, p: string): string {
  return isAbsolute(p) ? p : resolve(baseDir, p);
}

function expandAll(values: Record<string, string>, path: string, ctx: SystemContext): Record<string, string> {
  return expandValues(values, path, ctx);
}

import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { numberFlag } from './flags.js';
import { chatModelFromFile, fileFlagAlone, readProviderFile } from '../providers/provider-file.js';
import { localLimiters } from '../providers/rate-limit.js';
import { llmClaimCheckerFromConfig } from '../ground/checkers/llm.js';
import { createOllamaMiniCheckChecker } from '../ground/checkers/minicheck.js';
import { createNliChecker } from '../ground/checkers/nli.js';
import type { ClaimChecker } from '../ground/checkers/types.js';
import type { EmbedderConfig } from '../ground/embedders/resolve.js';
import type { AnswerGenerator } from '../ground/engine.js';
import { createChatAnswerGenerator, type OpenAIGeneratorOptions } from '../ground/llm.js';

/** Options shared by the grounding commands (kb, analyze, calibrate, bench grounding, serve). */
export function embedderOptions(cmd: Command): Command {
  return cmd
    .option('--model-dir <dir>', 'transformers embedder: folder holding the model (transformers.js layout)')
    .option('--allow-remote', 'transformers embedder: allow downloads from the Hugging Face hub')
    .option('--embedding-url <url>', 'openai embedder: base URL of an OpenAI-compatible /v1/embeddings endpoint (default $OPENAI_BASE_URL)');
}

export function embedderConfig(o: { modelDir?: string; allowRemote?: boolean; embeddingUrl?: string }): EmbedderConfig {
  return { modelDir: o.modelDir, allowRemote: o.allowRemote, baseURL: o.embeddingUrl };
}

/** The LLM that answers query-only requests (design §3.1: one call, temperature ≤ 0.3). */
export function llmOptions(cmd: Command): Command {
  return cmd
    .option('--llm <file>', 'the chat model that answers query-only requests: a provider object in YAML/JSON, as under system: (e.g. anthropic: { model: … })')
    .option('--llm-model <name>', 'or an OpenAI-compatible chat model (key from $OPENAI_API_KEY)')
    .option('--llm-base-url <url>', 'base URL of that endpoint (default $OPENAI_BASE_URL)')
    .option('--temperature <t>', 'generation temperature, 0–0.3 (default 0.2, or that of the --llm file)');
}

export interface LlmFlags {
  llm?: string;
  llmModel?: string;
  llmBaseUrl?: string;
  temperature?: string;
}

/** The answer generator from `--llm <file>` (any chat provider) or `--llm-model`/`--llm-base-url` (OpenAI-compatible). */
export async function llmConfig(o: LlmFlags): Promise<AnswerGenerator | OpenAIGeneratorOptions | undefined> {
  const temperature = numberFlag('--temperature', o.temperature, { min: 0, max: 0.3 });
  if (o.llm !== undefined) {
    fileFlagAlone('--llm', o.llm, { '--llm-model': o.llmModel, '--llm-base-url': o.llmBaseUrl });
    const { model, name, options } = await chatModelFromFile(o.llm, '--llm');
    const at = `--llm.${name}`;
    // A system-under-test prompt template has no place in answering one query; refused rather than ignored.
    if (options.template !== undefined)
      throw new UsageError(`${o.llm}: ${at}.template: not used to answer queries, remove it`, { file: o.llm, path: `${at}.template` });
    if (options.temperature !== undefined && options.temperature > 0.3)
      throw new UsageError(`${o.llm}: ${at}.temperature: expected a number from 0 to 0.3 (design §3.1), found ${options.temperature}`, {
        file: o.llm,
        path: `${at}.temperature`,
      });
    return createChatAnswerGenerator({
      model,
      temperature: temperature ?? options.temperature,
      ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
      ...(options.system !== undefined ? { system: options.system } : {}),
    });
  }
  if (!o.llmModel) {
    if (o.temperature !== undefined || o.llmBaseUrl !== undefined)
      throw new UsageError('--temperature and --llm-base-url need --llm-model or --llm', { path: '--llm-model' });
    return undefined;
  }
  return { model: o.llmModel, baseURL: o.llmBaseUrl ?? process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY, temperature };
}

/** The claim checker flags of `analyze` and `serve`: an LLM judge, a local NLI model or MiniCheck, one of them. */
export function checkerOptions(cmd: Command): Command {
  return cmd
    .option(
      '--judge <file>',
      "check each claim against its evidence with an LLM judge: a provider object in YAML/JSON, as under a verifier's judge: (e.g. anthropic: { model: claude-haiku-4-5 }); verdicts bound to each call's nonce, cost counted",
    )
    .option('--nli-model <dir>', 'check each claim with an NLI / cross-encoder model in this folder (ONNX in the transformers.js layout; never downloaded)')
    .option(...CHECKER_FLAG)
    .option(...CHECKER_URL_FLAG);
}

export const CHECKER_FLAG = [
  '--checker <spec>',
  "a claim checker: minicheck[:<model>] (MiniCheck's prompt through Ollama, default model bespoke-minicheck), judge:<file> (as --judge) or nli:<dir> (as --nli-model)",
] as const;
export const CHECKER_URL_FLAG = [
  '--checker-url <url>',
  'the Ollama server of --checker minicheck (default $OLLAMA_HOST, else http://127.0.0.1:11434)',
] as const;

export interface CheckerFlags {
  judge?: string;
  nliModel?: string;
  checker?: string;
  checkerUrl?: string;
}

const CHECKER_FORMS = 'minicheck, minicheck:<model>, judge:<file> or nli:<dir>';

/** `--checker <spec>` read into the flags it stands for, or a MiniCheck model name. */
function readCheckerSpec(o: CheckerFlags): { judge?: string; nliModel?: string; minicheck?: string } {
  const spec = o.checker;
  if (spec === undefined) {
    if (o.checkerUrl !== undefined) throw new UsageError('--checker-url needs --checker minicheck[:<model>]', { path: '--checker-url' });
    return { judge: o.judge, nliModel: o.nliModel };
  }
  if (o.judge !== undefined || o.nliModel !== undefined)
    throw new UsageError(`--checker and ${o.judge !== undefined ? '--judge' : '--nli-model'}: expected one claim checker, found both`, { path: '--checker' });
  const m = /^(minicheck|judge|nli)(?::(.*))?$/.exec(spec);
  if (!m || (m[1] !== 'minicheck' && !m[2]) || m[2] === '')
    throw new UsageError(`--checker: expected ${CHECKER_FORMS}, found "${spec}"`, { path: '--checker' });
  if (m[1] !== 'minicheck' && o.checkerUrl !== undefined) throw new UsageError('--checker-url needs --checker minicheck[:<model>]', { path: '--checker-url' });
  if (m[1] === 'judge') return { judge: m[2] };
  if (m[1] === 'nli') return { nliModel: m[2] };
  return { minicheck: m[2] ?? 'bespoke-minicheck' };
}

/**
 * The claim checker of `--judge <file>` (built now: a bad file or a missing key fails first), `--nli-model <dir>`
 * (loaded with the KB) or `--checker <spec>` (MiniCheck through Ollama, or either of the others).
 */
export async function checkerConfig(o: CheckerFlags): Promise<{ checker?: ClaimChecker; nliModel?: string; nliLabel?: string }> {
  if (o.judge !== undefined && o.nliModel !== undefined)
    throw new UsageError('--judge and --nli-model: expected one claim checker, an LLM judge or an NLI model, found both', { path: '--judge' });
  const label = o.checker !== undefined ? '--checker' : undefined;
  const spec = readCheckerSpec(o);
  if (spec.minicheck !== undefined)
    return { checker: createOllamaMiniCheckChecker({ model: spec.minicheck, baseURL: o.checkerUrl ?? (process.env.OLLAMA_HOST || undefined) }) };
  if (spec.nliModel !== undefined) return { nliModel: spec.nliModel, nliLabel: label ?? '--nli-model' };
  if (spec.judge === undefined) return {};
  const path = label ?? '--judge';
  const raw = await readProviderFile(spec.judge, path);
  return { checker: llmClaimCheckerFromConfig(raw, { file: spec.judge, path, limiters: localLimiters(), retry: { baseMs: 200, maxMs: 2000 } }) };
}

/** The claim checker of `assay bench grounding --checker <spec>`, built (an NLI model loaded) now. */
export async function benchChecker(o: CheckerFlags): Promise<ClaimChecker | undefined> {
  const c = await checkerConfig(o);
  if (c.nliModel !== undefined) return createNliChecker({ dir: c.nliModel, label: c.nliLabel });
  return c.checker;
}

/** The knowledge base the grounding commands use without --kb (as the docs do): .assay/kb under the working directory. */
export const DEFAULT_KB = '.assay/kb';

import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { numberFlag } from './flags.js';
import { chatModelFromFile, fileFlagAlone, readProviderFile } from '../providers/provider-file.js';
import { localLimiters } from '../providers/rate-limit.js';
import { llmClaimCheckerFromConfig } from '../ground/checkers/llm.js';
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

/** The claim checker flags of `analyze` and `serve`: an LLM judge or a local NLI model, one of them. */
export function checkerOptions(cmd: Command): Command {
  return cmd
    .option(
      '--judge <file>',
      "check each claim against its evidence with an LLM judge: a provider object in YAML/JSON, as under a verifier's judge: (e.g. anthropic: { model: claude-haiku-4-5 }); verdicts bound to each call's nonce, cost counted",
    )
    .option('--nli-model <dir>', 'check each claim with an NLI / cross-encoder model in this folder (ONNX in the transformers.js layout; never downloaded)');
}

export interface CheckerFlags {
  judge?: string;
  nliModel?: string;
}

/** The claim checker of `--judge <file>` (built now: a bad file or a missing key fails first) or `--nli-model <dir>` (loaded with the KB). */
export async function checkerConfig(o: CheckerFlags): Promise<{ checker?: ClaimChecker; nliModel?: string; nliLabel?: string }> {
  if (o.judge !== undefined && o.nliModel !== undefined)
    throw new UsageError('--judge and --nli-model: expected one claim checker, an LLM judge or an NLI model, found both', { path: '--judge' });
  if (o.nliModel !== undefined) return { nliModel: o.nliModel, nliLabel: '--nli-model' };
  if (o.judge === undefined) return {};
  const raw = await readProviderFile(o.judge, '--judge');
  return { checker: llmClaimCheckerFromConfig(raw, { file: o.judge, path: '--judge', limiters: localLimiters(), retry: { baseMs: 200, maxMs: 2000 } }) };
}

/** The knowledge base the grounding commands use without --kb (as the docs do): .assay/kb under the working directory. */
export const DEFAULT_KB = '.assay/kb';

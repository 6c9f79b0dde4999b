import { UsageError } from '../errors.js';
import { createNliChecker } from './checkers/nli.js';
import type { ClaimChecker } from './checkers/types.js';
import type { EmbedderConfig } from './embedders/resolve.js';
import { embedderFromSpec } from './embedders/resolve.js';
import type { KbEmbedder } from './embedders/spec.js';
import { analyze, type AnalyzeOptions, type AnswerGenerator } from './engine.js';
import type { KnowledgeBase } from './kb/kb.js';
import { openKnowledgeBase, type Calibration, type KbManifest } from './kb/kb-store.js';
import { createOpenAIAnswerGenerator, type OpenAIGeneratorOptions } from './llm.js';
import type { AnalyzeRequest, GroundingEngine, GroundingReport } from './types.js';

export interface GroundingEngineOptions extends Omit<AnalyzeOptions, 'llm' | 'checker'> {
  /** The KB directory, opened once, read-only. */
  kbDir: string;
  /** Embedder to query with (must equal the KB's); default: re-created from the KB's manifest. */
  embedder?: KbEmbedder;
  /** Run-time embedder configuration (model folder, endpoint) when the embedder is re-created. */
  embedderConfig?: EmbedderConfig;
  /** The LLM for query-only requests: a generator, or the settings of an OpenAI-compatible endpoint. */
  llm?: AnswerGenerator | OpenAIGeneratorOptions;
  /** A folder holding an NLI / cross-encoder model (checkers/nli.ts), loaded once with the KB, from local files only. */
  nliModel?: string;
  /** Names `nliModel` in error messages (the flag or config field that gave it); default "nli model". */
  nliLabel?: string;
  /** Any other claim checker (an LLM judge: checkers/llm.ts); not with `nliModel`. */
  checker?: ClaimChecker;
}

export interface OpenGroundingEngine extends GroundingEngine {
  readonly kb: KnowledgeBase;
  readonly manifest: KbManifest;
  readonly calibration?: Calibration;
  /** The claim checker the analyses use, if any. */
  readonly checker?: ClaimChecker;
  /** Frees what the engine loaded itself (an NLI model). */
  close(): Promise<void>;
}

/** The engine behind `assay analyze` and `POST /analyze`: one KB in memory, thresholds from calibration if any. */
export async function createGroundingEngine(options: GroundingEngineOptions): Promise<OpenGroundingEngine> {
  oneChecker(options);
  const { kb, manifest, calibration } = await openKnowledgeBase(options.kbDir, {
    embedder: options.embedder,
    resolve: (spec) => embedderFromSpec(spec, options.embedderConfig),
  });
  const llm = options.llm === undefined ? undefined : 'generate' in options.llm ? options.llm : createOpenAIAnswerGenerator(options.llm);
  const checker = options.nliModel !== undefined ? await createNliChecker({ dir: options.nliModel, label: options.nliLabel }) : options.checker;
  const { nliModel: _dir, nliLabel: _label, embedder: _embedder, embedderConfig: _config, kbDir: _kb, ...analysis } = options;
  const base: AnalyzeOptions = { ...analysis, llm, checker, thresholds: options.thresholds ?? calibration?.thresholds };
  return {
    kb,
    manifest,
    calibration,
    checker,
    analyze(request: AnalyzeRequest, signal?: AbortSignal): Promise<GroundingReport> {
      return analyze(kb, request, base, signal);
    },
    async close() {
      if (options.nliModel !== undefined) await checker?.close?.();
    },
  };
}

/** One claim checker per engine: an NLI model or another checker (an LLM judge), never both. */
function oneChecker(options: GroundingEngineOptions): void {
  if (options.nliModel !== undefined && options.checker !== undefined)
    throw new UsageError(
      `${options.nliLabel ?? 'nli model'}: expected one claim checker, an NLI model or an LLM judge, found both (the NLI model ${options.nliModel} and ${options.checker.id})`,
      { path: options.nliLabel },
    );
}

import type { EmbedderConfig } from './embedders/resolve.js';
import { embedderFromSpec } from './embedders/resolve.js';
import type { KbEmbedder } from './embedders/spec.js';
import { analyze, type AnalyzeOptions, type AnswerGenerator } from './engine.js';
import type { KnowledgeBase } from './kb.js';
import { openKnowledgeBase, type Calibration, type KbManifest } from './kb-store.js';
import { createOpenAIAnswerGenerator, type OpenAIGeneratorOptions } from './llm.js';
import type { AnalyzeRequest, GroundingEngine, GroundingReport } from './types.js';

export interface GroundingEngineOptions extends Omit<AnalyzeOptions, 'llm'> {
  /** The KB directory, opened once, read-only. */
  kbDir: string;
  /** Embedder to query with (must equal the KB's); default: re-created from the KB's manifest. */
  embedder?: KbEmbedder;
  /** Run-time embedder configuration (model folder, endpoint) when the embedder is re-created. */
  embedderConfig?: EmbedderConfig;
  /** The LLM for query-only requests: a generator, or the settings of an OpenAI-compatible endpoint. */
  llm?: AnswerGenerator | OpenAIGeneratorOptions;
}

export interface OpenGroundingEngine extends GroundingEngine {
  readonly kb: KnowledgeBase;
  readonly manifest: KbManifest;
  readonly calibration?: Calibration;
}

/** The engine behind `assay analyze` and `POST /analyze`: one KB in memory, thresholds from calibration if any. */
export async function createGroundingEngine(options: GroundingEngineOptions): Promise<OpenGroundingEngine> {
  const { kb, manifest, calibration } = await openKnowledgeBase(options.kbDir, {
    embedder: options.embedder,
    resolve: (spec) => embedderFromSpec(spec, options.embedderConfig),
  });
  const llm = options.llm === undefined ? undefined : 'generate' in options.llm ? options.llm : createOpenAIAnswerGenerator(options.llm);
  const base: AnalyzeOptions = { ...options, llm, thresholds: options.thresholds ?? calibration?.thresholds };
  return {
    kb,
    manifest,
    calibration,
    analyze(request: AnalyzeRequest, signal?: AbortSignal): Promise<GroundingReport> {
      return analyze(kb, request, base, signal);
    },
  };
}

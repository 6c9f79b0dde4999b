import { availableParallelism } from 'node:os';
import { ArgumentError, UsageError, thrownMessage } from '../../errors.js';
import type { ClaimCheckItem, ClaimChecker } from '../checkers/types.js';
import type { AnswerGenerator } from '../engine.js';
import { createOpenAIAnswerGenerator, type OpenAIGeneratorOptions } from '../llm.js';
import type { GroundingEngineOptions } from '../service.js';
import { GroundingRequestError, GroundingUnavailableError, type AnalyzeRequest, type GroundingEngine, type GroundingReport } from '../types.js';
import { PoolUnavailableError, TaskFailedError, WorkerPool, type PoolStats } from './pool.js';
import { spawnModuleWorker } from './spawn.js';

export { PoolOverloadedError, WorkerCrashedError, type PoolStats } from './pool.js';

/** One worker per core, at least 2 (so one long analysis never leaves the service without a free thread), at most 8. */
export const defaultWorkers = (): number => Math.max(2, Math.min(8, availableParallelism()));
/** Requests that may wait for a free worker before the next one is refused (503). */
export const DEFAULT_QUEUE = 32;

/** What each worker opens: the engine's options, all serialisable (the LLM and an LLM claim checker stay on the main thread). */
export type WorkerEngineOptions = Omit<GroundingEngineOptions, 'embedder' | 'llm' | 'checker'>;

export interface GroundingPoolOptions extends WorkerEngineOptions {
  /** The LLM for query-only requests; it is called on the main thread (network I/O), the analysis in a worker. */
  llm?: AnswerGenerator | OpenAIGeneratorOptions;
  /**
   * A claim checker that lives on this thread (an LLM judge: network I/O, with its prices and limits): a worker
   * hands its claims here mid-analysis and gets the verdicts back. An NLI model (`nliModel`, CPU work) is loaded
   * in each worker instead.
   */
  checker?: ClaimChecker;
  /** Worker threads, each with its own copy of the KB (default: one per core, 2–8). */
  workers?: number;
  /** Requests that may wait for a free worker (default 32); one more gets PoolOverloadedError (HTTP 503). */
  queue?: number;
  /** V8 heap limit of each worker in MB (default: Node's own); an analysis beyond it fails alone (HTTP 500). */
  workerHeapMb?: number;
  /** Told (once) when a replacement worker loaded a different KB from the first one: the KB changed on disk. */
  onWarning?: (message: string) => void;
}

export interface GroundingWorkerData {
  engine: WorkerEngineOptions;
  /** Set when the main thread generates answers for query-only requests. */
  llmId?: string;
  /** Set when the main thread checks claims (an LLM claim checker): the worker relays its checks there. */
  checker?: { id: string; kind: ClaimChecker['kind'] };
}

/** A worker's request to the main thread: check these claims with the pool's checker. */
export interface CheckCall {
  check: ClaimCheckItem[];
}

export interface GroundingTask {
  request: AnalyzeRequest;
  /** The answer the main thread's LLM generated for a query-only request. */
  generated?: string;
}

/** `POST /analyze`'s engine in worker threads: the main thread only generates answers (I/O) and waits. */
export interface GroundingPool extends GroundingEngine {
  readonly workers: number;
  readonly queue: number;
  stats(): PoolStats;
  /** Terminates the workers; pending analyses are refused. */
  close(): Promise<void>;
}

interface WorkerInfo {
  checksum: string;
  chunks: number;
  embedder: string;
}

/**
 * Starts `workers` threads that each open the KB in `kbDir` (once), and resolves when all have. A KB that
 * cannot be opened rejects here, with the message `createGroundingEngine` gives (a UsageError stays one).
 */
export async function createGroundingPool(options: GroundingPoolOptions): Promise<GroundingPool> {
  const { llm: llmOption, checker, workers = defaultWorkers(), queue = DEFAULT_QUEUE, workerHeapMb, onWarning, ...engine } = options;
  if ('embedder' in engine)
    throw new ArgumentError('createGroundingPool: an embedder object cannot be passed to worker threads; it is re-created from the KB', { key: 'embedder' });
  if (checker && engine.nliModel !== undefined)
    throw new UsageError(
      `${engine.nliLabel ?? 'nli model'}: expected one claim checker, an NLI model or an LLM judge, found both (the NLI model ${engine.nliModel} and ${checker.id})`,
      { path: engine.nliLabel },
    );
  const llm = llmOption === undefined ? undefined : 'generate' in llmOption ? llmOption : createOpenAIAnswerGenerator(llmOption);
  const workerData: GroundingWorkerData = {
    engine,
    ...(llm ? { llmId: llm.id } : {}),
    ...(checker ? { checker: { id: checker.id, kind: checker.kind } } : {}),
  };
  let checksum: string | undefined;
  let warned = false;
  let pool: WorkerPool<GroundingTask, GroundingReport>;
  try {
    pool = await WorkerPool.start<GroundingTask, GroundingReport>({
      size: workers,
      queue,
      spawn: () =>
        spawnModuleWorker(new URL('./worker', import.meta.url), {
          workerData,
          ...(workerHeapMb ? { resourceLimits: { maxOldGenerationSizeMb: workerHeapMb } } : {}),
        }),
      onReady: (info) => {
        const c = (info as WorkerInfo).checksum;
        checksum ??= c;
        if (c !== checksum && !warned) {
          warned = true;
          onWarning?.(`the knowledge base in ${engine.kbDir} changed on disk; workers started since then serve the new one: restart to serve one version`);
        }
      },
      onStartFailure: (e) => onWarning?.(`an analysis worker could not start (${e.message}); retrying`),
      // A worker's claims, checked here by the LLM checker; its verdicts, tokens and cost go back with the answer.
      ...(checker ? { onCall: (input, signal) => checker.check((input as CheckCall).check, signal) } : {}),
    });
  } catch (err) {
    const e = PoolUnavailableError.isInstance(err) ? err.error : undefined;
    if (e && (e.name === 'UsageError' || e.name === 'MissingPackageError')) throw new UsageError(e.message, { file: engine.kbDir });
    throw err;
  }
  return {
    workers,
    queue,
    stats: () => pool.stats(),
    close: () => pool.close(),
    async analyze(request: AnalyzeRequest, signal?: AbortSignal): Promise<GroundingReport> {
      let generated: string | undefined;
      const r = request as unknown as Record<string, unknown> | null;
      if (llm && r && typeof r === 'object' && r.answer == null && typeof r.query === 'string' && r.query.trim() !== '') {
        try {
          generated = await llm.generate(r.query, signal);
        } catch (err) {
          if (signal?.aborted) throw signal.reason;
          throw new GroundingUnavailableError(`answer generation failed: ${thrownMessage(err)}`, { cause: err });
        }
      }
      try {
        return await pool.run({ request, ...(generated !== undefined ? { generated } : {}) }, signal);
      } catch (err) {
        throw fromWorker(err);
      }
    },
  };
}

/** The engine's own errors come back as what they were; anything else it threw is a bug (HTTP 500). */
function fromWorker(err: unknown): unknown {
  if (PoolUnavailableError.isInstance(err)) return new GroundingUnavailableError(`the analysis workers cannot run: ${err.message}`, { cause: err });
  if (!TaskFailedError.isInstance(err)) return err;
  const e = err.error;
  if (e.name === 'GroundingRequestError') return new GroundingRequestError(e.message, e.status as 400 | 422, e.field as string | undefined);
  if (e.name === 'GroundingUnavailableError') return new GroundingUnavailableError(e.message);
  return new Error(`the analysis failed in its worker: ${e.name}: ${e.message}`, { cause: err });
}

/**
 * The grounding worker thread: opens the knowledge base once (with its index and embedder), then analyses
 * one request at a time for the pool in grounding.ts. An answer the main thread generated for a query-only
 * request arrives with the task and is handed to the engine as its "LLM", so the engine runs unchanged.
 */
import { workerData } from 'node:worker_threads';
import type { ClaimCheckBatch, ClaimChecker } from '../checkers/types.js';
import type { AnswerGenerator } from '../engine.js';
import { createGroundingEngine } from '../service.js';
import type { GroundingReport } from '../types.js';
import type { CheckCall, GroundingTask, GroundingWorkerData } from './grounding.js';
import { serveTasks, type TaskTools } from './serve-tasks.js';
import { lowerThreadPriority } from './spawn.js';

const data = workerData as GroundingWorkerData;
// The main thread's I/O (other requests, /healthz) comes before analyses when the cores are busy.
lowerThreadPriority();

serveTasks<GroundingTask, GroundingReport>(async () => {
  let generated: string | undefined;
  let tools: TaskTools | undefined;
  // An LLM claim checker lives on the main thread: the claims go there, the verdicts come back (the pool's onCall).
  const relayChecker: ClaimChecker | undefined = data.checker
    ? {
        ...data.checker,
        check: async (items) => {
          if (!tools) throw new Error('no task is running');
          return (await tools.call({ check: [...items] } satisfies CheckCall)) as ClaimCheckBatch;
        },
      }
    : undefined;
  const relay: AnswerGenerator | undefined = data.llmId
    ? {
        id: data.llmId,
        generate: async () => {
          if (generated === undefined) throw new Error('no answer was generated for this request');
          return generated;
        },
      }
    : undefined;
  const engine = await createGroundingEngine({ ...data.engine, llm: relay, ...(relayChecker ? { checker: relayChecker } : {}) });
  return {
    info: { checksum: engine.manifest.checksum, chunks: engine.kb.chunks.length, embedder: engine.kb.embedder.id },
    async run(task, taskTools) {
      generated = task.generated;
      tools = taskTools;
      try {
        return await engine.analyze(task.request);
      } finally {
        generated = undefined;
        tools = undefined;
      }
    },
  };
});

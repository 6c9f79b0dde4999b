import { Outcome, type OutcomeCode } from '../../core/outcome.js';
import type { RunRecord, Store } from '../../store/types.js';

/**
 * Test helper: a complete run with one code validator (`short`) and one verifier (`polite`), N inputs × M
 * samples, whose cells `cell` decides; the verifier's reasons name its verdict so reports can be checked.
 */
export async function writeGradedFixture(
  store: Store,
  opts: {
    N: number;
    M: number;
    cell: (i: number, j: number, k: number) => OutcomeCode;
    config?: Record<string, unknown>;
    minSuccess?: number;
    /** Samples (i, j) whose generation failed (no output). */
    failed?: (i: number, j: number) => boolean;
  },
): Promise<RunRecord> {
  const run = await store.runs.create({
    name: 'graded',
    config: { name: 'graded', ...(opts.config ?? {}) },
    inputs: Array.from({ length: opts.N }, (_, i) => `Question ${i}: how do I reset my password?`),
    samples: opts.M,
    validators: [
      {
        name: 'short',
        message: 'at most 50 words',
        minSuccess: opts.minSuccess ?? 0.8,
        weight: 1,
        kind: 'validator',
        source: 'o => o.split(/\\s+/).length <= 50',
      },
      {
        name: 'polite',
        // As a config without `message:` stores it: said when the rule fails, so never shown before grading.
        message: 'verifier polite judged the output FAIL',
        minSuccess: opts.minSuccess ?? 0.8,
        weight: 1,
        kind: 'verifier',
        source: 'LLM judge mock: Is the answer polite?',
      },
    ],
    systemId: 'fixture',
  });
  for (let i = 0; i < opts.N; i++)
    for (let j = 0; j < opts.M; j++) {
      if (opts.failed?.(i, j)) {
        await store.samples.record(run.id, { i, j, outcomes: [Outcome.ERROR, Outcome.ERROR], generationError: 'HTTP 503', latencyMs: 1, attempts: 3 });
        continue;
      }
      const outcomes = [opts.cell(i, j, 0), opts.cell(i, j, 1)];
      await store.samples.record(run.id, {
        i,
        j,
        output: `Answer ${i}.${j}: open Settings, then Security.`,
        outcomes,
        errors: outcomes.map((o) => (o === Outcome.ERROR ? 'judge timed out' : undefined)),
        reasons: [undefined, outcomes[1] === Outcome.ERROR ? undefined : [`judge says ${outcomes[1] === Outcome.PASS ? 'polite' : 'rude'} (${i}.${j})`]],
        latencyMs: 5,
        attempts: 1,
      });
    }
  await store.runs.setStatus(run.id, 'complete');
  return (await store.runs.get(run.id))!;
}

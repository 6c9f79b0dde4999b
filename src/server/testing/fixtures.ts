import { Outcome, type OutcomeCode } from '../../core/outcome.js';
import type { Trajectory } from '../../core/trajectory.js';
import type { InputValue } from '../../core/validator.js';
import type { RunRecord, Store } from '../../store/types.js';

/** Test helper: writes a run into a store through the Store API, with the outcome of every cell given by `cell`. */
export interface FixtureRun {
  name: string;
  inputs: InputValue[];
  samples: number;
  validators: { name: string; minSuccess?: number }[];
  cell: (i: number, j: number, k: number) => OutcomeCode;
  output?: (i: number, j: number) => string;
  /** An agent's steps for output (i, j), when the run is an agent's. */
  trajectory?: (i: number, j: number) => Trajectory | undefined;
  /** Each validator's passK (pass^k report and gate). */
  passK?: { k: number; minSuccess?: number };
  /** Cells (i, j) left unstored (PENDING). */
  skip?: (i: number, j: number) => boolean;
}

export async function writeFixtureRun(store: Store, f: FixtureRun): Promise<RunRecord> {
  const run = await store.runs.create({
    name: f.name,
    config: { fixture: true },
    inputs: f.inputs,
    samples: f.samples,
    validators: f.validators.map((v) => ({
      name: v.name,
      message: `${v.name} must hold`,
      minSuccess: v.minSuccess ?? 0.8,
      weight: 1,
      kind: 'validator' as const,
      ...(f.passK ? { passK: f.passK } : {}),
    })),
    systemId: 'fixture:echo',
  });
  for (let i = 0; i < f.inputs.length; i++) {
    for (let j = 0; j < f.samples; j++) {
      if (f.skip?.(i, j)) continue;
      const outcomes = f.validators.map((_, k) => f.cell(i, j, k));
      await store.samples.record(run.id, {
        i,
        j,
        output: f.output ? f.output(i, j) : `output ${i}-${j}`,
        ...(f.trajectory?.(i, j) ? { trajectory: f.trajectory(i, j) } : {}),
        outcomes,
        errors: outcomes.map((o) => (o === Outcome.ERROR ? 'provider timeout' : undefined)),
        latencyMs: 12,
        attempts: 1,
      });
    }
  }
  await store.runs.setStatus(run.id, 'complete');
  return (await store.runs.get(run.id))!;
}

/** Deterministic pseudo-random numbers for seeded fixtures (mulberry32). */
export { mulberry32 as seeded } from '../../core/prng.js';

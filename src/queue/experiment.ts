import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { experimentFromDocument, loadExperiment, type Experiment, type LoadOptions } from '../config/load.js';
import type { Validator } from '../core/validator.js';
import { UsageError } from '../errors.js';
import type { LimiterFactory } from '../providers/rate-limit.js';
import type { SystemUnderTest } from '../providers/types.js';
import { assembleRun, type AssembledRun } from '../run/assemble.js';
import type { ResponseCache, RunRecord } from '../store/types.js';

/** What a worker needs to run any sample of one stored run. */
export interface RunContext {
  run: RunRecord;
  experiment: Experiment;
  system: SystemUnderTest;
  /** The K columns, in the stored run's order. */
  validators: Validator[];
  dispose(): Promise<void>;
}

/**
 * Rebuild a stored run's experiment on a worker. A YAML or JSON config travels with the run (its document is
 * stored with it), so the worker builds the very same system and validators from it, on any machine; only
 * files it names (a replay recording, a command's folder) must exist where the worker runs. A TypeScript
 * config holds functions, which cannot be stored: the worker loads the same file path, and says so clearly
 * when it is not there.
 */
export async function runContext(run: RunRecord, limiters: LimiterFactory, options: LoadOptions = {}, cache?: ResponseCache): Promise<RunContext> {
  const config = (run.config ?? {}) as { document?: unknown };
  const file = run.configPath ?? `the config of run ${run.id}`;
  let x: Experiment;
  if (config.document !== undefined) {
    const configPath = run.configPath ?? process.cwd();
    x = await experimentFromDocument(
      config.document,
      { file, configPath, baseDir: run.configPath ? dirname(run.configPath) : process.cwd(), inputs: run.inputs },
      { samples: run.M },
      options,
    );
  } else if (run.configPath && existsSync(run.configPath)) {
    x = await loadExperiment(run.configPath, { samples: run.M }, options);
  } else {
    throw new UsageError(
      `run ${run.id}: its config ${run.configPath ?? '(none recorded)'} is a TypeScript or JavaScript module, whose functions cannot be stored with the run, so workers load that same file, and this machine has no file at that path; run the workers where the file is, or use a YAML or JSON config`,
    );
  }
  // The config's prices, cache and rate limits hold on the workers too (limits shared through Redis);
  // the coordinator watches the stop rules.
  let assembled: AssembledRun;
  try {
    assembled = await assembleRun(x, { limiters, inputs: run.inputs, ...(cache ? { cache } : {}) });
  } catch (err) {
    x.dispose();
    throw err;
  }
  const validators = assembled.experiment.validators;
  const names = validators.map((v) => v.name).join(', ');
  const stored = run.validators.map((v) => v.name).join(', ');
  if (names !== stored || (config.document === undefined && JSON.stringify(x.inputs) !== JSON.stringify(run.inputs))) {
    await assembled.dispose();
    throw new UsageError(
      `run ${run.id}: ${file} no longer matches the stored run (validators: the run has [${stored}], the file gives [${names}]${names === stored ? '; its inputs differ' : ''})`,
    );
  }
  return { run, experiment: x, system: assembled.system, validators, dispose: assembled.dispose };
}

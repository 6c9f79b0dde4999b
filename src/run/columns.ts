import type { Experiment } from '../config/load.js';
import type { Validator } from '../core/validator.js';
import { verifierFromConfig } from '../judge/config.js';
import type { LimiterFactory } from './rate-limit.js';

/** The experiment's validators followed by its verifiers: the K columns of the tensor, in order. */
export function tensorColumns(x: Experiment, limiters?: LimiterFactory, env?: NodeJS.ProcessEnv): Validator[] {
  const verifiers = x.verifierConfigs.map((raw, i) => {
    const v = verifierFromConfig(raw, { file: x.configPath, path: `verifiers[${i}]`, ...(limiters ? { limiters } : {}), ...(env ? { env } : {}) }) as Validator;
    // How its verdict treats errors, and the rate its sequential design plans for, are the run's business, not the judge's.
    return { ...v, ...(raw.maxErrorShare !== undefined ? { maxErrorShare: raw.maxErrorShare } : {}), ...(raw.expect !== undefined ? { expect: raw.expect } : {}) };
  });
  return [...x.validators, ...verifiers];
}

import type { Experiment, ResolvedVerifierConfig } from '../config/load.js';
import type { Validator } from '../core/validator.js';
import { verifierFromConfig } from '../judge/config.js';
import type { CacheSettings } from '../providers/cache.js';
import type { PriceTable } from '../providers/prices.js';
import type { LimiterFactory } from '../providers/rate-limit.js';

/** A verifier entry without the run's fields (maxErrorShare, expect, perInput, passK): what the judge's module checks. */
export function judgeFields(raw: ResolvedVerifierConfig): Omit<ResolvedVerifierConfig, 'maxErrorShare' | 'expect' | 'perInput' | 'passK'> {
  const { maxErrorShare: _m, expect: _e, perInput: _p, passK: _k, ...judged } = raw;
  return judged;
}

/**
 * The experiment's verifiers as tensor columns (they follow its validators), each with its judge: limited by
 * its own `rateLimit` through `limiters`, priced and cached by `models`. A judgement's budget is the run's
 * per-call limit unless the verifier sets its own. Called by run/assemble.ts only.
 */
export function verifierColumns(
  x: Experiment,
  limiters: LimiterFactory,
  models: { prices?: PriceTable; cache?: CacheSettings; warn?: (message: string) => void; env?: NodeJS.ProcessEnv } = {},
): Validator[] {
  return x.verifierConfigs.map((raw, i) => {
    const v = verifierFromConfig(judgeFields(raw), {
      file: x.file ?? x.configPath,
      ...(x.locate ? { locate: x.locate } : {}),
      path: `verifiers[${i}]`,
      timeoutMs: x.timeoutMs,
      ...models,
      limiters,
    }) as Validator;
    // How its verdict treats errors, and the rate its sequential design plans for, are the run's business, not the judge's.
    return {
      ...v,
      ...(raw.maxErrorShare !== undefined ? { maxErrorShare: raw.maxErrorShare } : {}),
      ...(raw.expect !== undefined ? { expect: raw.expect } : {}),
      ...(raw.perInput ? { perInput: raw.perInput } : {}),
      ...(raw.passK ? { passK: raw.passK } : {}),
    };
  });
}

import { resolve } from 'node:path';
import type { CheckResult, InputValue, Validator } from '../core/validator.js';
import { UsageError, thrownMessage } from '../errors.js';
import type { ClaimChecker } from '../ground/checkers/types.js';
import { groundedOutcome, type GroundedCriteria, type Risk } from '../ground/ci.js';
import type { GroundingPool, PoolStats } from '../ground/pool/grounding.js';
import { GroundingRequestError, type GroundingReport } from '../ground/types.js';
import type { PriceTable } from '../providers/prices.js';
import { claimReasons } from '../ground/reasons.js';
import { decidedClaims } from '../ground/grading.js';
import { CheckOptionError, type ValidatorHeader } from './builtin.js';
import type { GroundedCheckSpec } from './grounded-schema.js';
import type { Locate } from '../core/issues.js';
import { formatRate } from '../core/show.js';

/**
 * The `grounded` check as a validator: one more column of the reliability tensor, whose cells say whether an
 * output is grounded in a knowledge base. Each output (with its input as the query) is audited by the grounding
 * engine in a worker thread — the KB, and any NLI model, loaded once per run (and once per queue worker), and
 * no output's analysis on the runner's thread — and passes or fails by groundedOutcome (src/ground/ci.ts).
 * What cannot be audited (the judge down, a worker that died, a partial audit) is an `error` cell, never a FAIL.
 * A KB or model that cannot be opened is a config error at load (exit 2), never a per-cell failure.
 */

export interface GroundedContext {
  /** Relative paths (kb, nliModel, modelDir) resolve here: the config file's folder. */
  baseDir: string;
  /** The config file, named in errors of the judge's provider object. */
  file?: string;
  /** The line of a field in that file, when known (a YAML config's). */
  locate?: Locate;
  /** Where the check sits, e.g. "validators[2].check". */
  path?: string;
  /** Prices of the judge's calls (the config's prices: over the built-in table). */
  prices?: PriceTable;
}

/** A validator holding worker threads: `close` ends them (the experiment's dispose calls it); `stats` tells how many started. */
export type GroundedValidator = Validator & { close(): Promise<void>; stats(): PoolStats };

/** Default limit of one audit, queue wait included: an LLM judge checks each claim. */
export const GROUNDED_TIMEOUT_MS = 60_000;

const upper = (r: string | undefined) => (r === undefined ? undefined : (r.toUpperCase() as Risk));

/** The check in words, for reports: what it audits against and what makes an output fail. */
function describeCheck(spec: GroundedCheckSpec, checker: string | undefined): string {
  const rules = [
    spec.maxRisk ? `risk at most ${upper(spec.maxRisk)}` : '',
    spec.minSupport !== undefined ? `at least ${formatRate(spec.minSupport)} of claims supported` : '',
    spec.noContradiction ? 'no contradicted claim' : '',
  ].filter(Boolean);
  return `grounded in the knowledge base ${spec.kb}: ${rules.join(', ')}${checker ? ` (claims checked by ${checker})` : ''}`;
}

/** The query of an input: the input itself, or its `queryField` (default `query`), else the input as JSON. */
export function queryOf(input: InputValue, field?: string): string {
  if (typeof input === 'string') return input;
  const v = input[field ?? 'query'];
  if (typeof v === 'string' && v.trim()) return v;
  if (field !== undefined) throw new Error(`the input has no non-empty string field ${JSON.stringify(field)} to use as the query (queryField)`);
  return JSON.stringify(input);
}

export async function groundedValidator(header: ValidatorHeader, spec: GroundedCheckSpec, ctx: GroundedContext): Promise<GroundedValidator> {
  const at = ctx.path ?? 'check';
  const kbDir = resolve(ctx.baseDir, spec.kb);
  const nliModel = spec.nliModel !== undefined ? resolve(ctx.baseDir, spec.nliModel) : undefined;
  let checker: ClaimChecker | undefined;
  if (spec.judge !== undefined) {
    // Built now, so a bad provider object or a missing key is a config error; the calls go from this thread.
    const { llmClaimCheckerFromConfig } = await import('../ground/checkers/llm.js');
    const { localLimiters } = await import('../providers/rate-limit.js');
    checker = llmClaimCheckerFromConfig(spec.judge, {
      file: ctx.file,
      ...(ctx.locate ? { locate: ctx.locate } : {}),
      path: `${at}.judge`,
      limiters: localLimiters(),
      ...(ctx.prices ? { prices: ctx.prices } : {}),
    });
  }
  const { createGroundingPool } = await import('../ground/pool/grounding.js');
  let pool: GroundingPool;
  try {
    pool = await createGroundingPool({
      kbDir,
      workers: spec.workers ?? 1,
      queue: 1024,
      embedderConfig: {
        ...(spec.modelDir ? { modelDir: resolve(ctx.baseDir, spec.modelDir) } : {}),
        ...(spec.embeddingUrl ? { baseURL: spec.embeddingUrl } : {}),
      },
      ...(spec.details ? { details: spec.details } : {}),
      ...(nliModel ? { nliModel, nliLabel: 'nliModel' } : {}),
      ...(checker ? { checker } : {}),
    });
  } catch (err) {
    if (!UsageError.isInstance(err)) throw err;
    // The model's own messages start with the field that named it; the rest is about the KB.
    const nli = /^nliModel: /.exec(err.message) || /needs the optional package @huggingface\/transformers/.test(err.message);
    throw new CheckOptionError(nli ? 'nliModel' : 'kb', err.message.replace(/^nliModel: /, '').replace(/^--kb [^:]+: /, ''));
  }
  const criteria: GroundedCriteria = {
    ...(spec.maxRisk ? { maxRisk: upper(spec.maxRisk) } : {}),
    ...(spec.minSupport !== undefined ? { minSupport: spec.minSupport } : {}),
    ...(spec.noContradiction ? { noContradiction: true } : {}),
  };
  const checkerId = checker?.id ?? (nliModel ? `nli:${nliModel.split(/[\\/]/).pop()}` : undefined);
  const source = describeCheck(spec, checkerId);

  const evaluate = async (output: string, input: InputValue, signal?: AbortSignal): Promise<CheckResult> => {
    let query: string;
    try {
      query = queryOf(input, spec.queryField);
    } catch (err) {
      return { outcome: 'error', error: (err as Error).message };
    }
    let report: GroundingReport;
    try {
      report = await pool.analyze({ query, answer: output, ...(spec.topK ? { top_k: spec.topK } : {}) }, signal);
    } catch (err) {
      // An output with nothing to verify is not grounded: it fails the rule (the empty output, a bare list marker).
      if (GroundingRequestError.isInstance(err) && err.status === 422)
        return { outcome: 'fail', reasons: [`the output holds no claim to verify against the knowledge base (${err.message})`] };
      return { outcome: 'error', error: thrownMessage(err) };
    }
    const decided = groundedOutcome(report, criteria);
    const spent = {
      ...(report.checker?.usage ? { usage: report.checker.usage } : {}),
      ...(report.checker?.cost_usd !== undefined ? { costUsd: report.checker.cost_usd } : {}),
    };
    if (decided.outcome === 'error') return { outcome: 'error', error: decided.reasons.join('; '), ...spent };
    // Kept with the sample, so people can grade the rule per claim (assay audits import --run).
    const claims = decidedClaims(report.claims_analysis);
    if (decided.outcome === 'pass') return { outcome: 'pass', claims, ...spent };
    // The claims behind the failure, each with its status and the reason for it, as `assay analyze` prints them.
    const flagged = report.claims_analysis
      .filter((c) => !c.error && c.status !== 'STRONG' && c.status !== 'WEAK')
      .slice(0, 5)
      .map((c) => `[${c.status} ${c.support_score.toFixed(2)}] ${c.claim}${claimReasons(c).length ? ` (${claimReasons(c).join('; ')})` : ''}`);
    return { outcome: 'fail', reasons: [...decided.reasons, ...flagged], claims, ...spent };
  };

  return {
    name: header.name,
    message: header.message ?? `Output is not ${source}`,
    minSuccess: header.minSuccess,
    ...(header.weight !== undefined ? { weight: header.weight } : {}),
    timeoutMs: header.timeoutMs ?? GROUNDED_TIMEOUT_MS,
    kind: 'validator',
    source,
    evaluate: (output, input, signal) => evaluate(output, input, signal),
    // The boolean form, for callers that only know predicates: an error throws (an `error` outcome there too).
    predicate: async (output, input) => {
      const r = await evaluate(output, input);
      if (r.outcome === 'error') throw new Error(r.error);
      return r.outcome === 'pass';
    },
    close: () => pool.close(),
    stats: () => pool.stats(),
  };
}

import type { CheckResult, InputValue, Validator } from '../core/validator.js';
import { verifierFromJudge } from '../judge/config.js';
import { meterJudge, type Judge } from '../judge/types.js';
import type { TokenUsage } from '../providers/types.js';
import { evaluateValidator } from '../validators/evaluate.js';

/**
 * One check of one output inside a guard attempt, with what it cost. Every check, rule or LLM judge, goes
 * through evaluateValidator, so a time limit, a throw or a cancellation is an `error` the same way; an LLM
 * judge is metered on the way, so its tokens land in the attempt's account even when it is a validator column.
 */

export interface MeteredCheck {
  result: CheckResult;
  /** Tokens the judge spent on this check (zero for a rule). */
  usage: TokenUsage;
}

export function isJudge(v: Judge | Validator): v is Judge {
  return typeof (v as Judge).verify === 'function' && !('predicate' in v);
}

/** The judge behind a check, if any: a Judge itself, or a verifier Validator built from one (verifierFromConfig). */
function judgeOf(v: Judge | Validator): Judge | undefined {
  return isJudge(v) ? v : (v as Validator & { judge?: Judge }).judge;
}

export async function runCheck(v: Judge | Validator, output: string, input: InputValue, signal: AbortSignal, timeoutMs?: number): Promise<MeteredCheck> {
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  const judge = judgeOf(v);
  // A verifier Validator keeps its name and own time limit; a bare Judge is "verifier" with the guard's limit.
  const own = isJudge(v) ? { name: 'verifier', minSuccess: 1 } : { name: v.name, message: v.message, minSuccess: v.minSuccess, timeoutMs: v.timeoutMs };
  const check: Validator = judge ? verifierFromJudge(meterJudge(judge, usage), own) : (v as Validator);
  const result = await evaluateValidator(check, output, input, { signal, timeoutMs });
  return { result, usage };
}

import { randomUUID } from 'node:crypto';
import type { CheckResult, InputValue, Validator } from '../core/validator.js';
import type { Judge, JudgeVerdict } from '../judge/types.js';
import { ProviderError, type SystemUnderTest, type TokenUsage } from '../providers/types.js';
import { callWithRetry } from '../run/retry.js';
import { evaluateValidator } from '../validators/evaluate.js';
import { openAttemptLog } from './attempt-log.js';
import { augmentInput, checkTemplate, FEEDBACK_TEMPLATE } from './feedback.js';
import type { Attempt, AttemptSink, CheckRecord, GuardOptions, GuardReason, GuardResult, TokenPrices } from './types.js';

/**
 * The guard: what an application calls in production (white paper §4.1 and §4.2). Generate, check with every
 * validator and the verifier, and on rejection try again, feeding the last reasons back, up to maxAttempts.
 * Rejection, errors and timeouts come back as data; the caller decides what to publish.
 */

const zero = (): TokenUsage => ({ promptTokens: 0, completionTokens: 0 });
const add = (a: TokenUsage, b?: TokenUsage) => {
  a.promptTokens += b?.promptTokens ?? 0;
  a.completionTokens += b?.completionTokens ?? 0;
};
const price = (u: TokenUsage, p?: TokenPrices) => (p ? (u.promptTokens * p.promptPer1k + u.completionTokens * p.completionPer1k) / 1000 : 0);

function isJudge(v: Judge | Validator): v is Judge {
  return typeof (v as Judge).verify === 'function' && !('predicate' in v);
}

/** Race a promise against the loop's signal, so a system that ignores its signal cannot hold the loop. */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function runVerifier(verifier: Judge | Validator, input: InputValue, output: string, signal: AbortSignal, timeoutMs?: number): Promise<JudgeVerdict> {
  const started = performance.now();
  if (isJudge(verifier)) return raceAbort(verifier.verify(input, output, signal), signal);
  // A verifier Validator built from a Judge: call the judge directly to keep its token usage.
  const judge = (verifier as Validator & { judge?: Judge }).judge;
  if (judge) return raceAbort(judge.verify(input, output, signal), signal);
  const r: CheckResult = await evaluateValidator(verifier, output, input, { signal, timeoutMs });
  return { outcome: r.outcome, reasons: r.reasons ?? [], error: r.error, latencyMs: performance.now() - started };
}

/** A system wrapped by the guard: each call runs the retry loop for one input. */
export interface GuardedSystem {
  readonly system: SystemUnderTest;
  readonly options: GuardOptions;
  call(input: InputValue, per?: Pick<GuardOptions, 'signal' | 'inputIndex' | 'callId'>): Promise<GuardResult>;
}

/** `guard(system, options)`: validate the options once, then `call(input)` per request. */
export function guard(system: SystemUnderTest, options: GuardOptions): GuardedSystem {
  checkOptions(options);
  return { system, options, call: (input, per = {}) => guardedCall(system, input, { ...options, ...per }) };
}

function checkOptions(opts: GuardOptions): void {
  if (!Number.isInteger(opts.maxAttempts) || opts.maxAttempts < 1) throw new RangeError(`maxAttempts must be an integer ≥ 1, got ${opts.maxAttempts}`);
  if (opts.timeoutMs !== undefined && !(opts.timeoutMs > 0)) throw new RangeError(`timeoutMs must be > 0, got ${opts.timeoutMs}`);
  checkTemplate(opts.template ?? FEEDBACK_TEMPLATE);
}

/** One generation, with the per-call time limit turned into a transient (retryable) timeout. */
async function generateOnce(system: SystemUnderTest, input: InputValue, signal: AbortSignal, sample: number, opts: GuardOptions) {
  const per = opts.callTimeoutMs ? AbortSignal.any([signal, AbortSignal.timeout(opts.callTimeoutMs)]) : signal;
  try {
    return await raceAbort(system.generate(input, { signal: per, sample, inputIndex: opts.inputIndex ?? 0 }), per);
  } catch (err) {
    if (!signal.aborted && per.aborted) throw new ProviderError('timeout', `system: no answer within ${opts.callTimeoutMs} ms`, { cause: err });
    throw err;
  }
}

/** One guarded call: the retry loop for one input. */
export async function guardedCall(system: SystemUnderTest, input: InputValue, opts: GuardOptions): Promise<GuardResult> {
  checkOptions(opts);
  const template = opts.template ?? FEEDBACK_TEMPLATE;
  const validators = opts.validators ?? [];
  const feedback = opts.feedback ?? true;
  const callId = opts.callId ?? randomUUID();
  const sink: AttemptSink | undefined = typeof opts.store === 'string' ? openAttemptLog(opts.store) : opts.store;
  const ownsSink = typeof opts.store === 'string';

  const deadline = new AbortController();
  const timer =
    opts.timeoutMs !== undefined ? setTimeout(() => deadline.abort(new ProviderError('timeout', `guard: no accepted output within ${opts.timeoutMs} ms`)), opts.timeoutMs) : undefined;
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline.signal]) : deadline.signal;
  const started = performance.now();
  const attempts: Attempt[] = [];
  let reasons: string[] = [];
  let reason: GuardReason = 'exhausted';
  let detail: string | undefined;
  let output: string | undefined;
  // The attempt log is a side record: a write that fails is reported on the result, it never ends the loop.
  let logError: string | undefined;
  const logged = (write: () => void) => {
    try {
      write();
    } catch (err) {
      logError ??= err instanceof Error ? err.message : String(err);
    }
  };

  try {
    const ended = () => {
      reason = deadline.signal.aborted ? 'timeout' : 'error';
      detail = deadline.signal.aborted ? `no accepted output within ${opts.timeoutMs} ms` : 'cancelled by the caller';
    };
    for (let n = 1; n <= opts.maxAttempts; n++) {
      if (signal.aborted) {
        ended();
        break;
      }
      const t0 = performance.now();
      const sent = n > 1 && feedback !== false && reasons.length > 0 ? augmentInput(input, reasons, template, opts.feedbackField) : input;
      const a: Attempt = {
        n,
        input: sent,
        validators: [],
        status: 'error',
        reasons: [],
        latencyMs: 0,
        usage: { system: zero(), verifier: zero() },
        startedAt: new Date().toISOString(),
      };
      attempts.push(a);
      const stopped = () => {
        a.status = 'timeout';
        ended();
      };
      try {
        let gen;
        try {
          gen = await raceAbort(
            callWithRetry(() => generateOnce(system, sent, signal, n - 1, opts), { ...opts.retry, signal }),
            signal,
          );
        } catch (err) {
          if (signal.aborted) {
            stopped();
            break;
          }
          // Transient errors were already retried with backoff: what reaches here will not get better by itself.
          a.generationError = err instanceof Error ? err.message : String(err);
          reason = 'error';
          detail = `the system failed: ${a.generationError}`;
          break;
        }
        a.output = gen.text;
        add(a.usage.system, gen.usage);

        const results = await Promise.all(validators.map((v) => evaluateValidator(v, gen.text, input, { signal, timeoutMs: opts.validatorTimeoutMs })));
        a.validators = results.map((r, k): CheckRecord => ({ name: validators[k].name, outcome: r.outcome, ...(r.error ? { error: r.error } : {}) }));
        if (signal.aborted) {
          stopped();
          break;
        }
        const failed = validators.filter((_, k) => results[k].outcome === 'fail');
        if (opts.verifier) {
          if (failed.length > 0 && !opts.verifyAlways) a.verifier = { outcome: 'skipped', reasons: [] };
          else {
            try {
              const v = await runVerifier(opts.verifier, sent, gen.text, signal, opts.validatorTimeoutMs);
              a.verifier = { outcome: v.outcome, reasons: v.reasons, ...(v.error ? { error: v.error } : {}) };
              add(a.usage.verifier, v.usage);
            } catch {
              stopped();
              break;
            }
          }
        }
        if (signal.aborted) {
          stopped();
          break;
        }
        const outcomes = [...results.map((r) => r.outcome), ...(a.verifier && a.verifier.outcome !== 'skipped' ? [a.verifier.outcome] : [])];
        a.status = outcomes.includes('fail') ? 'rejected' : outcomes.includes('error') ? 'error' : 'accepted';
        // A failed verifier column among the validators speaks with its reasons; a failed rule with its message.
        const failedReasons = failed.flatMap((v) => {
          const own = results[validators.indexOf(v)].reasons ?? [];
          if (v.kind === 'verifier') return own.length ? own : [v.message];
          return feedback === true ? [v.message] : [];
        });
        a.reasons = [...(a.verifier?.outcome === 'fail' ? a.verifier.reasons : []), ...failedReasons];
        // The last reasons are the ones fed back; an attempt that produced none (an error) keeps the previous ones.
        if (a.reasons.length > 0) reasons = a.reasons;
        if (a.status === 'accepted') {
          reason = 'accepted';
          output = gen.text;
          break;
        }
        reason = a.status === 'error' ? 'error' : 'exhausted';
        detail = a.status === 'error' ? `the last attempt could not be checked: ${[...a.validators.map((c) => c.error), a.verifier?.error].filter(Boolean).join('; ')}` : undefined;
      } finally {
        a.latencyMs = performance.now() - t0;
        logged(() => sink?.recordAttempt(callId, system.id, a));
      }
    }
  } finally {
    clearTimeout(timer);
  }

  const usage = { system: zero(), verifier: zero(), total: zero() };
  for (const a of attempts) {
    add(usage.system, a.usage.system);
    add(usage.verifier, a.usage.verifier);
  }
  add(usage.total, usage.system);
  add(usage.total, usage.verifier);
  const p = opts.prices;
  const cost = p ? { system: price(usage.system, p.system), verifier: price(usage.verifier, p.verifier), total: 0 } : null;
  if (cost) cost.total = cost.system + cost.verifier;
  const result: GuardResult = {
    callId,
    accepted: reason === 'accepted',
    ...(output !== undefined ? { output } : {}),
    attempts,
    reason,
    ...(detail ? { detail } : {}),
    usage,
    cost,
    latencyMs: performance.now() - started,
  };
  logged(() => sink?.recordResult(system.id, input, result));
  if (ownsSink) logged(() => sink?.close());
  if (logError) result.logError = logError;
  return result;
}

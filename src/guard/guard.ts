import { randomUUID } from 'node:crypto';
import type { InputValue, Validator } from '../core/validator.js';
import { ProviderError, type SystemUnderTest, type TokenUsage } from '../providers/types.js';
import { callWithRetry, DEFAULT_RETRY } from '../providers/retry.js';
import { attemptSinkOf } from './attempt-log.js';
import { runCheck } from './checks.js';
import { augmentInput, checkTemplate, FEEDBACK_TEMPLATE } from './feedback.js';
import type { Attempt, AttemptSink, CheckRecord, GuardOptions, GuardReason, GuardResult, TokenPrices } from './types.js';
import { ArgumentError, thrownMessage } from '../errors.js';

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

/** Race a promise against the loop's signal, so a system that ignores its signal cannot hold the loop. */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => {}); // its settling no longer matters, but must not surface as an unhandled rejection
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The checks of an attempt that could not decide, each named once ("slow: timed out after 300 ms"). */
function undecided(a: Attempt): string[] {
  const named = (name: string, error?: string) => (error?.startsWith(`validator ${name}:`) ? error.slice('validator '.length) : `${name}: ${error ?? 'error'}`);
  const out = a.validators.filter((c) => c.outcome === 'error').map((c) => named(c.name, c.error));
  if (a.verifier?.outcome === 'error') out.push(named('verifier', a.verifier.error));
  return out;
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

// Node's timers take at most 2^31 − 1 ms; a larger delay fires after 1 ms instead (with only a warning).
const MAX_TIMER_MS = 2 ** 31 - 1;

function checkOptions(opts: GuardOptions): void {
  if (!Number.isInteger(opts.maxAttempts) || opts.maxAttempts < 1)
    throw new ArgumentError(`maxAttempts must be an integer ≥ 1, got ${opts.maxAttempts}`, { key: 'maxAttempts' });
  for (const key of ['timeoutMs', 'callTimeoutMs', 'validatorTimeoutMs', 'verifierTimeoutMs'] as const) {
    const ms = opts[key];
    if (ms !== undefined && !(ms > 0 && ms <= MAX_TIMER_MS))
      throw new ArgumentError(`${key} must be a number of ms in (0, ${MAX_TIMER_MS}], got ${ms}`, { key: key });
  }
  checkTemplate(opts.template ?? FEEDBACK_TEMPLATE);
}

/**
 * A timed-out generation is retried only within the guard's overall `timeoutMs`, which bounds the retries; without
 * one, the one policy of callWithRetry holds (a call that hung is not tried again), unless `retry` says otherwise.
 */
function timeoutRetriesOf(opts: GuardOptions): { timeoutRetries?: number } {
  return opts.timeoutMs !== undefined ? { timeoutRetries: opts.retry?.retries ?? DEFAULT_RETRY.retries } : {};
}

/** One generation, with the per-call time limit turned into a retryable timeout. */
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
  // The attempt log is a side record: a write that fails is reported on the result, it never ends the loop.
  let logError: string | undefined;
  const logged = async (write: () => unknown) => {
    try {
      await write();
    } catch (err) {
      logError ??= thrownMessage(err);
    }
  };
  let sink: AttemptSink | undefined;
  await logged(async () => {
    sink = await attemptSinkOf(opts.store);
  });

  const deadline = new AbortController();
  const timer =
    opts.timeoutMs !== undefined
      ? setTimeout(() => deadline.abort(new ProviderError('timeout', `guard: no accepted output within ${opts.timeoutMs} ms`)), opts.timeoutMs)
      : undefined;
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline.signal]) : deadline.signal;
  const started = performance.now();
  const attempts: Attempt[] = [];
  let reasons: string[] = [];
  let reason: GuardReason = 'exhausted';
  let detail: string | undefined;
  let output: string | undefined;

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
            callWithRetry(() => generateOnce(system, sent, signal, n - 1, opts), { ...timeoutRetriesOf(opts), ...opts.retry, signal }),
            signal,
          );
        } catch (err) {
          if (signal.aborted) {
            stopped();
            break;
          }
          // Transient errors were already retried with backoff: what reaches here will not get better by itself.
          a.generationError = thrownMessage(err);
          reason = 'error';
          detail = `the system failed: ${a.generationError}`;
          break;
        }
        a.output = gen.text;
        add(a.usage.system, gen.usage);

        // An LLM judge gets the time of an LLM call; a rule gets the time of a rule.
        const limit = (v: Validator) => (v.kind === 'verifier' ? opts.verifierTimeoutMs : opts.validatorTimeoutMs);
        const checks = await Promise.all(validators.map((v) => runCheck(v, gen.text, input, signal, limit(v))));
        const results = checks.map((c) => c.result);
        for (const c of checks) add(a.usage.verifier, c.usage);
        a.validators = results.map((r, k): CheckRecord => ({ name: validators[k].name, outcome: r.outcome, ...(r.error ? { error: r.error } : {}) }));
        if (signal.aborted) {
          stopped();
          break;
        }
        const failed = validators.filter((_, k) => results[k].outcome === 'fail');
        if (opts.verifier) {
          if (failed.length > 0 && !opts.verifyAlways) a.verifier = { outcome: 'skipped', reasons: [] };
          else {
            // The verifier sees the input as sent, (input + reasons, output), as in §4.1.
            const { result: v, usage } = await runCheck(opts.verifier, gen.text, sent, signal, opts.verifierTimeoutMs);
            a.verifier = { outcome: v.outcome, reasons: v.reasons ?? [], ...(v.error ? { error: v.error } : {}) };
            add(a.usage.verifier, usage);
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
        detail = a.status === 'error' ? `the last attempt could not be checked: ${undecided(a).join('; ')}` : undefined;
      } finally {
        a.latencyMs = performance.now() - t0;
        await logged(() => sink?.recordAttempt(callId, system.id, a));
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
  await logged(() => sink?.recordResult(system.id, input, result));
  await logged(() => sink?.close());
  if (logError) result.logError = logError;
  return result;
}

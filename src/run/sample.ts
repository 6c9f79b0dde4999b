/**
 * Executing one sample (input i, sample j): one generation, retried where retryable, then the K checks.
 * The local runner and the queue workers both call `executeSample`; what to run next, and when to stop,
 * is the scheduler's business (runner.ts), not this file's.
 */
import { Outcome, outcomeCode, type OutcomeCode } from '../core/outcome.js';
import { trajectoryCost, trajectoryUsage, type Trajectory } from '../core/trajectory.js';
import { limitTrajectory } from '../core/trajectory-text.js';
import type { CheckResult, InputValue, Validator } from '../core/validator.js';
import { ProviderError, type Generation, type SystemUnderTest, type TokenUsage } from '../providers/types.js';
import type { SampleCost, SampleRecord } from '../store/types.js';
import { callWithRetry, type RetryOptions } from '../providers/retry.js';
import { thrownMessage } from '../errors.js';
import type { Context } from '@opentelemetry/api';
import { traceSample } from '../otel/tracing.js';

export type EvaluateFn = (
  v: Validator,
  output: string,
  input: InputValue,
  opts: { timeoutMs?: number; signal: AbortSignal; trajectory?: Trajectory },
) => Promise<CheckResult>;

/** Everything one sample needs; built once per run (or per worker job). */
export interface SampleContext {
  system: SystemUnderTest;
  /** The K columns of the tensor, validators then verifiers. */
  validators: readonly Validator[];
  evaluate: EvaluateFn;
  /** Per-call limit (ms) for a generation and for a verifier's call that sets none of its own. */
  timeoutMs: number;
  retry: Omit<RetryOptions, 'signal'>;
  /** The run's signal: Ctrl-C or a fatal error; an aborted sample returns null (unfinished, not failed). */
  signal: AbortSignal;
  /** The run's span (otel/tracing.ts), when a tracer provider records: each sample's spans go under it. */
  trace?: Context;
}

export interface SampleOptions {
  /**
   * Columns that need no further checks (e.g. a validator already decided by a stopping rule): not run,
   * their cells stay PENDING in the record.
   */
  skip?: (k: number) => boolean;
}

/** Tokens spent on one sample: its generation plus every verifier's calls (all of it is cost). */
function sampleUsage(gen: Generation, results: (CheckResult | undefined)[]): { usage?: TokenUsage } {
  const checks = results.filter((r): r is CheckResult => r?.usage !== undefined);
  if (!gen.usage && checks.length === 0) return {};
  let promptTokens = gen.usage?.promptTokens ?? 0;
  let completionTokens = gen.usage?.completionTokens ?? 0;
  for (const r of checks) {
    promptTokens += r.usage!.promptTokens;
    completionTokens += r.usage!.completionTokens;
  }
  return { usage: { promptTokens, completionTokens } };
}

/**
 * What one sample's calls cost: priced calls summed (generation and each check), calls that reported
 * tokens without a price counted apart. A cached generation costs 0 and is priced.
 */
function sampleCost(gen: Generation, results: (CheckResult | undefined)[]): { cost?: SampleCost } {
  let usd = 0;
  let priced = false;
  let unpriced = 0;
  const add = (c: { costUsd?: number; usage?: unknown } | undefined) => {
    if (c?.costUsd !== undefined) {
      usd += c.costUsd;
      priced = true;
    } else if (c?.usage) unpriced++;
  };
  add(gen);
  results.forEach(add);
  if (!priced && unpriced === 0) return {};
  const checks = results.map((r) => r?.costUsd);
  return { cost: { usd, ...(checks.some((c) => c !== undefined) ? { checks } : {}), ...(unpriced ? { unpriced } : {}) } };
}

/**
 * Run sample (i, j): the record to store, or null when the run was aborted before the sample finished
 * (a resume will do it). Infrastructure failures end as ERROR cells with their message, never as FAIL.
 */
export async function executeSample(ctx: SampleContext, input: InputValue, i: number, j: number, opts: SampleOptions = {}): Promise<SampleRecord | null> {
  return sampleRecord(ctx, input, i, j, opts);
}

async function sampleRecord(ctx: SampleContext, input: InputValue, i: number, j: number, opts: SampleOptions): Promise<SampleRecord | null> {
  const K = ctx.validators.length;
  const t0 = performance.now();
  const wallStart = Date.now();
  const traced = (r: SampleRecord, gen?: Generation, results: (CheckResult | undefined)[] = []): SampleRecord => {
    if (ctx.trace)
      traceSample({
        parent: ctx.trace,
        i,
        j,
        input,
        startMs: wallStart,
        endMs: Date.now(),
        systemId: ctx.system.id,
        attempts: r.attempts,
        ...(r.output !== undefined ? { output: r.output } : {}),
        ...(r.generationError !== undefined ? { generationError: r.generationError } : {}),
        ...(gen
          ? {
              generation: {
                latencyMs: gen.latencyMs,
                ...(gen.usage ? { usage: gen.usage } : {}),
                ...(gen.costUsd !== undefined ? { costUsd: gen.costUsd } : {}),
                ...(gen.trajectory ? { trajectory: gen.trajectory } : {}),
                ...(gen.cached ? { cached: true } : {}),
              },
            }
          : {}),
        rules: ctx.validators,
        results,
        ...(r.usage ? { usage: r.usage } : {}),
        ...(r.cost ? { costUsd: r.cost.usd } : {}),
      });
    return r;
  };
  let attempts = 0;
  let gen: Generation;
  try {
    gen = await callWithRetry(
      (attempt) => {
        attempts = attempt;
        return callOnce(ctx.system, input, i, j, ctx.timeoutMs, ctx.signal);
      },
      { ...ctx.retry, signal: ctx.signal },
    );
  } catch (err) {
    if (ctx.signal.aborted) return null;
    const msg = `generation failed after ${attempts} attempt(s): ${errorMessage(err)}`;
    return traced({
      i,
      j,
      generationError: msg,
      ...(ProviderError.isInstance(err) ? { generationErrorKind: err.kind } : {}),
      outcomes: new Array<OutcomeCode>(K).fill(Outcome.ERROR),
      errors: new Array<string>(K).fill(msg),
      latencyMs: performance.now() - t0,
      attempts,
    });
  }
  // An agent's tokens and cost are its steps' summed, when the system did not sum them itself.
  if (gen.trajectory) {
    const usage = gen.usage ?? trajectoryUsage(gen.trajectory);
    const costUsd = gen.costUsd ?? trajectoryCost(gen.trajectory);
    gen = { ...gen, ...(usage ? { usage } : {}), ...(costUsd !== undefined ? { costUsd } : {}) };
  }
  const trajectory = gen.trajectory;
  const results = await Promise.all(
    ctx.validators.map((v, k) =>
      opts.skip?.(k)
        ? undefined
        : // A verifier is an LLM call: the run's per-call limit applies; a rule keeps its own (or the 5 s default).
          ctx
            .evaluate(v, gen.text, input, {
              ...(v.kind === 'verifier' ? { timeoutMs: v.timeoutMs ?? ctx.timeoutMs } : {}),
              signal: ctx.signal,
              ...(trajectory ? { trajectory } : {}),
            })
            .catch((err: unknown): CheckResult => ({ outcome: 'error', error: errorMessage(err) })),
    ),
  );
  if (ctx.signal.aborted && results.some((r) => r?.outcome === 'error')) return null; // a check cut short by Ctrl-C
  const hasReasons = results.some((r) => r?.reasons !== undefined);
  const hasClaims = results.some((r) => r?.claims !== undefined);
  const hasErrors = results.some((r) => r?.outcome === 'error');
  return traced(
    {
      i,
      j,
      output: gen.text,
      // Stored whole up to its limits (core/trajectory-text.ts); the checks above read all of it.
      ...(trajectory ? { trajectory: limitTrajectory(trajectory) } : {}),
      outcomes: results.map((r) => (r === undefined ? Outcome.PENDING : outcomeCode(r.outcome))),
      ...(hasErrors ? { errors: results.map((r) => (r?.outcome === 'error' ? (r.error ?? 'error') : undefined)) } : {}),
      ...(hasReasons ? { reasons: results.map((r) => r?.reasons) } : {}),
      // a grounding check's decided claims, for grading the rule per claim (grades/audits.ts)
      ...(hasClaims ? { claims: results.map((r) => r?.claims) } : {}),
      latencyMs: gen.latencyMs,
      attempts,
      ...sampleUsage(gen, results),
      ...sampleCost(gen, results),
      ...(gen.cached ? { cached: true } : {}),
    },
    gen,
    results,
  );
}

/**
 * One provider call with its own deadline. The race against the abort makes the deadline hold even for a
 * provider that ignores its signal; a deadline that fires becomes a (retryable) `timeout` ProviderError.
 */
async function callOnce(system: SystemUnderTest, input: InputValue, i: number, j: number, timeoutMs: number, runSignal: AbortSignal): Promise<Generation> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new ProviderError('timeout', `no answer within ${timeoutMs} ms`)), timeoutMs);
  const onRunAbort = () => ac.abort(new ProviderError('aborted', 'the run was interrupted'));
  runSignal.addEventListener('abort', onRunAbort, { once: true });
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(ac.signal.reason as Error);
    ac.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([system.generate(input, { signal: ac.signal, sample: j, inputIndex: i }), aborted]);
  } catch (err) {
    // Whatever the provider threw on abort, our own reason says why (deadline vs. Ctrl-C).
    throw ac.signal.aborted ? (ac.signal.reason as Error) : err;
  } finally {
    clearTimeout(timer);
    runSignal.removeEventListener('abort', onRunAbort);
    if (onAbort) ac.signal.removeEventListener('abort', onAbort);
    aborted.catch(() => undefined);
  }
}

export function errorMessage(err: unknown): string {
  return thrownMessage(err);
}

import type { InputValue } from '../core/validator.js';
import { openStore } from '../store/open.js';
import type { Store } from '../store/types.js';
import type { AttemptSink, GuardResult } from './types.js';

/**
 * The guard's attempt log lives in the Store (guard_calls and guard_attempts, in SQLite or PostgreSQL):
 * each attempt is written when it ends, so a process killed mid-loop keeps the attempts it made. Read it
 * back with store.guard.getCall, listAttempts and listCalls.
 */
export function storeAttemptSink(store: Store, owned = false): AttemptSink {
  return {
    recordAttempt: (callId, systemId, a) =>
      store.guard.recordAttempt({
        callId,
        n: a.n,
        systemId,
        status: a.status,
        input: a.input,
        ...(a.output !== undefined ? { output: a.output } : {}),
        ...(a.generationError !== undefined ? { generationError: a.generationError } : {}),
        validators: a.validators,
        ...(a.verifier ? { verifier: a.verifier } : {}),
        reasons: a.reasons,
        latencyMs: a.latencyMs,
        usage: a.usage,
        startedAt: a.startedAt,
      }),
    recordResult: (systemId: string, input: InputValue, r: GuardResult) =>
      store.guard.recordCall({
        callId: r.callId,
        systemId,
        input,
        accepted: r.accepted,
        reason: r.reason,
        ...(r.detail !== undefined ? { detail: r.detail } : {}),
        ...(r.output !== undefined ? { output: r.output } : {}),
        attempts: r.attempts.length,
        usage: r.usage.total,
        cost: r.cost?.total ?? null,
        latencyMs: r.latencyMs,
        finishedAt: new Date().toISOString(),
      }),
    close: () => (owned ? store.close() : undefined),
  };
}

/** True for a Store (rather than a bare AttemptSink). */
export function isStore(x: unknown): x is Store {
  return typeof x === 'object' && x !== null && typeof (x as Partial<Store>).guard?.recordAttempt === 'function';
}

/** The sink of a guarded call's `store` option: a sink as it is, a Store wrapped, a location opened (and closed after the call). */
export async function attemptSinkOf(store: AttemptSink | Store | string | undefined): Promise<AttemptSink | undefined> {
  if (store === undefined) return undefined;
  if (typeof store === 'string') return storeAttemptSink(await openStore(store), true);
  return isStore(store) ? storeAttemptSink(store) : store;
}

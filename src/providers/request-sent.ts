import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * When a call's request leaves this process: what a rate limit counts (src/providers/rate-limit.ts). The limiter
 * runs a call inside whenRequestSent; the transport that puts the request on the wire (transport.ts for HTTP,
 * the command provider for a process) calls requestSentHook() once it has. Outside a limited call there is
 * no hook, and nothing is paid (no async context is kept unless a rate limit is in use).
 */
const current = new AsyncLocalStorage<() => void>();

/** Runs `call` with `onSent` as the hook its transport reports to. */
export function whenRequestSent<T>(onSent: () => void, call: () => Promise<T>): Promise<T> {
  return current.run(onSent, call);
}

/** The hook of the limited call in progress, if any: call it when its request has been handed to the operating system. */
export function requestSentHook(): (() => void) | undefined {
  return current.getStore();
}

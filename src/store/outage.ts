import { AssayError, ExitCode, hasMarker, setMarker } from '../errors.js';

/**
 * Riding out a lost service (the PostgreSQL store, the Redis queue) for a bounded time: one line when it is
 * lost, one when it is back, and past the bound an OutageError (exit 3) instead of a wait without end. Every
 * call that goes through `ride` is tried again, once a second, while its failure is a lost connection; a
 * failure of any other kind (a refused password, a bad query) passes through at once.
 */

/** How long `assay run` and `assay worker` ride out a lost store or queue unless told otherwise. */
export const DEFAULT_OUTAGE_MS = 60_000;

const OUTAGE_ERROR = Symbol.for('assay.OutageError');

/** The service stayed unreachable past the bound (or refused us): exit 3, in one line. */
export class OutageError extends AssayError {
  constructor(
    message: string,
    /** What was lost, as messages name it ("the queue at redis://…"). */
    readonly service: string,
    options?: ErrorOptions,
  ) {
    super(message, ExitCode.INTERNAL, options);
    this.name = 'OutageError';
    setMarker(this, OUTAGE_ERROR);
  }

  static override isInstance(err: unknown): err is OutageError {
    return hasMarker(err, OUTAGE_ERROR);
  }
}

/** A way to call a service: directly, or riding out its outages (Outage.ride). */
export type Ride = <T>(fn: () => Promise<T>) => Promise<T>;

export const direct: Ride = (fn) => fn();

export interface OutageOptions {
  /** Give up after the service has been unreachable this long (ms); 0 gives up at the first failure that a retry does not mend. */
  boundMs: number;
  /** One line each: lost, back, given up. */
  log?: (line: string) => void;
  /** Whether a failure is a lost connection (worth waiting for) rather than a refusal or a bug. */
  retryable: (err: unknown) => boolean;
  /** Once, when the bound is passed: the process's cue to stop (a worker exits 3). */
  onGiveUp?: (err: OutageError) => void;
  /** The failure in a few words for the lines (default: its message's first line). */
  describe?: (err: unknown) => string;
  /** Pause between tries (default 1 s). */
  retryMs?: number;
  /** Clock and pause, replaceable in tests. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export class Outage {
  /** When the service was first found unreachable in this outage; undefined while it answers. */
  private since?: number;
  private said = false;
  /** Outages ended so far: a call that was waiting through one starts afresh once it is over. */
  private ended = 0;
  private gaveUp?: OutageError;
  private readonly now: () => number;
  private readonly pause: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(
    /** The service as lines name it: "the queue at redis://…", "the store at postgres://…". */
    readonly what: string,
    private readonly opts: OutageOptions,
  ) {
    this.now = opts.now ?? (() => performance.now());
    this.pause = opts.sleep ?? pause;
  }

  get down(): boolean {
    return this.since !== undefined;
  }

  /** The error that ended the wait, once the bound has passed. */
  get failure(): OutageError | undefined {
    return this.gaveUp;
  }

  /**
   * Run `fn`; while it fails for a lost connection, try again once a second until it answers or the bound
   * passes. A first failure is tried again at once and silently: a pooled connection the server dropped
   * fails once and is replaced, which is no outage.
   */
  async ride<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    let first = true;
    let ended = this.ended;
    for (;;) {
      if (this.gaveUp) throw this.gaveUp;
      try {
        const value = await fn();
        this.back();
        return value;
      } catch (err) {
        if (!this.opts.retryable(err)) throw err;
        // The outage this call waited through is over (another call got an answer): this failure is a first one.
        if (ended !== this.ended) [first, ended] = [true, this.ended];
        this.lost(err, !first);
        if (!first) await this.pause(this.opts.retryMs ?? 1000, signal);
        first = false;
      }
    }
  }

  /** A failure seen elsewhere (a heartbeat, a client's error event): starts the outage clock, says so once, gives up past the bound. */
  lost(err: unknown, say = true): void {
    if (this.gaveUp) throw this.gaveUp;
    const t = this.now();
    this.since ??= t;
    if (say && !this.said) {
      this.said = true;
      this.opts.log?.(`lost ${this.what} (${this.reason(err)}); trying again for up to ${seconds(this.opts.boundMs)}`);
    }
    if (say && t - this.since >= this.opts.boundMs) this.giveUp(err, `${this.what} has been unreachable for ${seconds(t - this.since)} (${this.reason(err)})`);
  }

  /** A refusal no wait will mend (a password the server does not take): give up at once. */
  refuse(err: unknown): never {
    this.since ??= this.now();
    this.giveUp(err, `${this.what} refused us: ${this.reason(err)}`);
  }

  /** The service answered: the outage (if any) is over. */
  back(): void {
    if (this.since === undefined || this.gaveUp) return;
    if (this.said) this.opts.log?.(`${this.what} is back (after ${seconds(this.now() - this.since)})`);
    this.since = undefined;
    this.said = false;
    this.ended++;
  }

  private reason(err: unknown): string {
    return (this.opts.describe ?? reason)(err);
  }

  private giveUp(err: unknown, message: string): never {
    if (!this.gaveUp) {
      this.gaveUp = new OutageError(message, this.what, { cause: err });
      this.opts.onGiveUp?.(this.gaveUp);
    }
    throw this.gaveUp;
  }
}

/** The first line of an error, for a log line (drivers put stack-like detail below it). */
export function reason(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown } | undefined;
  const msg = typeof e?.message === 'string' && e.message ? e.message.split('\n')[0] : String(err);
  return msg.replace(/\.$/, '');
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(Math.round(ms / 100) / 10).toString()} s` : `${Math.round(ms / 1000)} s`;
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

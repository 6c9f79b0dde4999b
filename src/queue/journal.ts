import { outcomeName, type OutcomeCode } from '../core/outcome.js';
import type { CheckResult, InputValue, Validator } from '../core/validator.js';
import type { Trajectory } from '../core/trajectory.js';
import { cacheKey } from '../providers/cache.js';
import type { GenerateOptions, Generation, SystemUnderTest } from '../providers/types.js';
import type { EvaluateFn } from '../run/sample.js';
import type { ResponseCache, SampleRecord } from '../store/types.js';

/**
 * The call journal of a queued run's workers (issue 30). A Redis that loses its jobs makes the waiting run queue
 * again every sample the store does not hold, including samples still in flight on the workers, and a worker
 * that dies mid-sample leaves its calls unrecorded. So every paid call of a queued sample (its generation, each
 * verifier's judge call) is recorded in the store (the response cache's table, not Redis) as it is made:
 *
 * - before the call, a claim: this worker is calling, until its per-call deadline;
 * - after it, the answer with what it cost (tokens, USD, latency): reused as it is, so the run pays and counts it once.
 *
 * A sample run again (a re-queued or retried job) first takes a recorded answer; finds a live claim of another
 * worker and waits for its answer (or for the claim to lapse, the caller dead); joins a call this process has in
 * flight; and only then calls. Once the sample is stored its entries are deleted: the stored sample is the record.
 * Errors are not kept (a failed call drops its claim): a call that failed is made again.
 */

/** How often a claim of another worker is looked at again while its answer is awaited (ms). */
const POLL_MS = 100;
/** A claim outlives its caller's deadline by this much (ms): clocks of two machines and the write itself. */
const CLAIM_GRACE_MS = 2000;
/** A worker says it is alive this often (ms), in the store next to its claims. */
const HEARTBEAT_MS = 1000;
/** A worker whose heartbeat has not moved for this long (ms, by the waiter's clock) is dead: its claims are taken over. */
const LAPSE_MS = 5000;

type Entry<T> = { s: 'calling'; by: string; until: number } | { s: 'done'; value: T } | { s: 'damaged' };

export interface JournalOptions {
  /** This worker, as its claims name it. */
  worker: string;
  pollMs?: number;
  heartbeatMs?: number;
  lapseMs?: number;
  now?: () => number;
}

/** One call's place in the journal. */
interface CallSpec<T> {
  key: string;
  /** The call's own deadline (ms): its claim lasts this long (plus a grace). */
  timeoutMs: number;
  signal: AbortSignal;
  /**
   * The job may be a re-run (without it: a sample's first run): when nothing is recorded, the sample may be stored
   * already (its entries deleted); what it says then.
   */
  stored?: () => Promise<T | undefined>;
  /** Whether an answer is kept (default all): an error is not, so that a re-run calls again. */
  keep?: (value: T) => boolean;
}

export class CallJournal {
  private readonly inflight = new Map<string, Promise<unknown>>();
  private readonly pollMs: number;
  private readonly now: () => number;
  private beats = 0;
  private beating?: NodeJS.Timeout;
  /** Other workers' heartbeats as last seen, and when (this process's clock: no two machines' clocks compared). */
  private readonly seen = new Map<string, { beat: string; at: number; looked: number }>();

  constructor(
    private readonly cache: ResponseCache,
    private readonly opts: JournalOptions,
  ) {
    this.pollMs = opts.pollMs ?? POLL_MS;
    this.now = opts.now ?? Date.now;
  }

  /**
   * Starts this worker's heartbeat (before it takes jobs): a worker waiting for one of its calls knows it alive while
   * the beat moves, and takes the call over within seconds of a kill -9 instead of at the call's deadline.
   */
  async start(): Promise<void> {
    await this.beat();
    this.beating = setInterval(() => void this.beat().catch(() => {}), this.opts.heartbeatMs ?? HEARTBEAT_MS);
    this.beating.unref();
  }

  /** Stops the heartbeat and removes it: claims this worker left (none, after a clean close) are taken over at once. */
  async close(): Promise<void> {
    clearInterval(this.beating);
    await this.cache.delete([heartbeatKey(this.opts.worker)]).catch(() => {});
  }

  private async beat(): Promise<void> {
    await this.cache.set(heartbeatKey(this.opts.worker), String(++this.beats));
  }

  /** Whether worker `by` beat within the lapse: its beat changed since this process last looked, or first seen lately. */
  private async alive(by: string): Promise<boolean> {
    const beat = (await this.cache.get(heartbeatKey(by)))?.value;
    if (beat === undefined) return false;
    const now = this.now();
    const lapse = this.opts.lapseMs ?? LAPSE_MS;
    const last = this.seen.get(by);
    // Changed, first seen, or not looked at for a while (this process was blocked, or the store away for everyone):
    // the lapse counts from now.
    if (!last || last.beat !== beat || now - last.looked > lapse / 2) {
      this.seen.set(by, { beat, at: now, looked: now });
      return true;
    }
    last.looked = now;
    return now - last.at < lapse;
  }

  /** Calls made past the journal, and answers it served (recorded, awaited from another worker, or joined here). */
  readonly counts = { made: 0, reused: 0 };

  /** The answer of the call under `spec.key`: recorded, in flight here, claimed by another worker (awaited), or made now by `make`. */
  call<T>(spec: CallSpec<T>, make: () => Promise<T>): Promise<T> {
    const here = this.inflight.get(spec.key) as Promise<T> | undefined;
    if (here) {
      this.counts.reused++;
      return here;
    }
    const p = this.resolve(spec, make).finally(() => this.inflight.delete(spec.key));
    this.inflight.set(spec.key, p);
    return p;
  }

  /** Removes the entries of a stored sample. */
  async forget(keys: readonly string[]): Promise<void> {
    if (keys.length) await this.cache.delete(keys);
  }

  private async resolve<T>(spec: CallSpec<T>, make: () => Promise<T>): Promise<T> {
    const claim = () => JSON.stringify({ s: 'calling', by: this.opts.worker, until: this.now() + spec.timeoutMs + CLAIM_GRACE_MS } satisfies Entry<T>);
    // A sample's first run expects nothing there: it claims at once (one round trip), and looks only if that fails.
    let claimed = !spec.stored && (await this.cache.add(spec.key, claim()));
    while (!claimed) {
      if (spec.signal.aborted) throw spec.signal.reason;
      const e = await this.read<T>(spec.key);
      if (e?.s === 'done') {
        this.counts.reused++;
        return e.value;
      }
      if (e?.s === 'calling' && e.by !== this.opts.worker && e.until > this.now() && (await this.alive(e.by))) {
        await sleep(this.pollMs, spec.signal);
        continue;
      }
      if (!e && spec.stored) {
        const s = await spec.stored();
        if (s !== undefined) {
          this.counts.reused++;
          return s;
        }
      }
      // Nothing there: of two workers claiming at once one wins, the other waits for its answer. A lapsed claim
      // (its caller died) or a damaged entry is taken over.
      if (e) await this.cache.set(spec.key, claim());
      else if (!(await this.cache.add(spec.key, claim()))) continue;
      claimed = true;
    }
    this.counts.made++;
    let value: T;
    try {
      value = await make();
    } catch (err) {
      await this.drop(spec.key);
      throw err;
    }
    if (spec.keep && !spec.keep(value)) await this.drop(spec.key);
    else await this.cache.set(spec.key, JSON.stringify({ s: 'done', value } satisfies Entry<T>));
    return value;
  }

  /** A claim given up: whoever waits for it calls itself (a claim that cannot be deleted lapses, later). */
  private async drop(key: string): Promise<void> {
    await this.cache.delete([key]).catch(() => {});
  }

  private async read<T>(key: string): Promise<Entry<T> | undefined> {
    const hit = await this.cache.get(key);
    if (!hit) return undefined;
    try {
      const e = JSON.parse(hit.value) as Entry<T>;
      return e.s === 'done' || e.s === 'calling' ? e : { s: 'damaged' };
    } catch {
      return { s: 'damaged' }; // taken over: the call replaces it
    }
  }
}

function heartbeatKey(worker: string): string {
  return cacheKey({ v: 1, journalWorker: worker });
}

/** Where one sample's calls are journaled. */
export interface SampleJournal {
  system: SystemUnderTest;
  evaluate: EvaluateFn;
  /** The keys this sample used, to forget once it is stored. */
  keys: string[];
}

export interface SampleJournalOptions {
  runId: string;
  i: number;
  j: number;
  /** The K columns (a verifier's index names its calls). */
  validators: readonly Validator[];
  /** The per-call limit of a generation (the run's `timeoutMs`). */
  timeoutMs: number;
  /** The job may be a re-run: the stored sample, if any (read when nothing is recorded). */
  stored?: () => Promise<SampleRecord | undefined>;
}

/**
 * The system and the checks of sample (i, j) of a queued run, journaled: the generation under (run, i, j), each
 * verifier's verdict under (run, i, j, k, the output it judged). Checks that call no model run as they are.
 */
export function journalSample(journal: CallJournal, inner: { system: SystemUnderTest; evaluate: EvaluateFn }, o: SampleJournalOptions): SampleJournal {
  const keys: string[] = [];
  const use = (parts: object) => {
    const key = cacheKey({ v: 1, journal: o.runId, i: o.i, j: o.j, ...parts });
    if (!keys.includes(key)) keys.push(key);
    return key;
  };
  const storedGeneration = o.stored && (async () => generationOf(await o.stored!()));
  const system: SystemUnderTest = {
    id: inner.system.id,
    generate: (input: InputValue, options: GenerateOptions) =>
      journal.call<Generation>(
        { key: use({ call: 'generate' }), timeoutMs: o.timeoutMs, signal: options.signal, ...(storedGeneration ? { stored: storedGeneration } : {}) },
        () => inner.system.generate(input, options),
      ),
  };
  const evaluate: EvaluateFn = (v, output, input, opts) => {
    const k = o.validators.indexOf(v);
    if (v.kind !== 'verifier' || k < 0) return inner.evaluate(v, output, input, opts);
    const trajectory: Trajectory | undefined = opts.trajectory;
    const stored = o.stored && (async () => checkOf(await o.stored!(), k));
    return journal.call<CheckResult>(
      {
        key: use({ call: 'check', k, output, ...(trajectory ? { trajectory } : {}) }),
        timeoutMs: opts.timeoutMs ?? o.timeoutMs,
        signal: opts.signal,
        ...(stored ? { stored } : {}),
        keep: (r) => r.outcome !== 'error',
      },
      () => inner.evaluate(v, output, input, opts),
    );
  };
  return { system, evaluate, keys };
}

// Once the sample is stored, what a re-run computes is dropped (the store keeps the first): these only carry
// the stored sample along, so that nothing is called for it.

/** A stored sample's generation. */
function generationOf(s: SampleRecord | undefined): Generation | undefined {
  return s && { text: s.output ?? '', latencyMs: s.latencyMs, ...(s.trajectory ? { trajectory: s.trajectory } : {}) };
}

/** A stored sample's verdict in column k. */
function checkOf(s: SampleRecord | undefined, k: number): CheckResult | undefined {
  if (!s) return undefined;
  const name = outcomeName(s.outcomes[k] as OutcomeCode);
  return {
    outcome: name === 'pending' ? 'error' : name,
    ...(s.reasons?.[k] ? { reasons: s.reasons[k] } : {}),
    ...(s.errors?.[k] !== undefined ? { error: s.errors[k] } : {}),
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason as Error);
    };
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

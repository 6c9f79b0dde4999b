import type { CacheLedger } from '../providers/cache.js';
import type { RunRecord, SampleRecord, Store } from '../store/types.js';

/**
 * Where a block with the cache on keeps its run. A replay (every answer from the cache, no call made) is the same
 * data again and would read as a new run in trends, so it is never kept; anything else is. The block runs in a
 * scratch store, and from the first sample stored while the run is not a replay, the run is kept in the real store
 * as it goes (the samples before it copied over), so a process killed mid-run keeps what it had finished.
 */

/** A replay so far: answers came from the cache and no call was made. The one place this is decided. */
export function isReplay(ledger: CacheLedger): boolean {
  return ledger.hits > 0 && ledger.misses === 0;
}

/** A run copied from the scratch store it ran in into the store that keeps runs: a new id, the same samples. */
async function copyRun(from: Store, to: Store, run: RunRecord, copied?: Set<string>): Promise<RunRecord> {
  const kept = await to.runs.create({
    name: run.name,
    config: run.config,
    ...(run.configPath !== undefined ? { configPath: run.configPath } : {}),
    inputs: run.inputs,
    samples: run.samples,
    validators: run.validators,
    systemId: run.systemId,
  });
  for (const sample of await from.samples.list(run.id)) {
    copied?.add(cell(sample));
    await to.samples.record(kept.id, sample);
  }
  return kept;
}

const cell = (s: Pick<SampleRecord, 'i' | 'j'>) => `${s.i},${s.j}`;

export interface KeptRun {
  /** The store the runner writes to: the scratch store, teeing into `keep` once the run is kept. */
  store: Store;
  /**
   * After the run: the run as kept (its samples and status in `keep`), or undefined for a replay. A run that
   * stored no sample and is no replay (stopped at once) is copied now.
   */
  finish(run: RunRecord): Promise<RunRecord | undefined>;
}

export function keepAsItGoes(scratch: Store, keep: Store, ledger: CacheLedger): KeptRun {
  let kept: Promise<RunRecord> | undefined;
  const copied = new Set<string>();
  const keptOf = (runId: string) =>
    (kept ??= scratch.runs.get(runId).then((run) => {
      if (!run) throw new Error(`run ${runId} vanished from the scratch store`);
      return copyRun(scratch, keep, run, copied);
    }));
  const s = scratch.samples;
  const samples: Store['samples'] = {
    record: async (runId, sample) => {
      await s.record(runId, sample);
      if (!kept && isReplay(ledger)) return;
      const run = await keptOf(runId);
      // The copy may already hold this sample (stored in the scratch store before the copy listed it).
      if (!copied.has(cell(sample))) await keep.samples.record(run.id, sample);
    },
    get: (runId, i, j) => s.get(runId, i, j),
    list: (runId) => s.list(runId),
    tensor: (runId) => s.tensor(runId),
    discardGenerationErrors: (runId) => s.discardGenerationErrors(runId),
  };
  const r = scratch.runs;
  const runs: Store['runs'] = {
    create: (run) => r.create(run),
    get: (runId) => r.get(runId),
    list: (filter) => r.list(filter),
    count: (filter) => r.count(filter),
    setStatus: async (runId, status) => {
      await r.setStatus(runId, status);
      if (kept) await keep.runs.setStatus((await kept).id, status);
    },
  };
  const store: Store = {
    runs,
    samples,
    grades: scratch.grades,
    cache: scratch.cache,
    guard: scratch.guard,
    audits: scratch.audits,
    production: scratch.production,
    close: () => scratch.close(),
    [Symbol.asyncDispose]: () => scratch[Symbol.asyncDispose](),
  };
  return {
    store,
    finish: async (run) => {
      if (!kept && isReplay(ledger)) return undefined;
      const id = (await (kept ?? keptOf(run.id))).id;
      await keep.runs.setStatus(id, run.status);
      return (await keep.runs.get(id)) ?? run;
    },
  };
}

import { availableParallelism } from 'node:os';
import { type FnDef, type HostOptions, WorkerHost } from './host.js';
import type { Reply } from './protocol.js';

/**
 * Default number of worker threads per sandbox: one per core, at least 2 (so a slow or looping
 * predicate always leaves another worker free), at most 8 (each worker holds its own WebAssembly module).
 * More workers than cores would not help: predicates are CPU-bound, and their wall-clock limits would
 * start to measure contention instead of their own work.
 */
export const defaultMaxWorkers = (): number => Math.max(2, Math.min(8, availableParallelism()));

interface Lane {
  host: WorkerHost;
  /** Functions living on this worker. */
  fns: number;
}

/**
 * The worker threads of one sandbox. Each compiled function has a home worker (affinity), picked when it
 * is compiled: an idle lane, a new one while under `maxWorkers`, else the lane with fewest functions. So
 * up to `maxWorkers` functions each run on their own thread and a slow or looping predicate cannot delay
 * another; beyond that, functions share, and the worker serves the functions it holds in turn (one call
 * each, round robin), so a neighbour waits for at most one call of each function it shares with. A
 * worker terminated at a deadline takes down only its own lane; the others keep running.
 */
export class WorkerPool {
  private readonly lanes: Lane[] = [];
  private readonly home = new Map<number, Lane>();
  private disposed = false;

  constructor(
    private readonly options: HostOptions,
    private readonly maxWorkers: number,
  ) {}

  request(def: FnDef, args?: string): Promise<Reply> {
    if (this.disposed) return Promise.resolve({ rq: 0, ok: false, kind: 'disposed', message: 'the sandbox has been disposed' });
    return this.laneOf(def.id).host.request(def, args);
  }

  forget(id: number): void {
    const lane = this.home.get(id);
    if (!lane) return;
    this.home.delete(id);
    lane.fns--;
    lane.host.forget(id);
  }

  dispose(): void {
    this.disposed = true;
    for (const lane of this.lanes) lane.host.dispose();
    this.home.clear();
  }

  private laneOf(id: number): Lane {
    let lane = this.home.get(id);
    if (lane) return lane;
    lane = this.lanes.find((l) => l.fns === 0);
    if (!lane && this.lanes.length < this.maxWorkers) {
      lane = { host: new WorkerHost(this.options), fns: 0 };
      this.lanes.push(lane);
    }
    lane ??= this.lanes.reduce((a, b) => (b.fns < a.fns ? b : a));
    lane.fns++;
    this.home.set(id, lane);
    return lane;
  }
}

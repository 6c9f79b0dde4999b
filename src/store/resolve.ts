/**
 * A run as people name it: its full id, `latest` (the newest run), or a unique prefix of its id (`assay show
 * 20261123-1030`). One resolver for every command and page that takes a run id.
 */
import { UsageError } from '../errors.js';
import type { Store } from './types.js';
import { assayCommandLine } from '../invocation.js';

/** Candidates listed when a prefix matches several runs. */
const SHOWN = 5;

/**
 * The id of the run `ref` names, or a UsageError (exit 2) naming `what` (e.g. "--resume") and the matches.
 * An exact id wins over a prefix; `latest` is the newest run (by creation time), unless a run is called that.
 */
export async function resolveRunId(store: Store, ref: string, what = 'run id'): Promise<string> {
  const wanted = ref.trim();
  if (!wanted) throw new UsageError(`${what}: expected a run id, "latest" or the start of an id, found nothing`, { path: what });
  if (await store.runs.get(wanted)) return wanted;
  if (wanted === 'latest') {
    const [newest] = await store.runs.list({ limit: 1 });
    if (!newest)
      throw new UsageError(`${what}: "latest" names the newest run, but the store has none (runs are stored by: ${assayCommandLine('run <config>')})`, {
        path: what,
      });
    return newest.id;
  }
  // The store finds the few ids with this start (an index range), however many runs it holds.
  const matches = await store.runs.list({ idPrefix: wanted, limit: SHOWN + 1 });
  if (matches.length === 1) return matches[0].id;
  if (matches.length === 0)
    throw new UsageError(`${what}: no run with id "${wanted}" (or an id starting so) in the store (list them with: ${assayCommandLine('runs')})`, {
      path: what,
    });
  const count = matches.length > SHOWN ? await store.runs.count({ idPrefix: wanted }) : matches.length;
  const shown = matches
    .slice(0, SHOWN)
    .map((r) => r.id)
    .join(', ');
  throw new UsageError(`${what}: "${wanted}" starts ${count} run ids (${shown}${count > SHOWN ? ', …' : ''}); give more of the id`, { path: what });
}

import { durationFlag } from './flags.js';
import { DEFAULT_OUTAGE_MS } from '../store/outage.js';

/** The `--store` option every command that reads or writes runs takes (resolved by store/open.ts storeLocation). */
export const STORE_FLAG = '--store <location>';
export const STORE_HELP = 'where runs are stored: a SQLite file or a postgres://user@host:5432/db URL (default: $ASSAY_STORE, else .assay/assay.db)';

/** `--outage-timeout`, taken by the commands that keep working through a lost store or queue (run, worker): outageTimeout below. */
export const OUTAGE_FLAG = '--outage-timeout <duration>';
export const OUTAGE_HELP =
  'how long a lost PostgreSQL store or Redis queue (refused, dropped, or silent for 3 s) is waited for, counted from the loss, before giving up with exit 3, e.g. 30s, 5m; 0 waits for nothing (default: $ASSAY_OUTAGE_TIMEOUT, else 60s)';

/**
 * `--outage-timeout <duration>`, else ASSAY_OUTAGE_TIMEOUT, else 60 s: how long a lost store or queue is
 * waited for. `0` waits for nothing (the first failure a retry does not mend ends the command).
 */
export function outageTimeout(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): number {
  const [value, name] = flag !== undefined ? [flag, '--outage-timeout'] : [env.ASSAY_OUTAGE_TIMEOUT, 'ASSAY_OUTAGE_TIMEOUT'];
  if (value === undefined || value === '') return DEFAULT_OUTAGE_MS;
  if (/^\s*0+(\.0*)?\s*(ms|s|m|h)?\s*$/i.test(value)) return 0;
  return durationFlag(name, value)!;
}

/** The `--store` option every command that reads or writes runs takes (resolved by store/open.ts storeLocation). */
export const STORE_FLAG = '--store <location>';
export const STORE_HELP = 'where runs are stored: a SQLite file or a postgres://user@host:5432/db URL (default: $ASSAY_STORE, else .assay/assay.db)';

/** `--outage-timeout`, taken by the commands that keep working through a lost store or queue (run, worker): outage.ts outageTimeout. */
export const OUTAGE_FLAG = '--outage-timeout <duration>';
export const OUTAGE_HELP =
  'how long a lost PostgreSQL store or Redis queue is waited for before giving up with exit 3, e.g. 30s, 5m; 0 waits for nothing (default: $ASSAY_OUTAGE_TIMEOUT, else 60s)';

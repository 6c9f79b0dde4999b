/** The `--store` option every command that reads or writes runs takes (resolved by store/open.ts storeLocation). */
export const STORE_FLAG = '--store <location>';
export const STORE_HELP = 'where runs are stored: a SQLite file or a postgres://user@host:5432/db URL (default: $ASSAY_STORE, else .assay/assay.db)';

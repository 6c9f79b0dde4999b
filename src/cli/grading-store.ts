import { existsSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { openStore } from '../store/open.js';
import { isPostgresUrl } from '../store/postgres-schema.js';
import type { Store } from '../store/types.js';

/** The store grades are written to: it must hold runs already (a missing SQLite file is not created). */
export async function openGradingStore(location: string): Promise<Store> {
  if (!isPostgresUrl(location) && !existsSync(location))
    throw new UsageError(`--store: expected an assay store at ${location}, found no file (runs are stored there by: assay run <config>)`, {
      file: location,
      path: '--store',
    });
  return openStore(location);
}

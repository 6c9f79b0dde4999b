import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `measure` on the location of a fresh, empty store of `backend`: `sqlite`, a file in a new temporary folder;
 * `postgres`, a new database on the server at `pgUrl` (an admin connection), dropped after, as the folder is removed.
 */
export async function onFreshStore<T>(backend: string, pgUrl: string, measure: (location: string) => Promise<T>): Promise<T> {
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'assay-bench-'));
    try {
      return await measure(join(dir, 'assay.db'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (backend !== 'postgres') throw new Error(`--backend: expected sqlite and/or postgres, found ${backend}`);
  const name = `assay_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const u = new URL(pgUrl);
  u.pathname = `/${name}`;
  try {
    return await measure(u.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe } from 'vitest';
import { createTestDatabase } from '../testing/services.js';
import { auditsContract } from './audits.case.js';
import { cacheContract } from './cache.case.js';
import { gradesContract } from './grades.case.js';
import { guardContract } from './guard.case.js';
import { MemoryStore } from './memory.js';
import { openStore } from './open.js';
import { persistenceContract } from './persistence.case.js';
import { productionContract } from './production.case.js';
import { runsContract } from './runs.case.js';
import { samplesContract } from './samples.case.js';
import { openSqliteStore, SqliteStore } from './sqlite.js';
import type { MakeStore } from './testing/fixtures.js';

/**
 * The Store contract (GUIDE: one shared suite per interface): every part's suite, run against every adapter
 * of this one list. An adapter is done when it passes; a persistent one (with `fresh`) passes the tests of
 * what survives too.
 */
interface StoreAdapter {
  name: string;
  /** A fresh, empty store. */
  make: MakeStore;
  /** Where a fresh, empty store can be made (a SQLite path, a postgres:// URL), for openStore. */
  fresh?: () => Promise<string>;
  /** The adapter cannot be tested here: its server is not reachable (never so under CI=true, which fails instead). */
  skip?: boolean;
}

const dir = mkdtempSync(join(tmpdir(), 'assay-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const sqliteFile = async () => join(dir, `s${files++}`, 'assay.db');

// A database of this test run (dropped after), or undefined (one line says why) when PostgreSQL is not reachable.
const db = await createTestDatabase();
afterAll(async () => db?.drop());
let schemas = 0;
const postgresSchema = async () => `${db!.url}?schema=s${schemas++}`;

const ADAPTERS: StoreAdapter[] = [
  { name: 'memory', make: async () => new MemoryStore() },
  { name: 'sqlite (file)', make: async () => openSqliteStore(await sqliteFile()), fresh: sqliteFile },
  { name: 'sqlite (:memory:)', make: async () => new SqliteStore(':memory:') },
  { name: 'postgres', make: async () => openStore(await postgresSchema()), fresh: postgresSchema, skip: !db },
];

for (const { name, make, fresh, skip } of ADAPTERS) {
  describe.skipIf(skip)(`Store contract: ${name}`, () => {
    runsContract(make);
    samplesContract(make);
    gradesContract(make);
    cacheContract(make);
    guardContract(make);
    productionContract(make);
    auditsContract(make);
    if (fresh) persistenceContract(fresh);
  });
}

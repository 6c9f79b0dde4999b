import pg from 'pg';
import { randomBytes } from 'node:crypto';

/**
 * The real services some suites need (PostgreSQL, Redis), for tests and benchmarks. Where one is not
 * reachable the suite is skipped with one visible line saying why, unless CI=true: there it must run, so
 * the suite fails instead. Each test run gets a database (or key prefix) of its own, dropped after.
 */

/** The server tests create their databases on (trust auth on the project's machines). */
export const TEST_POSTGRES_URL = process.env.ASSAY_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.ASSAY_TEST_REDIS ?? 'redis://127.0.0.1:6379';

/** True when the service answers; false (after one line on stderr) when not; throws under CI=true. */
export async function serviceReachable(what: string, where: string, probe: () => Promise<void>): Promise<boolean> {
  try {
    await probe();
    return true;
  } catch (err) {
    const why = err instanceof Error ? err.message || String((err as { code?: unknown }).code ?? err) : String(err);
    if (process.env.CI === 'true') throw new Error(`${what} is not reachable at ${where} (${why}), and CI=true: these tests must run there`);
    process.stderr.write(`[skipped] ${what} tests: ${what} is not reachable at ${where} (${why}); with CI=true this fails\n`);
    return false;
  }
}

export interface TestDatabase {
  /** postgres:// URL of a fresh, empty database of this test run. */
  url: string;
  /** Terminate its connections and drop it. */
  drop(): Promise<void>;
}

function adminUrl(database: string): string {
  const u = new URL(TEST_POSTGRES_URL);
  u.pathname = `/${database}`;
  return u.toString();
}

/** `CREATE DATABASE assay_test_<random>`; undefined (skipped) when PostgreSQL is not reachable. */
export async function createTestDatabase(): Promise<TestDatabase | undefined> {
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 3000 });
  const ok = await serviceReachable('PostgreSQL', new URL(TEST_POSTGRES_URL).host, async () => {
    await admin.connect();
  });
  if (!ok) {
    await admin.end().catch(() => {});
    return undefined;
  }
  const name = `assay_test_${randomBytes(6).toString('hex')}`;
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: adminUrl(name),
    drop: async () => {
      const c = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

export interface TestRedis {
  url: string;
  /** Key prefix of this test run: every key the tests make starts with it. */
  prefix: string;
  /** Delete every key under the prefix. */
  drop(): Promise<void>;
}

/** A Redis key prefix of this test run; undefined (skipped) when Redis is not reachable. */
export async function redisForTests(): Promise<TestRedis | undefined> {
  const { Redis } = await import('ioredis');
  const client = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 3000 });
  client.on('error', () => {});
  const ok = await serviceReachable('Redis', TEST_REDIS_URL, async () => {
    await client.connect();
    await client.ping();
  });
  client.disconnect();
  if (!ok) return undefined;
  const prefix = `assay-test-${randomBytes(6).toString('hex')}`;
  return {
    url: TEST_REDIS_URL,
    prefix,
    drop: async () => {
      const c = new Redis(TEST_REDIS_URL);
      try {
        let cursor = '0';
        do {
          const [next, keys] = await c.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
          cursor = next;
          if (keys.length) await c.del(...keys);
        } while (cursor !== '0');
      } finally {
        c.disconnect();
      }
    },
  };
}

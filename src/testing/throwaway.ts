import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * Servers of a test's own, on spare ports, to kill and restart (tests only): a Redis, a PostgreSQL cluster,
 * and a "silent" server that accepts connections and never answers. The shared services on 5432 and 6379
 * are never restarted. Where the binaries are missing the suite is skipped with one visible line, unless
 * CI=true: there it must run, so it fails instead.
 */

const run = promisify(execFile);

/** One line and undefined when `what` cannot run here; an error under CI=true. */
function unavailable(what: string, why: string): undefined {
  if (process.env.CI === 'true') throw new Error(`${what} cannot run here (${why}), and CI=true: these tests must run there`);
  process.stderr.write(`[skipped] ${what} tests: ${why}; with CI=true this fails\n`);
  return undefined;
}

/** A port nothing listens on right now. */
export async function sparePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir && existsSync(join(dir, name))) return join(dir, name);
  return undefined;
}

/** Resolves once something accepts connections on the port and answers `probe` with `expect`. */
async function answers(port: number, probe: string, expect: RegExp, deadlineMs = 30_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket: Socket = createConnection({ host: '127.0.0.1', port }, () => socket.write(probe));
      let got = '';
      socket.on('data', (d) => {
        got += d.toString();
        if (expect.test(got)) {
          socket.destroy();
          resolve(true);
        }
      });
      socket.on('error', () => resolve(false));
      socket.on('close', () => resolve(false));
      socket.setTimeout(2000, () => socket.destroy());
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`nothing answered on port ${port} within ${deadlineMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface ThrowawayRedis {
  port: number;
  url: string;
  /** Start it (again), empty: nothing is kept on disk. `args`: more redis-server options (e.g. --requirepass). */
  start(args?: string[]): Promise<void>;
  /** kill -9: a crash, everything in it lost. */
  kill(): Promise<void>;
  /** Stop it for good (afterAll). */
  destroy(): Promise<void>;
}

/** `redis-server --port N --save '' --appendonly no` on a spare port; undefined (skipped) without redis-server. */
export async function throwawayRedis(): Promise<ThrowawayRedis | undefined> {
  const bin = onPath('redis-server');
  if (!bin) return unavailable('throwaway Redis', 'redis-server is not on the PATH');
  const port = await sparePort();
  let child: ChildProcess | undefined;
  const kill = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };
  const redis: ThrowawayRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start(args = []) {
      child = spawn(bin, ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', ...args], { stdio: 'ignore' });
      await answers(port, 'PING\r\n', /\+PONG|-NOAUTH/);
    },
    kill,
    destroy: kill,
  };
  await redis.start();
  return redis;
}

export interface ThrowawayPostgres {
  port: number;
  /** postgres://user[:password]@127.0.0.1:port/database */
  url(opts?: { user?: string; password?: string; database?: string }): string;
  /** pg_ctl start (again): the data folder is kept, so the databases and tables are back. */
  start(): Promise<void>;
  /** pg_ctl stop: `immediate` is a crash (no shutdown checkpoint, connections cut). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Stop it and remove its folder (afterAll). */
  destroy(): Promise<void>;
}

export interface ThrowawayPostgresOptions {
  /** `trust` (any login) or `scram-sha-256` for the user postgres with `password`. */
  auth?: 'trust' | 'scram-sha-256';
  password?: string;
  /** pg_hba.conf lines put before the others (e.g. a database only reachable over TLS). */
  hba?: string[];
}

/** The folder of initdb and pg_ctl: pg_config's, else the newest under /usr/lib/postgresql. */
async function pgBin(): Promise<string | undefined> {
  const fromConfig = await run('pg_config', ['--bindir']).then(
    (r) => r.stdout.trim(),
    () => undefined,
  );
  if (fromConfig && existsSync(join(fromConfig, 'initdb'))) return fromConfig;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

/**
 * A PostgreSQL cluster of the test's own (initdb in a temporary folder, started on a spare port), run as
 * the `postgres` user when this process is root (PostgreSQL refuses root); undefined (skipped) where the
 * binaries are missing. Logins wait up to 10 minutes (authentication_timeout) for a client that stalls,
 * so that a client that keeps such a connection open is seen to.
 */
export async function throwawayPostgres(opts: ThrowawayPostgresOptions = {}): Promise<ThrowawayPostgres | undefined> {
  const bin = await pgBin();
  if (!bin) return unavailable('throwaway PostgreSQL', 'initdb and pg_ctl were not found (pg_config --bindir, /usr/lib/postgresql/*/bin)');
  const root = process.getuid?.() === 0;
  let owner: { uid: number; gid: number } | undefined;
  if (root) {
    const id = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]).then(
      ([u, g]) => ({ uid: Number(u.stdout), gid: Number(g.stdout) }),
      () => undefined,
    );
    if (!id || !onPath('runuser')) return unavailable('throwaway PostgreSQL', 'running as root needs the postgres user and runuser (PostgreSQL refuses root)');
    owner = id;
  }
  const as = (cmd: string, args: string[]) => (root ? run('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]) : run(join(bin, cmd), args));
  const dir = mkdtempSync(join(tmpdir(), 'assay-pg-'));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  const port = await sparePort();
  const auth = opts.auth ?? 'trust';
  const initArgs = ['-D', data, '-U', 'postgres', '-A', auth, '--no-sync'];
  if (auth !== 'trust') {
    const pw = join(dir, 'pw');
    writeFileSync(pw, `${opts.password ?? 'secret'}\n`);
    if (owner) chownSync(pw, owner.uid, owner.gid);
    initArgs.push(`--pwfile=${pw}`);
  }
  try {
    await as('initdb', initArgs);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  if (opts.hba?.length) {
    const hba = join(data, 'pg_hba.conf');
    writeFileSync(hba, `${opts.hba.join('\n')}\n${readFileSync(hba, 'utf8')}`);
  }
  const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c authentication_timeout=600`;
  const pg: ThrowawayPostgres = {
    port,
    url: ({ user = 'postgres', password, database = 'postgres' } = {}) =>
      `postgres://${user}${password !== undefined ? `:${encodeURIComponent(password)}` : ''}@127.0.0.1:${port}/${database}`,
    async start() {
      await as('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
    },
    async stop(mode = 'fast') {
      await as('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
    },
    async destroy() {
      await pg.stop('immediate').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await pg.start();
  } catch (err) {
    await pg.destroy();
    throw err;
  }
  return pg;
}

/** A server that accepts connections and reads what it is sent, and never answers: a hung Redis or PostgreSQL. */
export async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface PausableProxy {
  port: number;
  /** Stop forwarding, both ways: the service goes silent (connections stay open, new ones are accepted, nothing is answered). */
  pause(): void;
  /** Forward again, what was held first: the service answers again. */
  resume(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy to 127.0.0.1:`target` that can be paused: a real Redis or PostgreSQL that goes silent mid-run
 * and comes back (a hung server, a network that drops packets), without touching the shared server.
 */
export async function pausableProxy(target: number): Promise<PausableProxy> {
  let paused = false;
  const pairs = new Set<{ held: (() => void)[]; sockets: Socket[] }>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: target });
    const pair = { held: [] as (() => void)[], sockets: [client, upstream] };
    pairs.add(pair);
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (d: Buffer) => {
        const send = () => to.write(d);
        if (paused) pair.held.push(send);
        else send();
      });
    forward(client, upstream);
    forward(upstream, client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const s of pair.sockets) {
      s.on('error', end);
      s.on('close', end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    pause: () => (paused = true),
    resume: () => {
      paused = false;
      for (const p of pairs) for (const send of p.held.splice(0)) send();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const p of pairs) for (const s of p.sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * `npm run -s bench:ingest -- [--json] [--spans N] [--batch B] [--clients C] [--backend sqlite,postgres] [--pg URL]`
 *
 * Traces in: `assay serve --ingest` in a process of its own (the built-from-source CLI, as a user starts it)
 * takes OTLP/HTTP JSON exports at POST /v1/traces. `--clients` senders (default 4) post `--spans` small GenAI
 * spans (default 100,000: AI SDK `ai.generateText` spans with a short prompt, answer, model and tokens) in
 * exports of `--batch` spans (default 512, the OpenTelemetry BatchSpanProcessor's default), each answered
 * after the store committed it. A 429 (backpressure) is waited out as its Retry-After says and sent again.
 *
 * Per backend (SQLite in a temp dir; PostgreSQL in a fresh database, dropped after): spans_per_s (spans
 * acknowledged over the wall time from the first post to the last answer; goal ≥ 5,000), the server's peak
 * RSS in MB (VmHWM), how many posts got 429, and stored (samples in the store after, which must equal the
 * spans sent). Prints one JSON object with --json, else a line per backend.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openStore } from '../src/store/open.js';

function fail(message: string): never {
  process.stderr.write(`bench:ingest: ${message}\n`);
  process.exit(2);
}

let values: { json?: boolean; spans?: string; batch?: string; clients?: string; backend?: string; pg?: string };
try {
  ({ values } = parseArgs({
    options: {
      json: { type: 'boolean' },
      spans: { type: 'string', default: '100000' },
      batch: { type: 'string', default: '512' },
      clients: { type: 'string', default: '4' },
      backend: { type: 'string', default: 'sqlite,postgres' },
      pg: { type: 'string', default: process.env.ASSAY_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    },
  }));
} catch (err) {
  fail((err as Error).message);
}
const whole = (name: string, v: string | undefined) => {
  const n = Number(v);
  if (!(Number.isInteger(n) && n >= 1)) fail(`--${name} must be a whole number ≥ 1, got "${v}"`);
  return n;
};
const SPANS = whole('spans', values.spans);
const BATCH = whole('batch', values.batch);
const CLIENTS = whole('clients', values.clients);
const backends = values.backend!.split(',').map((b) => b.trim());
for (const b of backends) if (b !== 'sqlite' && b !== 'postgres') fail(`--backend: expected sqlite and/or postgres, got "${b}"`);

const str = (key: string, v: string) => ({ key, value: { stringValue: v } });
const int = (key: string, v: number) => ({ key, value: { intValue: String(v) } });

/** Export number `b` of the run: BATCH spans with ids unique to this run (`salt`). */
function exportBody(b: number, salt: string): string {
  const spans = [];
  const t0 = BigInt(Date.UTC(2026, 0, 1)) * 1_000_000n;
  for (let k = 0; k < BATCH && b * BATCH + k < SPANS; k++) {
    const n = b * BATCH + k;
    const start = t0 + BigInt(n) * 1_000_000_000n;
    spans.push({
      traceId: `${salt}${n.toString(16).padStart(24, '0')}`,
      spanId: (n + 1).toString(16).padStart(16, '0'),
      name: 'ai.generateText',
      kind: 1,
      startTimeUnixNano: String(start),
      endTimeUnixNano: String(start + 850_000_000n),
      attributes: [
        str('ai.operationId', 'ai.generateText'),
        str('ai.telemetry.functionId', 'answer'),
        str('ai.model.id', 'gpt-4o-mini'),
        str('ai.prompt', JSON.stringify({ prompt: `Where is order ${n}?` })),
        str('ai.response.text', `Order ${n} shipped today and arrives within three days.`),
        int('ai.usage.promptTokens', 24),
        int('ai.usage.completionTokens', 12),
      ],
      status: { code: 1 },
    });
  }
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [str('service.name', 'bench')] }, scopeSpans: [{ scope: { name: 'ai' }, spans }] }] });
}

async function startServe(store: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--ingest', '--store', store, '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /serving on (http:\/\/\S+?)[ ,(]/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`assay serve exited (${code}): ${err}`)));
  });
  return { child, url };
}

function peakRssMb(pid: number): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

async function measure(store: string): Promise<{ spans_per_s: number; seconds: number; peak_rss_mb: number | null; throttled: number; stored: number }> {
  const { child, url } = await startServe(store);
  const salt = randomBytes(4).toString('hex');
  const batches = Math.ceil(SPANS / BATCH);
  const bodies = Array.from({ length: batches }, (_, b) => exportBody(b, salt));
  let next = 0;
  let throttled = 0;
  const t0 = performance.now();
  try {
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < batches) {
          const b = next++;
          for (;;) {
            const res = await fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: bodies[b] });
            await res.arrayBuffer();
            if (res.status === 200) break;
            if (res.status !== 429 && res.status !== 503) throw new Error(`POST /v1/traces answered ${res.status}`);
            throttled++;
            await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? '1') * 1000));
          }
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const peak = peakRssMb(child.pid!);
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    const s = await openStore(store, { existing: true });
    const stored = (await s.production.experiments()).find((e) => e.name === 'bench/answer')?.samples ?? 0;
    await s.close();
    return { spans_per_s: Math.round(SPANS / seconds), seconds: Math.round(seconds * 100) / 100, peak_rss_mb: peak, throttled, stored };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

const result: Record<string, unknown> = { spans: SPANS, batch: BATCH, clients: CLIENTS };
for (const backend of backends) {
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'assay-bench-ingest-'));
    try {
      result.sqlite = await measure(join(dir, 'assay.db'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } else {
    const name = `assay_bench_${randomBytes(5).toString('hex')}`;
    const admin = new pg.Client({ connectionString: values.pg });
    try {
      await admin.connect();
    } catch (err) {
      result.postgres = { skipped: `PostgreSQL not reachable at ${new URL(values.pg!).host}: ${(err as Error).message}` };
      continue;
    }
    await admin.query(`CREATE DATABASE ${name}`);
    const u = new URL(values.pg!);
    u.pathname = `/${name}`;
    try {
      result.postgres = await measure(u.toString());
    } finally {
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [name]).catch(() => {});
      await admin.query(`DROP DATABASE IF EXISTS ${name}`).catch(() => {});
      await admin.end();
    }
  }
}
if (values.json) process.stdout.write(JSON.stringify(result) + '\n');
else
  for (const b of backends) {
    const r = result[b] as { spans_per_s?: number; peak_rss_mb?: number; throttled?: number; stored?: number; skipped?: string };
    process.stdout.write(
      r.skipped
        ? `${b}: skipped (${r.skipped})\n`
        : `${b}: ${r.spans_per_s} spans/s, peak RSS ${r.peak_rss_mb} MB, ${r.throttled} posts throttled, ${r.stored}/${SPANS} stored\n`,
    );
  }

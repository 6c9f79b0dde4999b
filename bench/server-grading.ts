/**
 * The grading part of `npm run bench:server` (issue 30, item 4): `assay serve --store … --grading` in its own
 * process over a SQLite store with one run of 2,000 inputs × 10 samples × 2 rules, while a separate process
 * polls /healthz every 10 ms:
 *  - flood: 10,000 grade posts, 16 in flight, from one client with the server's rate limit lifted (the worst
 *    case: every post is stored), then the same with the default limits (most are 429);
 *  - imported: after BENCH_GRADES (default 1,000,000) grades are stored in the run (and an audit batch of
 *    BENCH_AUDIT_CLAIMS claims, default 100,000, each graded), the dashboard's pages (the run page, its JSON,
 *    the grading queue, compare, the audit's grading queue, the runs list), each fetched twice (cold, then
 *    cached). With BENCH_GRADING_BEFORE_ROOT=<dir>, another checkout's `assay serve` (e.g. main before a
 *    change) is measured first on the same store, one after the other in this run (`imported_before`).
 * Figures: /healthz p50/p99/max (goal p99 ≤ 100 ms), the statuses, each page's time.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Outcome } from '../src/core/outcome.js';
import { writeGradedFixture } from '../src/grades/testing/fixture.js';
import { openSqliteStore } from '../src/store/sqlite.js';
import type { NewGrade } from '../src/store/types.js';

type Serve = (args: string[], cwd: string, root?: string) => Promise<{ url: string; child: ChildProcess; stop: () => Promise<void> }>;
type Poller = (url: string, everyMs?: number) => { stop: () => Promise<{ ms: number[]; failed: number }> };

const r1 = (x: number) => Math.round(x * 10) / 10;
const pct = (xs: number[], q: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] : NaN);
const latencies = (h: { ms: number[]; failed: number }) => ({
  polls: h.ms.length,
  failed: h.failed,
  p50_ms: r1(pct(h.ms, 0.5)),
  p99_ms: r1(pct(h.ms, 0.99)),
  max_ms: r1(pct(h.ms, 1)),
});

async function flood(url: string, runId: string, poller: Poller, posts = 10_000, inFlight = 16) {
  const poll = poller(url);
  const statuses: Record<number, number> = {};
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < posts) {
        const n = next++;
        const r = await fetch(`${url}/api/runs/${runId}/grades`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ i: n % 2000, j: Math.floor(n / 2000) % 10, rule: 'polite', grade: n % 3 ? 'pass' : 'fail', grader: 'flood' }),
        });
        await r.arrayBuffer();
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { posts, in_flight: inFlight, seconds: r1(seconds), statuses, healthz: latencies(await poll.stop()) };
}

async function pages(url: string, runId: string, auditId: string, poller: Poller) {
  const poll = poller(url);
  const out: Record<string, { status: number; cold_ms: number; warm_ms: number }> = {};
  const paths = [
    `/runs/${runId}`,
    `/api/runs/${runId}`,
    `/api/runs/${runId}/grading?rule=polite`,
    `/api/compare?a=${runId}&b=${runId}`,
    `/compare?a=${runId}&b=${runId}`,
    `/api/audits/${auditId}/grading`,
    '/',
  ];
  for (const path of paths) {
    const times: number[] = [];
    let status = 0;
    for (let k = 0; k < 2; k++) {
      const t0 = performance.now();
      const r = await fetch(url + path);
      await r.arrayBuffer();
      times.push(performance.now() - t0);
      status = r.status;
    }
    out[path.replaceAll(runId, 'RUN').replace(auditId, 'AUDIT')] = { status, cold_ms: r1(times[0]), warm_ms: r1(times[1]) };
  }
  return { pages: out, healthz: latencies(await poll.stop()) };
}

export async function gradingBench(dir: string, serve: Serve, poller: Poller): Promise<Record<string, unknown>> {
  const path = join(dir, 'grading.db');
  const store = openSqliteStore(path);
  const run = await writeGradedFixture(store, { N: 2000, M: 10, cell: (i, j) => ((i + j) % 4 ? Outcome.PASS : Outcome.FAIL) });
  await store.close();
  const out: Record<string, unknown> = {};
  {
    const { url, stop } = await serve(['--store', path, '--grading'], dir);
    try {
      out.flood_unlimited = await flood(url, run.id, poller);
    } finally {
      await stop();
    }
  }
  {
    const { url, stop } = await serve(['--store', path, '--grading', '--rate', '10', '--burst', '30'], dir);
    try {
      out.flood_default_limits = await flood(url, run.id, poller);
    } finally {
      await stop();
    }
  }
  const total = Number(process.env.BENCH_GRADES ?? 1_000_000);
  const t0 = performance.now();
  const w = openSqliteStore(path);
  const batch = 20_000;
  for (let start = 0; start < total; start += batch) {
    const grades: NewGrade[] = [];
    for (let n = start; n < Math.min(total, start + batch); n++)
      grades.push({ i: n % 2000, j: Math.floor(n / 2000) % 10, rule: n % 2 ? 'polite' : 'short', grade: n % 5 ? 'pass' : 'fail', grader: `g${n % 50}` });
    await w.grades.recordMany(run.id, grades);
  }
  const claims = Number(process.env.BENCH_AUDIT_CLAIMS ?? 100_000);
  const { audit } = await w.audits.create({
    name: 'bench',
    claims: Array.from({ length: claims }, (_, n) => ({
      answer: `a${Math.floor(n / 10)}`,
      claim: (n % 10) + 1,
      text: `Claim ${n} of the answer.`,
      status: n % 4 ? ('STRONG' as const) : ('UNSUPPORTED' as const),
      evidence: `Evidence for claim ${n}.`,
    })),
  });
  for (let start = 0; start < claims; start += batch)
    await w.audits.recordGrades(
      audit.id,
      Array.from({ length: Math.min(batch, claims - start) }, (_, x) => {
        const n = start + x;
        return { answer: `a${Math.floor(n / 10)}`, claim: (n % 10) + 1, supported: n % 3 > 0, grader: `g${n % 7}` };
      }),
    );
  await w.close();
  const importS = r1((performance.now() - t0) / 1000);
  const before = process.env.BENCH_GRADING_BEFORE_ROOT;
  for (const [key, root] of [...(before ? [['imported_before', before]] : []), ['imported', undefined]] as [string, string | undefined][]) {
    const { url, stop } = await serve(['--store', path, '--grading'], dir, root ?? process.env.BENCH_SERVE_ROOT);
    try {
      out[key] = {
        serve: root ? 'BENCH_GRADING_BEFORE_ROOT' : 'this checkout',
        grades: total,
        audit_claims: claims,
        import_s: importS,
        ...(await pages(url, run.id, audit.id, poller)),
      };
    } finally {
      await stop();
    }
  }
  return out;
}

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite.js';
import { cliCommand } from './testing/process.js';
import { useConfigDir } from './testing/config-dir.js';

const tmp = useConfigDir('assay-ingest-fault-');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

async function serve(store: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...cliCommand(), 'serve', '--ingest', '--store', store, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 30_000);
    child.stderr!.on('data', (d) => {
      stderr += d;
      const m = /serving on (http:\/\/[^\s,(]+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  return { child, url };
}

const BATCH = 200;

/** Export b: BATCH GenAI spans with ids of their own. */
function exportBody(b: number): string {
  const spans = Array.from({ length: BATCH }, (_, k) => {
    const n = b * BATCH + k + 1;
    return {
      traceId: n.toString(16).padStart(32, '0'),
      spanId: n.toString(16).padStart(16, '0'),
      name: 'ai.generateText',
      startTimeUnixNano: String(1_767_225_600_000_000_000n + BigInt(n) * 1_000_000n),
      endTimeUnixNano: String(1_767_225_600_500_000_000n + BigInt(n) * 1_000_000n),
      attributes: [
        { key: 'ai.operationId', value: { stringValue: 'ai.generateText' } },
        { key: 'ai.response.text', value: { stringValue: `answer ${n}` } },
      ],
    };
  });
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'shop' } }] }, scopeSpans: [{ spans }] }] });
}

describe('assay serve --ingest killed mid-stream', () => {
  it('loses no acknowledged span and duplicates none once the exporter sends again what was not acknowledged', async () => {
    const store = join(tmp.dir(), 'fault.db');
    const batches = 40;
    const acked = new Set<number>();
    let first = await serve(store);
    // Two senders stream exports; the receiver is killed (SIGKILL) once some are acknowledged, mid-stream.
    let next = 0;
    const send = async () => {
      while (next < batches) {
        const b = next++;
        try {
          const res = await fetch(`${first.url}/v1/traces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: exportBody(b) });
          await res.arrayBuffer();
          if (res.status === 200) acked.add(b);
          if (acked.size === 10) first.child.kill('SIGKILL');
        } catch {
          // The connection died with the receiver: not acknowledged, sent again below.
        }
      }
    };
    await Promise.all([send(), send()]);
    await new Promise((r) => (first.child.exitCode !== null || first.child.signalCode !== null ? r(undefined) : first.child.once('exit', r)));
    expect(acked.size).toBeGreaterThanOrEqual(10);
    expect(acked.size).toBeLessThan(batches);

    // The exporter's retry: everything not acknowledged, plus (to be sure) a few that were.
    first = await serve(store);
    const again = [...Array.from({ length: batches }, (_, b) => b).filter((b) => !acked.has(b)), ...[...acked].slice(0, 3)];
    for (const b of again) {
      const res = await fetch(`${first.url}/v1/traces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: exportBody(b) });
      await res.arrayBuffer();
      expect(res.status).toBe(200);
    }
    first.child.kill('SIGTERM');
    await new Promise((r) => first.child.once('exit', r));

    const s = openSqliteStore(store);
    try {
      const rows = s.db.prepare(`SELECT count(*) AS n, count(DISTINCT span_id) AS d FROM production_spans`).get() as { n: number; d: number };
      expect(rows).toEqual({ n: batches * BATCH, d: batches * BATCH });
      const samples = await s.production.list('shop/ai.generateText');
      const ids = new Set(samples.map((x) => parseInt(x.spanId, 16)));
      for (const b of acked) for (let k = 1; k <= BATCH; k++) expect(ids.has(b * BATCH + k)).toBe(true);
    } finally {
      await s.close();
    }
  }, 120_000);
});

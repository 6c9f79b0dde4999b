import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

const tmp = useConfigDir('assay-ingest-');
const cli = (...args: string[]) => captureCli(args);

const otlpLine = JSON.stringify({
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'shop' } }] },
      scopeSpans: [
        {
          spans: [
            {
              traceId: 'c'.repeat(32),
              spanId: 'd'.repeat(16),
              name: 'ai.generateText',
              startTimeUnixNano: '1767225600000000000',
              endTimeUnixNano: '1767225600800000000',
              attributes: [
                { key: 'ai.operationId', value: { stringValue: 'ai.generateText' } },
                { key: 'ai.telemetry.functionId', value: { stringValue: 'answer' } },
                { key: 'ai.prompt', value: { stringValue: '{"prompt":"Is it in stock?"}' } },
                { key: 'ai.response.text', value: { stringValue: 'Yes.' } },
              ],
            },
          ],
        },
      ],
    },
  ],
});

describe('assay ingest', () => {
  it('stores a JSONL log of OTLP exports and flat records once, and assay runs lists the production experiments', async () => {
    const store = join(tmp.dir(), 'a.db');
    const file = tmp.config(
      'calls.jsonl',
      [
        otlpLine,
        '',
        JSON.stringify({ service: 'shop', operation: 'answer', input: 'Refund?', output: 'Within 30 days.', start: '2026-01-01T00:01:00Z', latencyMs: 500 }),
        JSON.stringify({ service: 'shop', operation: 'triage', output: 'billing', usage: { promptTokens: 3, completionTokens: 1 } }),
      ].join('\n') + '\n',
    );
    const first = await cli('ingest', file, '--store', store, '--json');
    expect(first.err).toBe('');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.out)).toEqual({ lines: 3, spans: 3, stored: 3, duplicates: 0 });
    // Again: the flat records' ids come from their lines, so nothing is added.
    expect(JSON.parse((await cli('ingest', file, '--store', store, '--json')).out)).toEqual({ lines: 3, spans: 3, stored: 0, duplicates: 3 });

    const s = openSqliteStore(store);
    const answers = await s.production.list('shop/answer');
    await s.close();
    expect(answers.map((a) => [a.input, a.output, a.latencyMs])).toEqual([
      ['Is it in stock?', 'Yes.', 800],
      ['Refund?', 'Within 30 days.', 500],
    ]);

    const runs = await cli('runs', '--store', store);
    expect(runs.code).toBe(0);
    expect(runs.out).toMatch(/production experiment\s+samples\s+first\s+last\s+alarms/);
    expect(runs.out).toMatch(/shop\/answer\s+2\s+2026-01-01 00:00:00\s+2026-01-01 00:01:00\s+0/);
    expect(runs.out).toMatch(/shop\/triage\s+1/);
    const json = JSON.parse((await cli('runs', '--store', store, '--json')).out) as { kind?: string; name: string; samples: number }[];
    expect(json.map((r) => [r.kind, r.name, r.samples])).toEqual([
      ['production', 'shop/answer', 2],
      ['production', 'shop/triage', 1],
    ]);
  });

  it('a bad line stops it with exit 2 naming the file, the line and the field', async () => {
    const store = join(tmp.dir(), 'b.db');
    const file = tmp.config('bad.jsonl', [otlpLine, JSON.stringify({ service: 'shop', operation: 'x', output: 'ok', latencyMs: -1 })].join('\n'));
    const r = await cli('ingest', file, '--store', store);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${file}:2: latencyMs: expected a number ≥ 0, found -1`);
    const notJson = tmp.config('nojson.jsonl', 'hello\n');
    expect((await cli('ingest', notJson, '--store', store)).err).toContain(`${notJson}:1: expected one JSON object per line`);
    const badSpan = tmp.config('badspan.jsonl', otlpLine.replace('d'.repeat(16), 'zz'));
    expect((await cli('ingest', badSpan, '--store', store)).err).toMatch(
      /badspan\.jsonl:1: resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.spanId: expected 16 hex digits/,
    );
    const missing = await cli('ingest', join(tmp.dir(), 'none.jsonl'), '--store', store);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/none\.jsonl: cannot read it \(ENOENT\)/);
  });
});

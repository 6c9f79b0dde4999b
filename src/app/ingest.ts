import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { productionExperimentName, type ProductionSpan } from '../core/production.js';
import { UsageError } from '../errors.js';
import { productionSpansOf } from '../otel/genai.js';
import { decodeOtlpJson, OtlpError } from '../otel/otlp.js';
import type { Store } from '../store/types.js';
import { pushAll } from '../core/arrays.js';

/** Spans stored per call while reading a file. */
const BATCH = 2000;

export interface IngestResult {
  lines: number;
  spans: number;
  stored: number;
  duplicates: number;
}

/**
 * `assay ingest FILE`: a JSONL log of production traffic into the store, one line at a time. A line is either
 * an OTLP/JSON trace export (what the OpenTelemetry Collector's file exporter writes: `{"resourceSpans": …}`)
 * or one call as a flat record:
 *
 *   {"service": "shop", "operation": "answer", "input": "…", "output": "…", "model": "gpt-4o",
 *    "usage": {"promptTokens": 12, "completionTokens": 5}, "start": "2026-01-01T00:00:00Z", "latencyMs": 840,
 *    "traceId": "…32 hex…", "spanId": "…16 hex…", "error": "…"}
 *
 * (service, operation and output or error required; a record without ids gets them from a hash of its line, so
 * ingesting the same file again adds nothing). Spans are stored in batches as they are read; a bad line stops
 * the command with a UsageError naming the file and line, after the lines before it were stored (running it
 * again once fixed adds only what is new).
 */
export async function ingestFile(store: Store, file: string): Promise<IngestResult> {
  const result: IngestResult = { lines: 0, spans: 0, stored: 0, duplicates: 0 };
  let batch: ProductionSpan[] = [];
  const flush = async () => {
    if (!batch.length) return;
    const { stored, duplicates } = await store.production.ingest(batch);
    result.stored += stored;
    result.duplicates += duplicates;
    batch = [];
  };
  const input = createReadStream(file, { encoding: 'utf8' });
  const opened = new Promise<void>((resolve, reject) => {
    input.once('open', () => resolve());
    input.once('error', reject);
  });
  try {
    await opened;
  } catch (err) {
    throw new UsageError(`${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { file, key: 'file' });
  }
  const lines = createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    result.lines++;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`${file}:${n}: expected one JSON object per line, found text that is not JSON`, { file, line: n });
    }
    let spans: ProductionSpan[];
    try {
      spans = isExport(value) ? productionSpansOf(decodeOtlpJson(value)) : [flatRecord(value, line)];
    } catch (err) {
      if (OtlpError.isInstance(err))
        throw new UsageError(`${file}:${n}: ${err.message}`, { file, line: n, ...(err.where?.path ? { path: err.where.path } : {}) });
      throw err;
    }
    result.spans += spans.length;
    pushAll(batch, spans);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return result;
}

function isExport(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'resourceSpans' in v;
}

const HEX32 = /^[0-9a-f]{32}$/i;
const HEX16 = /^[0-9a-f]{16}$/i;

/** One call as a flat record (see ingestFile). */
function flatRecord(v: unknown, line: string): ProductionSpan {
  const fail = (field: string, expected: string, found: unknown): never => {
    const shown = found === undefined ? 'nothing' : (JSON.stringify(found) ?? String(found)).slice(0, 60);
    throw new OtlpError(`${field}: expected ${expected}, found ${shown}`, { path: field });
  };
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail('line', 'an OTLP export ({"resourceSpans": …}) or a record object', v);
  const r = v as Record<string, unknown>;
  const text = (k: string, required = false): string | undefined => {
    const x = r[k];
    if (x === undefined || x === null) return required ? fail(k, 'a non-empty string', x) : undefined;
    if (typeof x !== 'string' || (required && x.trim() === '')) return fail(k, 'a non-empty string', x);
    return x;
  };
  const service = text('service', true);
  const operation = text('operation', true);
  const output = text('output');
  const error = text('error');
  if (output === undefined && error === undefined) fail('output', 'a string (or an error)', undefined);
  const start = text('start');
  const startMs = start === undefined ? 0 : Date.parse(start);
  if (Number.isNaN(startMs)) fail('start', 'an ISO 8601 time', start);
  const latency = r.latencyMs ?? 0;
  if (typeof latency !== 'number' || !(latency >= 0)) fail('latencyMs', 'a number ≥ 0', latency);
  const traceId = text('traceId');
  const spanId = text('spanId');
  if (traceId !== undefined && !HEX32.test(traceId)) fail('traceId', '32 hex digits', traceId);
  if (spanId !== undefined && !HEX16.test(spanId)) fail('spanId', '16 hex digits', spanId);
  const hash = createHash('sha256').update(line).digest('hex');
  let usage: ProductionSpan['usage'];
  if (r.usage !== undefined) {
    const u = r.usage as Record<string, unknown>;
    const ok = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 0;
    if (typeof u !== 'object' || u === null || !ok(u.promptTokens ?? 0) || !ok(u.completionTokens ?? 0))
      fail('usage', '{"promptTokens": n, "completionTokens": n} with whole numbers ≥ 0', r.usage);
    usage = { promptTokens: (u.promptTokens as number | undefined) ?? 0, completionTokens: (u.completionTokens as number | undefined) ?? 0 };
  }
  const input = text('input');
  const model = text('model');
  return {
    traceId: (traceId ?? hash.slice(0, 32)).toLowerCase(),
    spanId: (spanId ?? hash.slice(32, 48)).toLowerCase(),
    kind: 'sample',
    experiment: productionExperimentName(service, operation),
    name: operation!,
    startMs,
    endMs: startMs + (latency as number),
    ...(input !== undefined ? { input } : {}),
    ...(output !== undefined ? { output } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(usage ? { usage } : {}),
    ...(error !== undefined ? { error } : {}),
  };
}

import type protobuf from 'protobufjs';
import { hasMarker, setMarker, UsageError, thrownMessage } from '../errors.js';
import { lazyPackage } from '../lazy.js';
import { OTLP_TRACE_DESCRIPTOR } from './otlp-schema.js';

/**
 * OTLP trace export requests (OTLP/HTTP, protobuf or JSON) read into plain spans. Everything is checked
 * before anything is used: a request that is not a well-formed export is refused whole with an OtlpError
 * naming the field (`resourceSpans[0].scopeSpans[0].spans[3].spanId: expected 16 hex digits, found "xyz"`).
 */

/** An attribute's value, as OTLP's AnyValue holds it (bytes as base64; 64-bit integers as numbers when exact, else strings). */
export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };

export interface OtlpEvent {
  name: string;
  timeMs: number;
  attributes: Record<string, AttributeValue>;
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startMs: number;
  endMs: number;
  attributes: Record<string, AttributeValue>;
  events: OtlpEvent[];
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage?: string;
  /** The resource's attributes (service.name, …). */
  resource: Record<string, AttributeValue>;
  /** The instrumentation scope's name (e.g. `ai` for the AI SDK). */
  scope?: string;
}

const OTLP_ERROR = Symbol.for('assay.OtlpError');

/** A trace export that is not one: the server answers 400 with its one-line message; `assay ingest` exits 2. */
export class OtlpError extends UsageError {
  constructor(message: string, where?: { file?: string; path?: string; line?: number }) {
    super(message, where);
    this.name = 'OtlpError';
    setMarker(this, OTLP_ERROR);
  }

  static override isInstance(err: unknown): err is OtlpError {
    return hasMarker(err, OTLP_ERROR);
  }
}

/** Attribute values nested deeper than this are replaced by DEEPER (a hostile export cannot make the reader recurse without end). */
const MAX_DEPTH = 8;
const DEEPER = `[nested deeper than ${MAX_DEPTH} levels]`;

const protobufPackage = lazyPackage<typeof protobuf>('protobufjs');
let requestType: protobuf.Type | undefined;

/** Decode a protobuf-encoded ExportTraceServiceRequest. */
export function decodeOtlpProtobuf(bytes: Uint8Array): OtlpSpan[] {
  const pb = protobufPackage();
  requestType ??= pb.Root.fromJSON(OTLP_TRACE_DESCRIPTOR as unknown as protobuf.INamespace).lookupType('ExportTraceServiceRequest');
  let message: protobuf.Message;
  try {
    message = requestType.decode(bytes);
  } catch (err) {
    throw new OtlpError(`the body is not a protobuf ExportTraceServiceRequest: ${oneLine(err)}`);
  }
  let value: unknown;
  try {
    value = requestType.toObject(message, { longs: String, bytes: String, defaults: false, arrays: true });
  } catch (err) {
    throw new OtlpError(`the body is not a protobuf ExportTraceServiceRequest: ${oneLine(err)}`);
  }
  return readRequest(value, 'base64');
}

/** Read an ExportTraceServiceRequest in OTLP/JSON (the parsed body). */
export function decodeOtlpJson(value: unknown): OtlpSpan[] {
  return readRequest(value, 'hex');
}

function oneLine(err: unknown): string {
  return thrownMessage(err).split('\n')[0].slice(0, 200);
}

function shown(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

function fail(path: string, expected: string, found: unknown): never {
  throw new OtlpError(`${path}: expected ${expected}, found ${shown(found)}`, { path });
}

function object(v: unknown, path: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(path, 'an object', v);
  return v as Record<string, unknown>;
}

function list(v: unknown, path: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(path, 'an array', v);
  return v;
}

function optionalString(v: unknown, path: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') fail(path, 'a string', v);
  return v;
}

const HEX = { 16: /^[0-9a-f]{32}$/, 8: /^[0-9a-f]{16}$/ } as const;

/** A trace id (16 bytes) or span id (8 bytes), as lowercase hex; undefined for an empty one (a root's parent). */
function id(v: unknown, bytes: 8 | 16, encoding: 'hex' | 'base64', path: string, required: boolean): string | undefined {
  if (v === undefined || v === null || v === '') {
    if (required) fail(path, `${bytes * 2} hex digits`, v);
    return undefined;
  }
  if (typeof v !== 'string') fail(path, `${bytes * 2} hex digits`, v);
  const hex = encoding === 'hex' ? v.toLowerCase() : Buffer.from(v, 'base64').toString('hex');
  if (!HEX[bytes].test(hex) || /^0+$/.test(hex)) fail(path, encoding === 'hex' ? `${bytes * 2} hex digits, not all zero` : `${bytes} bytes, not all zero`, v);
  return hex;
}

/** Nanoseconds since the epoch (a decimal string or a number, as OTLP/JSON allows) as milliseconds. */
function nanosToMs(v: unknown, path: string): number {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v / 1e6;
  if (typeof v === 'string' && /^\d{1,20}$/.test(v)) {
    const ns = BigInt(v);
    return Number(ns / 1000n) / 1000;
  }
  return fail(path, 'nanoseconds since the epoch (a whole number)', v);
}

function anyValue(v: unknown, path: string, depth: number): AttributeValue {
  if (v === undefined || v === null) return null;
  const o = object(v, path);
  if ('stringValue' in o) return optionalString(o.stringValue, `${path}.stringValue`) ?? '';
  if ('boolValue' in o) {
    if (typeof o.boolValue !== 'boolean') fail(`${path}.boolValue`, 'true or false', o.boolValue);
    return o.boolValue;
  }
  if ('intValue' in o) {
    const i = o.intValue;
    if (typeof i === 'number' && Number.isInteger(i)) return i;
    if (typeof i === 'string' && /^-?\d{1,20}$/.test(i)) return Number.isSafeInteger(Number(i)) ? Number(i) : i;
    return fail(`${path}.intValue`, 'a whole number', i);
  }
  if ('doubleValue' in o) {
    const d = o.doubleValue;
    if (typeof d === 'number') return d;
    if (d === 'NaN' || d === 'Infinity' || d === '-Infinity') return String(d);
    return fail(`${path}.doubleValue`, 'a number', d);
  }
  if ('bytesValue' in o) return optionalString(o.bytesValue, `${path}.bytesValue`) ?? '';
  if ('arrayValue' in o) {
    if (depth >= MAX_DEPTH) return DEEPER;
    const values = list(object(o.arrayValue ?? {}, `${path}.arrayValue`).values, `${path}.arrayValue.values`);
    return values.map((x, n) => anyValue(x, `${path}.arrayValue.values[${n}]`, depth + 1));
  }
  if ('kvlistValue' in o) {
    if (depth >= MAX_DEPTH) return DEEPER;
    const values = list(object(o.kvlistValue ?? {}, `${path}.kvlistValue`).values, `${path}.kvlistValue.values`);
    return attributes(values, `${path}.kvlistValue.values`, depth + 1);
  }
  return null; // an empty AnyValue
}

function attributes(v: unknown, path: string, depth = 0): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = Object.create(null) as Record<string, AttributeValue>;
  list(v, path).forEach((kv, n) => {
    const o = object(kv, `${path}[${n}]`);
    const key = optionalString(o.key, `${path}[${n}].key`);
    if (key === undefined) fail(`${path}[${n}].key`, 'a string', o.key);
    out[key] = anyValue(o.value, `${path}[${n}].value`, depth);
  });
  return out;
}

function readRequest(value: unknown, ids: 'hex' | 'base64'): OtlpSpan[] {
  const body = object(value, 'body');
  const spans: OtlpSpan[] = [];
  list(body.resourceSpans, 'resourceSpans').forEach((rs, r) => {
    const rPath = `resourceSpans[${r}]`;
    const ro = object(rs, rPath);
    const resource =
      ro.resource === undefined || ro.resource === null ? {} : attributes(object(ro.resource, `${rPath}.resource`).attributes, `${rPath}.resource.attributes`);
    list(ro.scopeSpans, `${rPath}.scopeSpans`).forEach((ss, s) => {
      const sPath = `${rPath}.scopeSpans[${s}]`;
      const so = object(ss, sPath);
      const scope = so.scope === undefined || so.scope === null ? undefined : optionalString(object(so.scope, `${sPath}.scope`).name, `${sPath}.scope.name`);
      list(so.spans, `${sPath}.spans`).forEach((sp, n) => {
        const path = `${sPath}.spans[${n}]`;
        const o = object(sp, path);
        const status = o.status === undefined || o.status === null ? {} : object(o.status, `${path}.status`);
        const code = status.code ?? 0;
        if (code !== 0 && code !== 1 && code !== 2) fail(`${path}.status.code`, '0, 1 or 2', code);
        const startMs = nanosToMs(o.startTimeUnixNano, `${path}.startTimeUnixNano`);
        const endMs = nanosToMs(o.endTimeUnixNano, `${path}.endTimeUnixNano`);
        if (endMs < startMs) fail(`${path}.endTimeUnixNano`, 'a time no earlier than startTimeUnixNano', o.endTimeUnixNano);
        const parentSpanId = id(o.parentSpanId, 8, ids, `${path}.parentSpanId`, false);
        const statusMessage = optionalString(status.message, `${path}.status.message`);
        spans.push({
          traceId: id(o.traceId, 16, ids, `${path}.traceId`, true)!,
          spanId: id(o.spanId, 8, ids, `${path}.spanId`, true)!,
          ...(parentSpanId ? { parentSpanId } : {}),
          name: optionalString(o.name, `${path}.name`) ?? '',
          startMs,
          endMs,
          attributes: attributes(o.attributes, `${path}.attributes`),
          events: list(o.events, `${path}.events`).map((e, k) => {
            const eo = object(e, `${path}.events[${k}]`);
            return {
              name: optionalString(eo.name, `${path}.events[${k}].name`) ?? '',
              timeMs: eo.timeUnixNano === undefined ? startMs : nanosToMs(eo.timeUnixNano, `${path}.events[${k}].timeUnixNano`),
              attributes: attributes(eo.attributes, `${path}.events[${k}].attributes`),
            };
          }),
          statusCode: code as number,
          ...(statusMessage ? { statusMessage } : {}),
          resource,
          ...(scope ? { scope } : {}),
        });
      });
    });
  });
  return spans;
}

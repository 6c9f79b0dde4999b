import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getConnInfo } from '@hono/node-server/conninfo';
import * as z from 'zod';
import { firstIssue } from '../core/issues.js';
import { PoolOverloadedError, WorkerCrashedError } from '../ground/pool/pool.js';
import {
  GroundingRequestError,
  GroundingUnavailableError,
  MAX_ANSWER_CHARS,
  MAX_QUERY_CHARS,
  type AnalyzeRequest,
  type GroundingEngine,
} from '../ground/types.js';
import { RateLimiter, type RequestLimiter, type ServerLimits } from './limits.js';

/** The design's request, strictly: an unknown field is most likely a typo and is named in the 400. */
const AnalyzeRequestSchema = z
  .object({
    // Messages come from the one translator (core/issues.ts): `query: expected a non-empty string, found ""`.
    query: z.string().trim().min(1).max(MAX_QUERY_CHARS),
    answer: z.string().max(MAX_ANSWER_CHARS).optional(),
    top_k: z.number().int().min(1).max(50).optional(),
  })
  .strict();

export interface ApiError {
  error: string;
  message: string;
  field?: string;
}

function fail(c: Context, status: 400 | 401 | 404 | 413 | 415 | 422 | 429 | 500 | 503 | 504, body: ApiError) {
  return c.json(body, status);
}

/** Turns a parsed JSON value into a request, or a 400 body naming the first offending field. */
export function validateAnalyzeRequest(value: unknown): { ok: true; request: AnalyzeRequest } | { ok: false; error: ApiError } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      error: {
        error: 'invalid_request',
        message: `the body must be a JSON object, found ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`,
      },
    };
  }
  const parsed = AnalyzeRequestSchema.safeParse(value, { reportInput: true });
  if (parsed.success) return { ok: true, request: parsed.data };
  return { ok: false, error: { error: 'invalid_request', ...firstIssue(parsed.error, AnalyzeRequestSchema) } };
}

/**
 * Only `application/json`, in UTF-8 (RFC 8259): a charset parameter, when given, must be utf-8. Anything else,
 * or no Content-Type at all, is 415 — an HTML form (text/plain, form-encoded) cannot post to /analyze.
 * Returns the message of the 415, or undefined when the type is accepted.
 */
export function checkMediaType(header: string | undefined): string | undefined {
  const expected = 'expected Content-Type: application/json (UTF-8)';
  if (header === undefined || header.trim() === '') return `${expected}, found no Content-Type`;
  const [type, ...params] = header.split(';');
  if (type.trim().toLowerCase() !== 'application/json') return `${expected}, found ${header.slice(0, 100)}`;
  for (const p of params) {
    const [name, value = ''] = p.split('=');
    if (name.trim().toLowerCase() === 'charset' && value.trim().replace(/^"|"$/g, '').toLowerCase() !== 'utf-8') {
      return `${expected}, found charset ${value.trim().slice(0, 40)}`;
    }
  }
  return undefined;
}

/** The client a request's budget is kept for: its address (one shared bucket in-process). */
export function clientKey(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // Not behind @hono/node-server (e.g. app.request in-process): one shared bucket.
    return 'local';
  }
}

/** POST /analyze: validation → 400, size → 413, per-client rate → 429, overload → 503, time limit → 504. */
export function registerAnalyze(app: Hono, engine: GroundingEngine | undefined, limits: ServerLimits, shared?: RequestLimiter): void {
  // Replicas given one (assay serve --redis) share each client's budget; otherwise this process keeps its own.
  const limiter: RequestLimiter = shared ?? new RateLimiter(limits.rateBurst, limits.ratePerSecond);
  let inFlight = 0;

  app.post(
    '/analyze',
    async (c, next) => {
      const wait = await limiter.take(clientKey(c));
      if (wait > 0) {
        c.header('Retry-After', String(Math.max(1, Math.ceil(wait))));
        return fail(c, 429, { error: 'rate_limited', message: `too many requests from this client; retry after ${Math.ceil(wait)} s` });
      }
      return next();
    },
    bodyLimit({
      maxSize: limits.maxBodyBytes,
      onError: (c) => fail(c, 413, { error: 'payload_too_large', message: `the body exceeds the ${limits.maxBodyBytes}-byte limit` }),
    }),
    async (c) => {
      if (!engine) return fail(c, 503, { error: 'no_knowledge_base', message: 'this server has no knowledge base: start it with --kb <dir>' });
      const type = c.req.header('content-type');
      const media = checkMediaType(type);
      if (media) return fail(c, 415, { error: 'unsupported_media_type', message: media });
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(await c.req.arrayBuffer());
      } catch {
        return fail(c, 400, { error: 'invalid_encoding', message: 'the body is not valid UTF-8' });
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return fail(c, 400, { error: 'invalid_json', message: 'the body is not valid JSON' });
      }
      const checked = validateAnalyzeRequest(body);
      if (!checked.ok) return fail(c, 400, checked.error);

      if (inFlight >= limits.maxInFlight) {
        c.header('Retry-After', '1');
        return fail(c, 503, { error: 'overloaded', message: `${inFlight} analyses are already in progress (running or waiting for a worker); retry shortly` });
      }
      inFlight++;
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(new Error('timeout')), limits.requestTimeoutMs);
      const signal = AbortSignal.any([timeout.signal, c.req.raw.signal]);
      try {
        const timedOut = new Promise<'timeout'>((resolve) => timeout.signal.addEventListener('abort', () => resolve('timeout'), { once: true }));
        const result = await Promise.race([engine.analyze(checked.request, signal), timedOut]);
        if (result === 'timeout') {
          return fail(c, 504, { error: 'timeout', message: `the analysis did not finish within ${limits.requestTimeoutMs} ms` });
        }
        return c.json(result, 200);
      } catch (err) {
        if (GroundingRequestError.isInstance(err)) return fail(c, err.status, { error: 'invalid_request', message: err.message, field: err.field });
        if (GroundingUnavailableError.isInstance(err)) {
          c.header('Retry-After', '5');
          return fail(c, 503, { error: 'unavailable', message: err.message });
        }
        // The worker pool (ground/pool): every worker busy and its queue full; or the worker running this analysis died.
        if (PoolOverloadedError.isInstance(err)) {
          c.header('Retry-After', '1');
          return fail(c, 503, { error: 'overloaded', message: err.message });
        }
        if (WorkerCrashedError.isInstance(err)) {
          const why = err.outOfMemory ? 'ran out of memory' : 'crashed';
          return fail(c, 500, { error: 'analysis_crashed', message: `the analysis of this request ${why}; its worker was replaced and the service goes on` });
        }
        if (timeout.signal.aborted) return fail(c, 504, { error: 'timeout', message: `the analysis did not finish within ${limits.requestTimeoutMs} ms` });
        throw err;
      } finally {
        clearTimeout(timer);
        inFlight--;
      }
    },
  );
}

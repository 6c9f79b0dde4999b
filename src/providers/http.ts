import type { InputValue } from '../core/validator.js';
import { abortError, ANSWER, excerpt, messageOf, networkError, statusError } from './errors.js';
import { sharedNodeFetch } from './transport.js';
import { getPath, parsePath, renderJsonTemplate, renderTemplate } from './template.js';
import { ProviderError, type GenerateOptions, type Generation, type SystemUnderTest } from './types.js';

export interface HttpSystemOptions {
  url: string;
  /** Default POST. GET sends no body (put `{{field}}` in the URL instead). */
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Header values with `${VAR}` already expanded (the factory does it). */
  headers?: Record<string, string>;
  /**
   * Body template. An object/array is a JSON template: a string leaf that is exactly `{{field}}` becomes that
   * value (`"{{input}}"` is the whole input); other strings are interpolated. A string is sent as text with
   * `{{field}}` interpolated. Default `{ "input": "{{input}}" }`.
   */
  body?: unknown;
  /** Where the output is in a JSON answer, e.g. `data.choices[0].text`; default: the whole body (a JSON string is unquoted). */
  outputPath?: string;
}

const DEFAULT_BODY = { input: '{{input}}' };

/** The user's own application behind an HTTP endpoint, called over keep-alive node:http (see transport.ts). */
export class HttpSystem implements SystemUnderTest {
  readonly id: string;
  private readonly path?: (string | number)[];

  constructor(private readonly options: HttpSystemOptions) {
    this.id = `http:${options.url}`;
    this.path = options.outputPath !== undefined ? parsePath(options.outputPath) : undefined;
  }

  /** The request for one input: URL with `{{field}}` URL-encoded, headers, and the rendered body. */
  request(input: InputValue): { url: string; init: RequestInit } {
    const method = this.options.method ?? 'POST';
    const url = renderTemplate(this.options.url, input, encodeURIComponent);
    const headers = new Headers(this.options.headers ?? {});
    let body: string | undefined;
    if (method !== 'GET') {
      const template = this.options.body ?? DEFAULT_BODY;
      if (typeof template === 'string') {
        body = renderTemplate(template, input);
        if (!headers.has('content-type')) headers.set('content-type', 'text/plain; charset=utf-8');
      } else {
        body = JSON.stringify(renderJsonTemplate(template, input));
        if (!headers.has('content-type')) headers.set('content-type', 'application/json');
      }
    }
    return { url, init: { method, headers, body } };
  }

  async generate(input: InputValue, { signal }: GenerateOptions): Promise<Generation> {
    const who = this.id;
    if (signal.aborted) throw abortError(signal, who);
    let req: { url: string; init: RequestInit };
    try {
      req = this.request(input);
    } catch (err) {
      throw new ProviderError('client', `${who}: ${messageOf(err)}`, { cause: err });
    }
    const started = performance.now();
    let raw: string;
    let status: number;
    let headers: Headers;
    try {
      const res = await sharedNodeFetch()(req.url, { ...req.init, signal });
      status = res.status;
      headers = res.headers;
      raw = await res.text();
    } catch (err) {
      throw networkError(who, err, signal);
    }
    const latencyMs = performance.now() - started;
    if (status < 200 || status >= 300) throw statusError(who, status, headers, raw);
    return { text: this.extract(raw, headers), latencyMs };
  }

  /** The output text from the answer body. */
  private extract(raw: string, headers: Headers): string {
    const who = this.id;
    if (this.path === undefined) {
      if (/json/i.test(headers.get('content-type') ?? '')) {
        try {
          const v: unknown = JSON.parse(raw);
          if (typeof v === 'string') return v;
        } catch {
          // Not really JSON: the body is the output as it is.
        }
      }
      return raw;
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw new ProviderError(
        'invalid_response',
        `${who}: the answer is not JSON, so outputPath ${this.options.outputPath} cannot be read${ANSWER}${excerpt(raw)}`,
      );
    }
    const v = getPath(json, this.path);
    if (v === undefined || v === null) {
      throw new ProviderError(
        'invalid_response',
        v === null
          ? `${who}: outputPath ${this.options.outputPath} is null in the answer${ANSWER}${excerpt(raw)}`
          : `${who}: outputPath ${this.options.outputPath} is not in the answer (${whereMissing(json, this.path!)})${ANSWER}${excerpt(raw)}`,
      );
    }
    return typeof v === 'string' ? v : JSON.stringify(v);
  }
}

/**
 * Where a path leaves the answer, e.g. "choices.0 has index, message, finish_reason": the same for every answer
 * of one endpoint, so a wrong outputPath is one error group (and fails fast) however the answers' texts differ.
 */
export function whereMissing(json: unknown, parts: (string | number)[]): string {
  let v = json;
  let at = 0;
  for (; at < parts.length; at++) {
    const next = getPath(v, [parts[at]]);
    if (next === undefined || next === null) break;
    v = next;
  }
  const where = at === 0 ? 'the answer' : parts.slice(0, at).join('.');
  if (Array.isArray(v)) return `${where} is an array of ${v.length}`;
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v);
    return keys.length ? `${where} has ${keys.slice(0, 12).join(', ')}${keys.length > 12 ? ', …' : ''}` : `${where} is an empty object`;
  }
  return `${where} is ${v === null ? 'null' : `a ${typeof v}`}`;
}

import type { IncomingHttpHeaders } from 'node:http';

/**
 * A fetch `Response` whose body is already read into memory, for `createNodeFetch` (transport.ts).
 *
 * Why not `new Response(bytes)`: undici's Response and Headers wrap every body in a WHATWG stream and copy
 * every header, about 0.15 ms of CPU a call at the runner's rates for nothing a JSON client uses. This
 * class offers what clients of request/response APIs read (status, ok, headers.get, text, json,
 * arrayBuffer, bytes, blob, body, clone), with fetch's semantics: a body is read once, text drops a
 * UTF-8 BOM, header names are case-insensitive and repeated values are joined with ", ".
 */

const BOM = 0xfeff;

/** Read-only view of Node's already-lowercased response headers, with the methods of `Headers`. */
export class BufferedHeaders {
  constructor(private readonly raw: IncomingHttpHeaders) {}

  get(name: string): string | null {
    const v = this.raw[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : String(v);
  }

  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }

  forEach(fn: (value: string, name: string, parent: BufferedHeaders) => void): void {
    for (const [name, value] of this.entries()) fn(value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.raw).sort()) {
      const v = this.get(name);
      if (v !== null) yield [name, v];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

export class BufferedResponse {
  readonly ok: boolean;
  readonly headers: BufferedHeaders;
  readonly redirected = false;
  readonly type = 'basic';
  private used = false;
  private stream: ReadableStream<Uint8Array> | null | undefined;

  constructor(
    private readonly data: Buffer | null,
    readonly status: number,
    readonly statusText: string,
    headers: IncomingHttpHeaders,
    readonly url: string,
  ) {
    this.ok = status >= 200 && status <= 299;
    this.headers = new BufferedHeaders(headers);
  }

  get bodyUsed(): boolean {
    return this.used;
  }

  /** A stream over the bytes, made on first access (JSON clients never ask for it). */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.stream === undefined) {
      const data = this.data;
      this.stream =
        data === null
          ? null
          : new ReadableStream<Uint8Array>({
              pull: (controller) => {
                this.used = true;
                if (data.length) controller.enqueue(new Uint8Array(data));
                controller.close();
              },
            });
    }
    return this.stream;
  }

  // TypeError where fetch's Response throws one: its readers expect a Response's errors.
  private consume(): Buffer {
    if (this.used) throw new TypeError('Body is unusable: Body has already been read');
    this.used = true;
    return this.data ?? Buffer.alloc(0);
  }

  async text(): Promise<string> {
    const b = this.consume();
    const s = b.toString('utf8');
    return s.charCodeAt(0) === BOM ? s.slice(1) : s;
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = this.consume();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(await this.arrayBuffer());
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.arrayBuffer()], { type: this.headers.get('content-type') ?? '' });
  }

  clone(): BufferedResponse {
    if (this.used) throw new TypeError('Response.clone: Body has already been consumed.');
    const raw: IncomingHttpHeaders = {};
    for (const [k, v] of this.headers) raw[k] = v;
    return new BufferedResponse(this.data, this.status, this.statusText, raw, this.url);
  }
}

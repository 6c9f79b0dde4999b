import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/**
 * Text a report writes before it can be placed (its rows, while the summary above them is not yet known): in
 * memory for a report built as a string, in a temporary file for a streamed one, so a report of a million
 * answers holds a buffer, not the report.
 */
export interface Spool {
  write(text: string): void;
  /** The text written, in order, in pieces. */
  chunks(): Iterable<string | Buffer>;
  /** The text written, line by line (split at \n, without it). */
  lines(): Iterable<string>;
}

export class MemorySpool implements Spool {
  private readonly parts: string[] = [];
  write(text: string): void {
    this.parts.push(text);
  }
  chunks(): Iterable<string> {
    return this.parts;
  }
  *lines(): Iterable<string> {
    const text = this.parts.join('');
    if (!text) return;
    yield* (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
  }
}

const BUFFERED = 1 << 16;
const READ = 1 << 20;

/** A spool in a file of `dir`, written in 64 KiB pieces (synchronously: the writer never gets ahead of the disk). */
export class FileSpool implements Spool {
  private readonly fd: number;
  private pending: string[] = [];
  private held = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'w+');
  }

  write(text: string): void {
    this.pending.push(text);
    this.held += text.length;
    if (this.held >= BUFFERED) this.flush();
  }

  private flush(): void {
    if (!this.pending.length) return;
    const buf = Buffer.from(this.pending.join(''), 'utf8');
    this.pending = [];
    this.held = 0;
    for (let at = 0; at < buf.length;) at += writeSync(this.fd, buf, at);
  }

  *chunks(): Iterable<Buffer> {
    this.flush();
    const buf = Buffer.allocUnsafe(READ);
    for (let at = 0; ;) {
      const n = readSync(this.fd, buf, 0, READ, at);
      if (n === 0) return;
      at += n;
      // A copy: the caller may hold it while the next piece is read.
      yield Buffer.from(buf.subarray(0, n));
    }
  }

  *lines(): Iterable<string> {
    const decoder = new StringDecoder('utf8');
    let rest = '';
    for (const chunk of this.chunks()) {
      const text = rest + decoder.write(chunk);
      const parts = text.split('\n');
      rest = parts.pop()!;
      yield* parts;
    }
    rest += decoder.end();
    if (rest) yield rest;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** A temporary folder of file spools, removed with them by `dispose`. */
export class SpoolFolder {
  private dir?: string;
  private readonly open: FileSpool[] = [];

  spool(): FileSpool {
    this.dir ??= mkdtempSync(join(tmpdir(), 'assay-report-'));
    const s = new FileSpool(join(this.dir, `${this.open.length}.part`));
    this.open.push(s);
    return s;
  }

  dispose(): void {
    for (const s of this.open.splice(0)) s.close();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}

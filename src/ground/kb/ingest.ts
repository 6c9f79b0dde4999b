import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { UsageError } from '../../errors.js';
import type { ChunkOptions } from './chunk.js';
import { sameSpec, type KbEmbedder } from '../embedders/spec.js';
import { extractText, isSupported, SUPPORTED_EXTENSIONS } from './extract.js';
import { buildKnowledgeBase, segmentDocument, type KbDocument, type KnowledgeBase } from './kb.js';
import { describeSpec, hasManifest, openKnowledgeBase, saveKnowledgeBase } from './kb-store.js';

export interface IngestOptions {
  embedder: KbEmbedder;
  chunk?: ChunkOptions;
  /** Base for the recorded source paths (default: the working directory). */
  cwd?: string;
  onProgress?: (done: number, total: number) => void;
}

export interface IngestSummary {
  added: string[];
  updated: string[];
  unchanged: string[];
  documents: number;
  chunks: number;
  windows: number;
  seconds: number;
}

/** Files under the given paths (directories recursively, supported types only, sorted). */
export async function collectFiles(paths: string[]): Promise<string[]> {
  const out: string[] = [];
  const walk = async (p: string, explicit: boolean): Promise<void> => {
    if (!existsSync(p)) throw new UsageError(`${p}: no such file or directory`, { file: p });
    const s = await stat(p);
    if (s.isDirectory()) {
      for (const name of (await readdir(p)).sort()) if (!name.startsWith('.')) await walk(join(p, name), false);
    } else if (isSupported(p)) {
      out.push(p);
    } else if (explicit) {
      throw new UsageError(`${p}: unsupported file type; expected one of ${SUPPORTED_EXTENSIONS.join(', ')}`, { file: p });
    }
  };
  for (const p of paths) await walk(p, true);
  return [...new Set(out.map((p) => resolve(p)))];
}

/**
 * `assay kb ingest`: add or update files in the KB at `dir`. Unchanged files (same path, same sha256)
 * are not extracted, chunked or embedded again. Files already in the KB but not named here are kept.
 * The lexical embedder refits its IDF on the whole KB, so its vectors are all recomputed (cheap).
 */
export async function ingest(dir: string, paths: string[], options: IngestOptions): Promise<IngestSummary & { kb: KnowledgeBase }> {
  const t0 = performance.now();
  const cwd = options.cwd ?? process.cwd();
  const kbRoot = resolve(cwd, dir);
  const posix = (p: string) => p.split(sep).join('/');
  // A file's identity is its path relative to the KB directory: the same from any working directory.
  const keyOf = (file: string) => posix(relative(kbRoot, file));
  const files = await collectFiles(paths);
  if (files.length === 0) throw new UsageError(`no supported files under ${paths.join(', ')} (expected ${SUPPORTED_EXTENSIONS.join(', ')})`);
  const previous = new Map<string, KbDocument>();
  const reuse = new Map<string, Float32Array>();
  let existing: KnowledgeBase | undefined;
  if (await hasManifest(kbRoot)) {
    const { kb, manifest } = await openKnowledgeBase(kbRoot, { embedder: options.embedder });
    if (!sameSpec(options.embedder.spec(), manifest.embedder)) throw new UsageError(`knowledge base ${dir} was built with ${describeSpec(manifest.embedder)}`);
    const chunking = { ...kb.chunkOptions, ...(options.chunk ?? {}) };
    if (JSON.stringify(chunking) !== JSON.stringify(kb.chunkOptions)) {
      throw new UsageError(`knowledge base ${dir} was chunked with ${JSON.stringify(kb.chunkOptions)}; re-ingest into a fresh directory to change chunking`);
    }
    const dim = kb.embedder.dimension;
    let w = 0;
    for (const d of kb.documents) {
      // KBs written before `path` existed: their sources were relative to the working directory of that ingest.
      previous.set(d.path ?? keyOf(resolve(cwd, d.source)), d);
      reuse.set(d.sha256, kb.windowVectors.slice(w * dim, (w + d.windows.length) * dim));
      w += d.windows.length;
    }
    options = { ...options, chunk: kb.chunkOptions };
    existing = kb;
  }
  const summary: IngestSummary = { added: [], updated: [], unchanged: [], documents: 0, chunks: 0, windows: 0, seconds: 0 };
  const docs = new Map(previous);
  const labels = new Set([...previous.values()].map((d) => d.source));
  for (const file of files) {
    const key = keyOf(file);
    const data = await readFile(file);
    const hash = createHash('sha256').update(data).digest('hex');
    const before = previous.get(key);
    if (before && before.sha256 === hash) {
      summary.unchanged.push(before.source);
      continue;
    }
    // The label stays stable across re-ingests; a new file is labelled relative to the working directory,
    // unless another file already carries that label (then by its path from the KB, which is unique).
    let source = before?.source ?? posix(relative(cwd, file));
    if (!before && labels.has(source)) source = key;
    labels.add(source);
    const text = await extractText(file);
    docs.set(key, segmentDocument({ source, path: key, sha256: hash, text }, options.embedder, options.chunk ?? {}));
    (before ? summary.updated : summary.added).push(source);
  }
  const finish = (kb: KnowledgeBase) => ({
    ...summary,
    documents: kb.documents.length,
    chunks: kb.chunks.length,
    windows: kb.windowCount,
    seconds: (performance.now() - t0) / 1000,
    kb,
  });
  if (existing && summary.added.length === 0 && summary.updated.length === 0) return finish(existing);
  const documents = [...docs.values()].sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  const kb = await buildKnowledgeBase(documents, options.embedder, { chunk: options.chunk, reuse, onProgress: options.onProgress });
  await saveKnowledgeBase(kb, kbRoot);
  return finish(kb);
}

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import type { ChunkOptions } from './chunk.js';
import { sameSpec, stableJson, type EmbedderSpec, type KbEmbedder } from '../embedders/spec.js';
import { KnowledgeBase, type KbDocument } from './kb.js';
import type { SupportThresholds } from '../types.js';
import { assayCommandLine } from '../../invocation.js';

/**
 * The knowledge base on disk, one directory:
 *   manifest.json   format, embedder spec, chunking, counts, size + sha256 of every other file, own checksum
 *   meta.json       documents (source, path, sha256, extracted text, chunk and window offsets)
 *   windows.f32     window vectors, little-endian Float32, row-major
 *   chunks.f32      chunk vectors, same layout
 *   embedder.bin    embedder state (the lexical IDF), when the embedder has one
 *   calibration.json  thresholds fitted by `assay calibrate` (optional)
 * The data files carry a generation tag in their names (meta-<gen>.json, …), recorded in the manifest.
 * The manifest is written last and the old generation removed after it, so an interrupted ingest leaves
 * the previous KB intact (or, for a first ingest, files without a manifest: detected on open).
 */

export const KB_FORMAT = 'assay-kb';
export const KB_VERSION = 1;

export interface FileEntry {
  bytes: number;
  sha256: string;
  /**
   * The file's name in the KB directory. Each save writes new names (a generation tag), so the files of
   * the previous manifest stay intact until the new manifest replaces it. Absent: the logical name itself.
   */
  name?: string;
}

export interface KbManifest {
  format: typeof KB_FORMAT;
  version: number;
  embedder: EmbedderSpec;
  chunking: Required<ChunkOptions>;
  counts: { documents: number; chunks: number; windows: number };
  files: Record<string, FileEntry>;
  updated: string;
  /** sha256 of the manifest's other fields (stable JSON). */
  checksum: string;
}

export interface Calibration {
  embedder: string;
  thresholds: SupportThresholds;
  balanced_accuracy: number;
  n: number;
  fitted: string;
}

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');
const bytesOf = (v: Float32Array) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);

function manifestChecksum(m: Omit<KbManifest, 'checksum'> & { checksum?: string }): string {
  const { checksum: _c, ...rest } = m;
  return sha256(stableJson(rest));
}

/** Write a file through a temporary name and rename, so readers never see half a file. */
async function atomicWrite(path: string, data: Uint8Array | string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, data);
  await rename(tmp, path);
}

/** Names of the data files a save writes: `meta-<gen>.json`, … (and the unversioned names of older KBs). */
const DATA_FILE = /^(meta|windows|chunks|embedder)(-[0-9a-z]+)?\.(json|f32|bin)$/;

export async function saveKnowledgeBase(kb: KnowledgeBase, dir: string): Promise<KbManifest> {
  await ensureDirectory(dir);
  const gen = `${Date.now().toString(36)}${process.pid.toString(36)}`;
  const versioned = (name: string) => name.replace(/\.(json|f32|bin)$/, `-${gen}.$1`);
  const files: Record<string, Uint8Array> = {
    'meta.json': new TextEncoder().encode(JSON.stringify({ documents: kb.documents })),
    'windows.f32': bytesOf(kb.windowVectors),
    'chunks.f32': bytesOf(kb.chunkVectors),
  };
  const state = kb.embedder.state?.();
  if (state) files['embedder.bin'] = state;
  const entries: Record<string, FileEntry> = {};
  for (const [name, data] of Object.entries(files)) {
    await atomicWrite(join(dir, versioned(name)), data);
    entries[name] = { bytes: data.byteLength, sha256: sha256(data), name: versioned(name) };
  }
  const m: Omit<KbManifest, 'checksum'> = {
    format: KB_FORMAT,
    version: KB_VERSION,
    embedder: kb.embedder.spec(),
    chunking: kb.chunkOptions,
    counts: { documents: kb.documents.length, chunks: kb.chunks.length, windows: kb.windowCount },
    files: entries,
    updated: new Date().toISOString(),
  };
  const manifest: KbManifest = { ...m, checksum: manifestChecksum(m) };
  await atomicWrite(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  // Only now are the previous generation's files unreferenced: an interrupted save leaves the old KB whole.
  const keep = new Set(Object.values(entries).map((e) => e.name));
  for (const name of await readdir(dir)) if (DATA_FILE.test(name) && !keep.has(name)) await rm(join(dir, name), { force: true });
  return manifest;
}

/** Create the KB directory, or check that the path is one. */
async function ensureDirectory(dir: string): Promise<void> {
  if (existsSync(dir) && !(await stat(dir)).isDirectory())
    throw new UsageError(`--kb ${dir}: expected a knowledge base directory, found a file`, { file: dir });
  await mkdir(dir, { recursive: true });
}

/** Whether `dir` holds a KB manifest (an existing KB, possibly corrupt); false for a missing or empty directory. */
export async function hasManifest(dir: string): Promise<boolean> {
  if (!existsSync(dir)) return false;
  if (!(await stat(dir)).isDirectory()) throw new UsageError(`--kb ${dir}: expected a knowledge base directory, found a file`, { file: dir });
  return existsSync(join(dir, 'manifest.json'));
}

function corrupt(dir: string, what: string): UsageError {
  return new UsageError(`knowledge base ${dir} is corrupt or partial: ${what}; re-run \`${assayCommandLine('kb ingest')}\` into a fresh directory`, {
    file: dir,
  });
}

/** Read and check the manifest alone (no vectors). */
export async function readManifest(dir: string): Promise<KbManifest> {
  if (!existsSync(dir))
    throw new UsageError(
      `no knowledge base at ${dir}: the directory does not exist (create one with \`${assayCommandLine(`kb ingest <files> --kb ${dir}`)}\`)`,
      { file: dir },
    );
  if (!(await stat(dir)).isDirectory()) throw new UsageError(`no knowledge base at ${dir}: it is a file, not a knowledge base directory`, { file: dir });
  const path = join(dir, 'manifest.json');
  if (!existsSync(path)) {
    const names = await readdir(dir);
    if (names.some((n) => DATA_FILE.test(n) || /\.tmp-\d+$/.test(n))) throw corrupt(dir, 'manifest.json is missing (an ingest was interrupted)');
    throw new UsageError(`no knowledge base at ${dir}: manifest.json not found (create one with \`${assayCommandLine(`kb ingest <files> --kb ${dir}`)}\`)`, {
      file: dir,
    });
  }
  let m: KbManifest;
  try {
    m = JSON.parse(await readFile(path, 'utf8')) as KbManifest;
  } catch (err) {
    throw corrupt(dir, `manifest.json is not valid JSON (${(err as Error).message})`);
  }
  if (m?.format !== KB_FORMAT) throw corrupt(dir, `manifest.json field "format": expected "${KB_FORMAT}", found ${JSON.stringify(m?.format)}`);
  if (m.version !== KB_VERSION)
    throw new UsageError(`${path} field "version": expected ${KB_VERSION}, found ${JSON.stringify(m.version)}`, { file: path, path: 'version' });
  if (m.checksum !== manifestChecksum(m)) throw corrupt(dir, 'manifest.json checksum does not match its content');
  return m;
}

async function readChecked(dir: string, m: KbManifest, name: string): Promise<Uint8Array> {
  const entry = m.files[name];
  if (!entry) throw corrupt(dir, `manifest.json lists no ${name}`);
  const file = entry.name ?? name;
  if (!/^[\w.-]+$/.test(file)) throw corrupt(dir, `manifest.json names ${JSON.stringify(file)} for ${name}`);
  const path = join(dir, file);
  if (!existsSync(path)) throw corrupt(dir, `${file} is missing`);
  const size = (await stat(path)).size;
  if (size !== entry.bytes) throw corrupt(dir, `${file} has ${size} bytes, the manifest says ${entry.bytes}`);
  const data = await readFile(path);
  if (sha256(data) !== entry.sha256) throw corrupt(dir, `${file} checksum does not match the manifest`);
  return data;
}

/** A Float32 view of the bytes (no copy when they are 4-byte aligned, as a large file read is). */
function floats(data: Uint8Array): Float32Array {
  if (data.byteOffset % 4 === 0) return new Float32Array(data.buffer, data.byteOffset, data.byteLength / 4);
  const copy = new Uint8Array(data.byteLength);
  copy.set(data);
  return new Float32Array(copy.buffer);
}

export interface OpenOptions {
  /** The embedder to query with; its spec must equal the one that built the KB. */
  embedder?: KbEmbedder;
  /** Builds the embedder from the KB's recorded spec when none is given. */
  resolve?: (spec: EmbedderSpec) => Promise<KbEmbedder> | KbEmbedder;
}

export interface OpenedKnowledgeBase {
  kb: KnowledgeBase;
  manifest: KbManifest;
  calibration?: Calibration;
}

export function describeSpec(s: EmbedderSpec): string {
  return `${s.id} (dimension ${s.dimension}, settings ${stableJson(s.settings)})`;
}

/** Open a KB read-only, verifying every file against the manifest and the embedder against the KB's spec. */
export async function openKnowledgeBase(dir: string, options: OpenOptions = {}): Promise<OpenedKnowledgeBase> {
  const m = await readManifest(dir);
  let embedder = options.embedder ?? (options.resolve ? await options.resolve(m.embedder) : undefined);
  if (!embedder) throw new UsageError(`knowledge base ${dir} was built with ${m.embedder.id}; no embedder was configured to query it`, { file: dir });
  if (!sameSpec(embedder.spec(), m.embedder)) {
    throw new UsageError(
      `knowledge base ${dir} was built with embedder ${describeSpec(m.embedder)}, but it is being queried with ${describeSpec(embedder.spec())}; ` +
        're-ingest with the same embedder, or query with the one that built it',
      { file: dir },
    );
  }
  const meta = await readChecked(dir, m, 'meta.json');
  let documents: KbDocument[];
  try {
    documents = (JSON.parse(new TextDecoder().decode(meta)) as { documents: KbDocument[] }).documents;
  } catch (err) {
    throw corrupt(dir, `meta.json is not valid JSON (${(err as Error).message})`);
  }
  if (m.files['embedder.bin']) {
    if (!embedder.withState) throw corrupt(dir, `embedder.bin present but ${embedder.id} keeps no state`);
    embedder = embedder.withState(await readChecked(dir, m, 'embedder.bin'));
  }
  const windows = floats(await readChecked(dir, m, 'windows.f32'));
  const chunks = floats(await readChecked(dir, m, 'chunks.f32'));
  const dim = m.embedder.dimension;
  if (windows.length !== m.counts.windows * dim || chunks.length !== m.counts.chunks * dim)
    throw corrupt(dir, 'vector files do not match the counts in the manifest');
  let kb: KnowledgeBase;
  try {
    kb = new KnowledgeBase(embedder, documents, windows, chunks, m.chunking);
  } catch (err) {
    throw corrupt(dir, (err as Error).message);
  }
  if (kb.chunks.length !== m.counts.chunks || kb.windowCount !== m.counts.windows) throw corrupt(dir, 'meta.json does not match the counts in the manifest');
  return { kb, manifest: m, calibration: await readCalibration(dir, m) };
}

async function readCalibration(dir: string, m: KbManifest): Promise<Calibration | undefined> {
  const path = join(dir, 'calibration.json');
  if (!existsSync(path)) return undefined;
  let c: Calibration;
  try {
    c = JSON.parse(await readFile(path, 'utf8')) as Calibration;
  } catch (err) {
    throw new UsageError(`${path}: not valid JSON (${(err as Error).message})`, { file: path });
  }
  const t = c?.thresholds;
  if (!t || !(t.weak >= 0 && t.weak <= t.strong && t.strong <= 1))
    throw new UsageError(`${path} field "thresholds": expected 0 ≤ weak ≤ strong ≤ 1, found ${JSON.stringify(t)}`, { file: path, path: 'thresholds' });
  if (c.embedder !== m.embedder.id)
    throw new UsageError(`${path} field "embedder": calibrated for ${c.embedder}, but the KB uses ${m.embedder.id}`, { file: path, path: 'embedder' });
  return c;
}

export async function writeCalibration(dir: string, c: Calibration): Promise<void> {
  await readManifest(dir);
  await atomicWrite(join(dir, 'calibration.json'), JSON.stringify(c, null, 2) + '\n');
}

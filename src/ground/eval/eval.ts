import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import { extractClaims } from '../claims/claims.js';
import type { KbEmbedder } from '../embedders/spec.js';
import { analyze, type AnalyzeOptions } from '../engine.js';
import { buildKnowledgeBase, segmentDocument } from '../kb/kb.js';
import { GroundingUnavailableError, type GroundingReport } from '../types.js';
import { minOf, pushAll } from '../../core/arrays.js';

/**
 * Evaluation of unsupported-claim detection (`assay bench grounding`, `assay calibrate`).
 * An item is an answer with its own evidence documents and a gold label (unsupported = positive).
 * Each item is audited by the real engine; its "effective support" is the lowest support over its
 * claims (−∞ when the detail check makes a claim unsupported or contradicted). The item is predicted
 * unsupported when that value is below the threshold, so a threshold sweep needs one engine pass.
 */

export interface EvalItem {
  id: string;
  answer: string;
  /** Documents forming the item's knowledge base. */
  documents: string[];
  unsupported: boolean;
  /** Split tag from the dataset's rule. */
  split: 'calibration' | 'test';
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * WiCE oracle chunks: one item per claim (meta.id), its rows' evidence as documents; calibration = dev.jsonl,
 * test = test.jsonl. `splits` limits what is read: tuning never opens test.jsonl.
 */
export async function loadWice(dir: string, splits: readonly EvalItem['split'][] = ['calibration', 'test']): Promise<EvalItem[]> {
  const items: EvalItem[] = [];
  const files = (
    [
      ['dev.jsonl', 'calibration'],
      ['test.jsonl', 'test'],
    ] as const
  ).filter(([, split]) => splits.includes(split));
  for (const [file, split] of files) {
    const path = join(dir, 'oracle_chunks', 'claim', file);
    const text = await readFile(path, 'utf8').catch(() => {
      throw new UsageError(`${path}: not found (expected the WiCE folder with oracle_chunks/claim/${file})`, { file: path });
    });
    const byId = new Map<string, EvalItem>();
    text.split('\n').forEach((line, i) => {
      if (!line.trim()) return;
      let row: { label: string; claim: string; evidence: string[]; meta: { id: string } };
      try {
        row = JSON.parse(line);
      } catch {
        throw new UsageError(`${path} line ${i + 1}: not valid JSON`, { file: path, line: i + 1 });
      }
      const bad =
        typeof row?.claim !== 'string'
          ? 'claim'
          : !Array.isArray(row.evidence)
            ? 'evidence'
            : typeof row.meta?.id !== 'string'
              ? 'meta.id'
              : typeof row.label !== 'string'
                ? 'label'
                : undefined;
      if (bad)
        throw new UsageError(`${path} line ${i + 1} field "${bad}": missing or of the wrong type (expected the WiCE oracle-chunk format)`, {
          file: path,
          line: i + 1,
          path: bad,
        });
      const item = byId.get(row.meta.id) ?? { id: row.meta.id, answer: row.claim, documents: [], unsupported: row.label !== 'supported', split };
      item.documents.push(row.evidence.join('\n\n'));
      byId.set(row.meta.id, item);
    });
    pushAll(items, byId.values());
  }
  return items;
}

/** FaithBench: a summary is hallucinated when any annotation carries an Unwanted label; its source document is its KB.
 *  Split by source as the README's rule: sources sorted by sha256("faithbench:" + source); the first 60% calibrate. */
export async function loadFaithBench(dir: string): Promise<EvalItem[]> {
  const folder = join(dir, 'data_for_release');
  const files = (await readdir(folder).catch(() => [] as string[])).filter((f) => f.endsWith('.json')).sort();
  if (files.length === 0) throw new UsageError(`${folder}: no batch_*.json files (expected the FaithBench folder)`, { file: folder });
  const raw: { id: string; source: string; summary: string; unsupported: boolean }[] = [];
  for (const f of files) {
    const path = join(folder, f);
    let data: { samples: { sample_id: number; source: string; summary: string; annotations: { label: string[] }[] }[] };
    try {
      data = JSON.parse(await readFile(path, 'utf8'));
    } catch (err) {
      throw new UsageError(`${path}: not valid JSON (${(err as Error).message})`, { file: path });
    }
    if (!Array.isArray(data?.samples))
      throw new UsageError(`${path} field "samples": expected an array (the FaithBench batch format)`, { file: path, path: 'samples' });
    for (const [i, s] of data.samples.entries()) {
      const bad =
        typeof s?.source !== 'string'
          ? 'source'
          : typeof s.summary !== 'string'
            ? 'summary'
            : !Array.isArray(s.annotations) || !s.annotations.every((a) => Array.isArray(a?.label))
              ? 'annotations'
              : undefined;
      if (bad) throw new UsageError(`${path} field "samples[${i}].${bad}": missing or of the wrong type`, { file: path, path: `samples[${i}].${bad}` });
      raw.push({
        id: `${f}:${s.sample_id}`,
        source: s.source,
        summary: s.summary,
        unsupported: s.annotations.some((a) => a.label.some((l) => l.startsWith('Unwanted'))),
      });
    }
  }
  const sources = [...new Set(raw.map((r) => r.source))].sort((a, b) => (sha256(`faithbench:${a}`) < sha256(`faithbench:${b}`) ? -1 : 1));
  const calib = new Set(sources.slice(0, Math.round(sources.length * 0.6)));
  return raw.map((r) => ({
    id: r.id,
    answer: r.summary.trim(),
    documents: [r.source],
    unsupported: r.unsupported,
    split: calib.has(r.source) ? 'calibration' : 'test',
  }));
}

/** With the weak threshold at 0 every scored claim is at least WEAK by similarity: only its details can make it otherwise. */
const ZERO = { strong: 1, weak: 0 };

/**
 * An answer's effective support: its lowest claim support, or −∞ when the detail check made a claim
 * UNSUPPORTED or CONTRADICTED (scored with ZERO thresholds, so the status says exactly that).
 */
export function effectiveSupport(r: GroundingReport): number {
  return minOf(r.claims_analysis.map((c) => (c.status === 'UNSUPPORTED' || c.status === 'CONTRADICTED' ? -Infinity : c.support_score)));
}

export interface ItemScore {
  id: string;
  unsupported: boolean;
  /** The item could not be decided (a claim checker failed on one of its claims): left out of every figure. */
  error?: string;
  /** Lowest claim support; −Infinity when a claim's details are unverified (and counted). */
  effective: number;
  claims: number;
}

/** Audit every item with the engine. The lexical IDF is fitted once on all documents of the given items. */
export async function scoreItems(
  items: EvalItem[],
  embedder: KbEmbedder,
  options: Pick<AnalyzeOptions, 'details' | 'detailScope' | 'topK' | 'checker'>,
): Promise<ItemScore[]> {
  const docsOf = (it: EvalItem) => it.documents.map((text, i) => segmentDocument({ source: `${it.id}/${i}`, sha256: '', text }, embedder, {}));
  let fitted = embedder;
  if (embedder.fit) {
    const texts: string[] = [];
    for (const it of items) for (const d of docsOf(it)) for (const w of d.windows) texts.push(d.text.slice(w.start, w.end));
    fitted = embedder.fit(texts);
  }
  const out: ItemScore[] = [];
  const cache = new Map<string, Awaited<ReturnType<typeof buildKnowledgeBase>>>();
  for (const it of items) {
    const key = it.documents.join('\u0000');
    let kb = cache.get(key);
    if (!kb) {
      kb = await buildKnowledgeBase(docsOf(it), fitted, { fit: false });
      cache.clear(); // items sharing a KB are adjacent (FaithBench: 10 summaries per source)
      cache.set(key, kb);
    }
    if (extractClaims(it.answer).length === 0) continue;
    let r: GroundingReport;
    try {
      r = await analyze(kb, { query: it.id, answer: it.answer }, { ...options, thresholds: ZERO });
    } catch (err) {
      // a checker that could check none of the item's claims: an error, not a verdict
      if (!options.checker || !GroundingUnavailableError.isInstance(err)) throw err;
      out.push({ id: it.id, unsupported: it.unsupported, effective: NaN, claims: 0, error: (err as Error).message });
      continue;
    }
    const failed = r.claims_analysis.find((c) => c.error !== undefined);
    if (failed) {
      out.push({ id: it.id, unsupported: it.unsupported, effective: NaN, claims: r.claims_analysis.length, error: failed.error });
      continue;
    }
    const effective = effectiveSupport(r);
    out.push({ id: it.id, unsupported: it.unsupported, effective, claims: r.claims_analysis.length });
  }
  return out;
}

import { readFile } from 'node:fs/promises';
import { UsageError } from '../../errors.js';
import { analyze, type AnalyzeOptions } from '../engine.js';
import { effectiveSupport } from './eval.js';
import type { KnowledgeBase } from '../kb/kb.js';
import { writeCalibration, type Calibration } from '../kb/kb-store.js';
import { fitThreshold } from './metrics.js';

/**
 * `assay calibrate`: fit the support threshold (the weak/unsupported boundary) on a labelled set of
 * claims audited against the KB, maximising balanced accuracy, and store it with the KB.
 * Labelled set: JSONL, one object per line: {"claim": "...", "supported": true|false}
 * (or "label": "supported" | anything else = unsupported).
 */

export interface LabelledClaim {
  claim: string;
  supported: boolean;
}

export async function readLabelledSet(path: string): Promise<LabelledClaim[]> {
  const text = await readFile(path, 'utf8').catch(() => {
    throw new UsageError(`${path}: cannot read the labelled set`, { file: path });
  });
  const out: LabelledClaim[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let row: Record<string, unknown>;
    try {
      row = JSON.parse(line);
    } catch {
      throw new UsageError(`${path} line ${i + 1}: expected a JSON object, found ${JSON.stringify(line.slice(0, 40))}`, { file: path, line: i + 1 });
    }
    const claim = row.claim ?? row.answer;
    if (typeof claim !== 'string' || !claim.trim())
      throw new UsageError(`${path} line ${i + 1} field "claim": expected a non-empty string, found ${JSON.stringify(claim)}`, {
        file: path,
        line: i + 1,
        path: 'claim',
      });
    const supported = typeof row.supported === 'boolean' ? row.supported : typeof row.label === 'string' ? row.label === 'supported' : undefined;
    if (supported === undefined)
      throw new UsageError(`${path} line ${i + 1}: expected "supported": true|false or "label": "supported"|…, found neither`, {
        file: path,
        line: i + 1,
        path: 'supported',
      });
    out.push({ claim, supported });
  });
  if (out.length === 0) throw new UsageError(`${path}: the labelled set is empty`, { file: path });
  if (out.every((r) => r.supported) || out.every((r) => !r.supported))
    throw new UsageError(`${path}: the labelled set needs both supported and unsupported claims`, { file: path });
  return out;
}

export async function calibrate(
  kb: KnowledgeBase,
  set: LabelledClaim[],
  options: Pick<AnalyzeOptions, 'details' | 'detailScope' | 'topK'> = {},
): Promise<Calibration> {
  const scores: number[] = [];
  for (const row of set) {
    const r = await analyze(kb, { query: row.claim, answer: row.claim }, { ...options, thresholds: { strong: 1, weak: 0 } });
    scores.push(effectiveSupport(r));
  }
  const fit = fitThreshold(
    scores,
    set.map((r) => !r.supported),
  );
  const weak = Math.round(fit.threshold * 1e4) / 1e4;
  return {
    embedder: kb.embedder.id,
    thresholds: { weak, strong: Math.max(weak, kb.embedder.thresholds.strong) },
    balanced_accuracy: fit.balanced_accuracy,
    n: set.length,
    fitted: new Date().toISOString(),
  };
}

export { writeCalibration };

/**
 * `npm run -s bench:detector-candidates -- [--data DIR] [--folds 5]`
 *
 * Summary-level decisions tried for issue 27 (FaithBench balanced accuracy) and not adopted, measured the way
 * `assay bench grounding --cv 5` measures the detector: the calibration split only (the test split is never read),
 * the same folds (items sharing their documents stay in one fold, groups dealt in order), each fold's threshold
 * fitted on the other folds. One engine pass per item (details counted, similarity thresholds at 0, as
 * `bench grounding` scores); every candidate is a score over the same audits, lower = more likely unsupported:
 * - `current`: the engine's effective support (the lowest claim cosine, −∞ when a detail makes a claim unsupported);
 * - `small_counts_never_missing`: the same with a missing count in words up to three ("two films") ignored;
 * - `novel_words`: the share of the answer's content words (stems) its documents never use;
 * - `flag_or_novel_words`: a detail flag, else the novel-word share;
 * - `rare_novel_words_k`: a detail flag, or k or more novel words no document of the split uses;
 * - `flag_share_and_novel_words_w`: w × (claims without a detail flag) + (1 − w) × (content words the documents use),
 *   for w in 0.2–0.8, and `nested` where each outer fold chooses w by an inner CV on its training folds.
 * Results are recorded in docs/grounding.md ("Issue 27, before and after"). Prints one JSON object.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { extractMentions } from '../src/ground/claims/mentions.js';
import { words } from '../src/ground/claims/text.js';
import { STOPWORDS, stem } from '../src/ground/claims/tokens.js';
import { createLexicalEmbedder } from '../src/ground/embedders/lexical.js';
import { analyze } from '../src/ground/engine.js';
import { effectiveSupport, loadFaithBench, loadWice, type EvalItem } from '../src/ground/eval/eval.js';
import { detectionMetrics, fitThreshold } from '../src/ground/eval/metrics.js';
import { buildKnowledgeBase, segmentDocument } from '../src/ground/kb/kb.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: process.env.ASSAY_BENCHMARKS ? join(process.env.ASSAY_BENCHMARKS, 'grounding') : '../shared/benchmarks/grounding' },
    folds: { type: 'string', default: '5' },
  },
});
const K = Number(values.folds);
if (!Number.isInteger(K) || K < 2) {
  process.stderr.write(`bench:detector-candidates: --folds expects an integer ≥ 2, found "${String(values.folds)}"\n`);
  process.exit(2);
}

interface Audited {
  unsupported: boolean;
  group: string;
  effective: number;
  /** Per claim: a detail made it unsupported or contradicted; its missing details that are small counts in words. */
  claims: { support: number; flagged: boolean; contradicted: boolean; missingOtherThanSmallCounts: number }[];
  novel: string[];
  contentWords: number;
}

const content = (text: string) => words(text).filter((w) => /^\p{L}/u.test(w) && w.length > 1 && !STOPWORDS.has(w));
const SMALL_COUNT = /^(one|two|three|both)\b/i;

async function audit(items: EvalItem[]): Promise<Audited[]> {
  const base = createLexicalEmbedder();
  const docsOf = (it: EvalItem) => it.documents.map((text, i) => segmentDocument({ source: `${it.id}/${i}`, sha256: '', text }, base, {}));
  const texts: string[] = [];
  for (const it of items) for (const d of docsOf(it)) for (const w of d.windows) texts.push(d.text.slice(w.start, w.end));
  const embedder = base.fit(texts);
  const out: Audited[] = [];
  for (const it of items) {
    const kb = await buildKnowledgeBase(docsOf(it), embedder, { fit: false });
    let r;
    try {
      r = await analyze(kb, { query: it.id, answer: it.answer }, { details: 'count', thresholds: { strong: 1, weak: 0 } });
    } catch {
      continue; // no claim to verify: left out, as scoreItems does
    }
    const used = new Set(content(it.documents.join('\n\n')).map(stem));
    const answerWords = content(it.answer).map(stem);
    out.push({
      unsupported: it.unsupported,
      group: it.documents.join('\u0000'),
      effective: effectiveSupport(r),
      claims: r.claims_analysis.map((c) => {
        const kinds = new Map(extractMentions(c.claim).mentions.map((m) => [m.written, m.kind]));
        const missing = c.status === 'UNSUPPORTED' ? (c.unverified_details ?? []) : [];
        return {
          support: c.support_score,
          flagged: c.status === 'UNSUPPORTED' || c.status === 'CONTRADICTED',
          contradicted: c.status === 'CONTRADICTED',
          missingOtherThanSmallCounts: missing.filter((w) => !(kinds.get(w) === 'quantity' && SMALL_COUNT.test(w))).length,
        };
      }),
      novel: answerWords.filter((w) => !used.has(w)),
      contentWords: answerWords.length,
    });
  }
  return out;
}

/** Fold of each item: its group's index of first appearance, modulo k (as crossValidateGrounding deals them). */
function folds(items: Audited[], k: number): number[] {
  const index = new Map<string, number>();
  for (const it of items) if (!index.has(it.group)) index.set(it.group, index.size);
  return items.map((it) => (index.get(it.group) as number) % k);
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

function crossValidate(items: Audited[], score: (it: Audited) => number, k: number): { balanced_accuracy: number; per_fold: number[] } {
  const fold = folds(items, k);
  const s = items.map(score);
  const y = items.map((it) => it.unsupported);
  const perFold: number[] = [];
  for (let f = 0; f < k; f++) {
    const train = s.map((_, i) => i).filter((i) => fold[i] !== f);
    const held = s.map((_, i) => i).filter((i) => fold[i] === f);
    const t = fitThreshold(
      train.map((i) => s[i]),
      train.map((i) => y[i]),
    ).threshold;
    perFold.push(
      detectionMetrics(
        held.map((i) => s[i]),
        held.map((i) => y[i]),
        t,
        0,
      ).balanced_accuracy.value,
    );
  }
  return { balanced_accuracy: r3(perFold.reduce((a, b) => a + b, 0) / k), per_fold: perFold.map(r3) };
}

const WEIGHTS = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8];
const flagged = (it: Audited) => it.claims.some((c) => c.flagged);
const novelShare = (it: Audited) => it.novel.length / Math.max(1, it.contentWords);
const combined = (w: number) => (it: Audited) => w * (1 - it.claims.filter((c) => c.flagged).length / it.claims.length) + (1 - w) * (1 - novelShare(it));

/** Nested: each outer fold picks w by an inner CV on its training folds, then fits the threshold there. */
function nested(items: Audited[], k: number): { balanced_accuracy: number; per_fold: number[]; chosen: number[] } {
  const fold = folds(items, k);
  const perFold: number[] = [];
  const chosen: number[] = [];
  for (let f = 0; f < k; f++) {
    const train = items.filter((_, i) => fold[i] !== f);
    const held = items.filter((_, i) => fold[i] === f);
    let best = { w: WEIGHTS[0], ba: -1 };
    for (const w of WEIGHTS) {
      const ba = crossValidate(train, combined(w), k).balanced_accuracy;
      if (ba > best.ba) best = { w, ba };
    }
    const score = combined(best.w);
    const t = fitThreshold(
      train.map(score),
      train.map((it) => it.unsupported),
    ).threshold;
    perFold.push(
      detectionMetrics(
        held.map(score),
        held.map((it) => it.unsupported),
        t,
        0,
      ).balanced_accuracy.value,
    );
    chosen.push(best.w);
  }
  return { balanced_accuracy: r3(perFold.reduce((a, b) => a + b, 0) / k), per_fold: perFold.map(r3), chosen };
}

const result: Record<string, unknown> = {
  protocol: `${K}-fold CV on the calibration split, the folds of assay bench grounding --cv; thresholds fitted on the training folds`,
};
for (const dataset of ['faithbench', 'wice'] as const) {
  const dir = join(values.data as string, dataset);
  const items = (dataset === 'wice' ? await loadWice(dir, ['calibration']) : await loadFaithBench(dir)).filter((i) => i.split === 'calibration');
  const audited = await audit(items);
  // words no document of the split uses (the split's vocabulary, as the lexical IDF is fitted on it)
  const vocabulary = new Set<string>();
  for (const g of new Set(audited.map((it) => it.group))) for (const w of content(g)) vocabulary.add(stem(w));
  const candidates: Record<string, (it: Audited) => number> = {
    current: (it) => it.effective,
    small_counts_never_missing: (it) =>
      it.claims.some((c) => c.contradicted || c.missingOtherThanSmallCounts > 0) ? -Infinity : Math.min(...it.claims.map((c) => c.support)),
    novel_words: (it) => -novelShare(it),
    flag_or_novel_words: (it) => (flagged(it) ? -Infinity : -novelShare(it)),
  };
  for (const k of [1, 2, 3]) candidates[`rare_novel_words_${k}`] = (it) => (flagged(it) || it.novel.filter((w) => !vocabulary.has(w)).length >= k ? -1 : 0);
  for (const w of WEIGHTS) candidates[`flag_share_and_novel_words_${w}`] = combined(w);
  const out: Record<string, unknown> = { n: audited.length };
  for (const [name, score] of Object.entries(candidates)) out[name] = crossValidate(audited, score, K);
  out.flag_share_and_novel_words_nested = nested(audited, K);
  result[dataset] = out;
}
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);

/**
 * `npm run -s bench:fit-detector -- [--data DIR] [--folds 5] [--seed 1] [--repeats 1] [--rules all,contradicted] [--test]`
 *
 * Fits the learned claim detector (bench/grounding/detector-fit.ts) on the calibration splits of WiCE and FaithBench
 * together and reports, as one JSON object:
 * - nested grouped k-fold CV on the calibration splits: per outer fold, the feature set, L2 strength and item
 *   aggregation are chosen by an inner grouped k-fold CV, the model is fitted on the outer training folds
 *   and scored on the held-out fold; the current detector (min cosine, threshold fitted per dataset) is
 *   scored on the same folds. Items of one group (a WiCE claim, a FaithBench source) stay in one fold;
 * - the selection on the whole calibration split (deterministic: dev data and fixed seeds only): the
 *   coefficients one would freeze, and the CPU per item of the engine and of the features, side by side.
 * With --test (once, after freezing) it also scores that frozen detector and the current one on the test splits.
 * The result of the one look is recorded in docs/grounding.md ("A learned detector").
 * The test split is read only with --test. The data is read where it lies (default ../shared/benchmarks/grounding).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { mulberry32 } from '../src/core/prng.js';
import { claimFeatures, FEATURE_NAMES } from './grounding/claim-features.js';
import {
  balancedAccuracy,
  fitDetector,
  fitItemThreshold,
  itemScore,
  outOfFoldScores,
  selectConfig,
  type DetectorConfig,
  type FitItem,
} from './grounding/detector-fit.js';
import { createLexicalEmbedder, type LexicalEmbedder } from '../src/ground/embedders/lexical.js';
import { analyze } from '../src/ground/engine.js';
import { loadFaithBench, loadWice, type EvalItem } from '../src/ground/eval/eval.js';
import { buildKnowledgeBase, segmentDocument } from '../src/ground/kb/kb.js';
import { groupFolds } from './grounding/logistic.js';
import { detectionMetrics, fitThreshold } from '../src/ground/eval/metrics.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: process.env.ASSAY_BENCHMARKS ? join(process.env.ASSAY_BENCHMARKS, 'grounding') : '../shared/benchmarks/grounding' },
    folds: { type: 'string', default: '5' },
    seed: { type: 'string', default: '1' },
    test: { type: 'boolean', default: false },
    rules: { type: 'string', default: 'all,contradicted' },
    repeats: { type: 'string', default: '1' },
  },
});
function whole(flag: string, v: unknown, min: number): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) {
    process.stderr.write(`bench:fit-detector: ${flag} expects an integer ≥ ${min}, found "${String(v)}"\n`);
    process.exit(2);
  }
  return n;
}
const K = whole('--folds', values.folds, 2);
const SEED = whole('--seed', values.seed, 0);
const REPEATS = whole('--repeats', values.repeats, 1);

/** CPU time (µs) of the engine's audit and of the claim features, summed over items: the cost of the learned detector beside the current one. */
const cpu = { engine: 0, features: 0, items: 0 };

/** Audit every item as scoreItems does (IDF fitted on the split's documents) and keep each claim's features. */
async function extract(items: EvalItem[], dataset: string): Promise<(FitItem & { effective: number })[]> {
  const base = createLexicalEmbedder();
  const docsOf = (it: EvalItem) => it.documents.map((text, i) => segmentDocument({ source: `${it.id}/${i}`, sha256: '', text }, base, {}));
  const texts: string[] = [];
  for (const it of items) for (const d of docsOf(it)) for (const w of d.windows) texts.push(d.text.slice(w.start, w.end));
  const embedder = base.fit(texts) as LexicalEmbedder;
  const idf = (w: string) => embedder.wordIdf(w);
  const out: (FitItem & { effective: number })[] = [];
  for (const it of items) {
    const kb = await buildKnowledgeBase(docsOf(it), embedder, { fit: false });
    let r;
    const c0 = process.cpuUsage();
    try {
      r = await analyze(kb, { query: it.id, answer: it.answer }, { details: 'count', thresholds: { strong: 1, weak: 0 } });
    } catch {
      continue; // no claim to verify: left out, as scoreItems does
    }
    const c1 = process.cpuUsage(c0);
    cpu.engine += c1.user + c1.system;
    const c2 = process.cpuUsage();
    const chunkIndex = new Map(kb.chunks.map((c, i) => [c.id, i]));
    const claims = r.claims_analysis.map((c) => {
      const hard = c.status === 'UNSUPPORTED' || c.status === 'CONTRADICTED';
      const contradicted = c.status === 'CONTRADICTED';
      const missing = contradicted ? 0 : (c.unverified_details?.length ?? 0);
      const chunk = c.evidence ? kb.chunkText(chunkIndex.get(c.evidence.chunk_id) as number) : '';
      const f = claimFeatures(
        { claim: c.claim, support: c.support_score, window: c.evidence?.text ?? '', chunk, claims: r.claims_analysis.length, missing },
        idf,
      );
      return { x: FEATURE_NAMES.map((n) => f[n]), hard, contradicted };
    });
    const c3 = process.cpuUsage(c2);
    cpu.features += c3.user + c3.system;
    cpu.items++;
    const effective = Math.min(...r.claims_analysis.map((c, i) => (claims[i].hard ? -Infinity : c.support_score)));
    out.push({ id: it.id, dataset, group: `${dataset}:${it.documents.join('\u0000')}`, unsupported: it.unsupported, claims, effective });
  }
  return out;
}

async function load(split: EvalItem['split']) {
  const wice = (await loadWice(join(values.data as string, 'wice'), [split])).filter((i) => i.split === split);
  const fb = (await loadFaithBench(join(values.data as string, 'faithbench'))).filter((i) => i.split === split);
  return [...(await extract(wice, 'wice')), ...(await extract(fb, 'faithbench'))];
}

const FEATURE_SETS = [[0], [0, 1, 2], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 7]];
const RULES = (values.rules as string).split(',') as ('all' | 'contradicted')[];
if (RULES.some((r) => r !== 'all' && r !== 'contradicted')) {
  process.stderr.write(`bench:fit-detector: --rules expects all and/or contradicted, found "${String(values.rules)}"\n`);
  process.exit(2);
}
const GRID: DetectorConfig[] = RULES.flatMap((rule) =>
  (rule === 'all' ? FEATURE_SETS : FEATURE_SETS.map((f) => [...f, 8])).flatMap((features) =>
    [0.01, 0.1, 1, 10, 100].flatMap((lambda) => (['max', 'mean'] as const).map((aggregate) => ({ features, lambda, aggregate, rule }))),
  ),
);
const DATASETS = ['wice', 'faithbench'];
const r3 = (x: number) => Math.round(x * 1000) / 1000;
const spread = (xs: number[]) => ({
  mean: r3(xs.reduce((a, b) => a + b, 0) / xs.length),
  min: r3(Math.min(...xs)),
  max: r3(Math.max(...xs)),
  folds: xs.map(r3),
});
const ofSet = <T extends FitItem>(items: T[], d: string) => items.filter((i) => i.dataset === d);

const dev = await load('calibration');
const perFold: Record<string, { current: number[]; learned_joint: number[]; learned_per_dataset: number[] }> = Object.fromEntries(
  DATASETS.map((d) => [d, { current: [], learned_joint: [], learned_per_dataset: [] }]),
);
const chosen: DetectorConfig[] = [];
// Repeated nested CV: each repeat deals the groups into folds afresh (seed SEED + repeat), which averages out the luck of one split.
for (let rep = 0; rep < REPEATS; rep++) {
  const seed = SEED + 7919 * rep;
  const outer = groupFolds(
    dev.map((i) => i.group),
    K,
    mulberry32(seed),
  );
  for (let f = 0; f < K; f++) {
    const train = dev.filter((_, i) => outer[i] !== f);
    const held = dev.filter((_, i) => outer[i] === f);
    const sel = selectConfig(train, GRID, K, mulberry32(seed + 100 + f));
    chosen.push(sel.config);
    const fitted = fitDetector(train, sel.config);
    const innerFolds = groupFolds(
      train.map((i) => i.group),
      K,
      mulberry32(seed + 100 + f),
    );
    const oof = outOfFoldScores(train, sel.config, innerFolds, K);
    for (const d of DATASETS) {
      const tr = ofSet(train, d);
      const h = ofSet(held, d);
      // current detector: effective support, threshold fitted on this dataset's training folds (as `bench grounding`)
      const cur = fitThreshold(
        tr.map((i) => i.effective),
        tr.map((i) => i.unsupported),
      ).threshold;
      perFold[d].current.push(
        balancedAccuracy(
          h.map((i) => -i.effective),
          h.map((i) => i.unsupported),
          -cur,
        ),
      );
      const hs = h.map((i) => itemScore(fitted, i));
      const gold = h.map((i) => i.unsupported);
      perFold[d].learned_joint.push(balancedAccuracy(hs, gold, sel.threshold));
      const trIdx = train.map((it, i) => (it.dataset === d ? i : -1)).filter((i) => i >= 0);
      const tD = fitItemThreshold(
        trIdx.map((i) => train[i]),
        trIdx.map((i) => oof[i]),
      );
      perFold[d].learned_per_dataset.push(balancedAccuracy(hs, gold, tD));
    }
  }
}

const final = selectConfig(dev, GRID, K, mulberry32(SEED + 1000));
const model = fitDetector(dev, final.config);
const finalFolds = groupFolds(
  dev.map((i) => i.group),
  K,
  mulberry32(SEED + 1000),
);
const finalOof = outOfFoldScores(dev, final.config, finalFolds, K);
const perDatasetThreshold = Object.fromEntries(
  DATASETS.map((d) => {
    const idx = dev.map((it, i) => (it.dataset === d ? i : -1)).filter((i) => i >= 0);
    return [
      d,
      fitItemThreshold(
        idx.map((i) => dev[i]),
        idx.map((i) => finalOof[i]),
      ),
    ];
  }),
);

const result: Record<string, unknown> = {
  protocol: `nested grouped ${K}-fold CV on the calibration splits of WiCE and FaithBench together, ${REPEATS} repeat(s) from seed ${SEED}; BA per dataset, per held-out fold`,
  n: Object.fromEntries(DATASETS.map((d) => [d, ofSet(dev, d).length])),
  nested_cv: Object.fromEntries(
    DATASETS.map((d) => [
      d,
      {
        current: spread(perFold[d].current),
        learned_joint_threshold: spread(perFold[d].learned_joint),
        learned_per_dataset_threshold: spread(perFold[d].learned_per_dataset),
      },
    ]),
  ),
  chosen_per_outer_fold: chosen.map((c) => ({ features: c.features.map((j) => FEATURE_NAMES[j]), lambda: c.lambda, aggregate: c.aggregate, rule: c.rule })),
  selection: {
    features: final.config.features.map((j) => FEATURE_NAMES[j]),
    lambda: final.config.lambda,
    aggregate: final.config.aggregate,
    rule: final.config.rule,
    cv_mean_ba: r3(final.cv),
    threshold: final.threshold,
    per_dataset_threshold: perDatasetThreshold,
    coef: model.model.coef,
  },
};

result.cpu_ms_per_item = {
  engine: r3(cpu.engine / cpu.items / 1000),
  features: r3(cpu.features / cpu.items / 1000),
  ratio: r3((cpu.engine + cpu.features) / cpu.engine),
};

if (values.test) {
  // One look, after freezing: the selection above is deterministic (dev only, fixed seeds), so the model just
  // fitted is the frozen one; its coefficients are recorded in docs/grounding.md.
  const test = await load('test');
  const frozen = model;
  result.test = Object.fromEntries(
    DATASETS.map((d) => {
      const c = ofSet(dev, d);
      const t = ofSet(test, d);
      const gold = t.map((i) => i.unsupported);
      const cur = fitThreshold(
        c.map((i) => i.effective),
        c.map((i) => i.unsupported),
      ).threshold;
      // detectionMetrics flags score < threshold: pass 1 − P(unsupported), the learned support
      const sup = (items: FitItem[]) => items.map((i) => 1 - itemScore(frozen, i));
      const perD = fitThreshold(
        sup(c),
        c.map((i) => i.unsupported),
      ).threshold;
      const m = (s: number[], th: number) => {
        const x = detectionMetrics(s, gold, th);
        return {
          threshold: r3(th),
          ba: [r3(x.balanced_accuracy.value), r3(x.balanced_accuracy.lo), r3(x.balanced_accuracy.hi)],
          precision: r3(x.precision.value),
          recall: r3(x.recall.value),
        };
      };
      return [
        d,
        {
          n: t.length,
          current: m(
            t.map((i) => i.effective),
            cur,
          ),
          learned_default_threshold: m(sup(t), 1 - final.threshold),
          learned_calibrated_threshold: m(sup(t), perD),
        },
      ];
    }),
  );
}
process.stdout.write(JSON.stringify(result, null, 2) + '\n');

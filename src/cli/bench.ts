import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { crossValidateGrounding, runGroundingBench } from '../ground/eval/bench-grounding.js';
import { createEmbedder } from '../ground/embedders/resolve.js';
import type { Interval } from '../ground/eval/metrics.js';
import { CHECKER_FLAG, CHECKER_URL_FLAG, benchChecker, embedderConfig, embedderOptions } from './ground-options.js';
import { intFlag, oneOfFlag } from './flags.js';

/** `assay bench grounding --dataset wice|faithbench --data <dir> [--json F]`. */
export function register(program: Command): void {
  const bench = program.command('bench').description('Evaluation benchmarks');
  embedderOptions(
    bench
      .command('grounding')
      .description('Unsupported-claim detection on WiCE or FaithBench (calibrate on the dev split, report on test)')
      .requiredOption('--dataset <name>', 'wice | faithbench')
      .requiredOption('--data <dir>', 'dataset folder (e.g. ../shared/benchmarks/grounding/wice)')
      .option('--embedder <kind>', 'lexical | transformers | openai', 'lexical')
      .option('--embedding-model <name>', 'model for transformers/openai')
      .option('--dimension <n>', 'lexical: vector dimension')
      .option('--limit <n>', 'at most n items per split (quick runs)')
      .option('--cv <folds>', 'instead: k-fold cross-validation inside the calibration split, for tuning (the test split is not read)')
      .option('--json <file>', 'also write the full result as JSON')
      .option(...CHECKER_FLAG)
      .option(...CHECKER_URL_FLAG),
  ).action(async (o) => {
    oneOfFlag('--dataset', o.dataset, ['wice', 'faithbench']);
    const limit = intFlag('--limit', o.limit, { min: 1 });
    const embedder = await createEmbedder(o.embedder, {
      ...embedderConfig(o),
      model: o.embeddingModel,
      dimension: intFlag('--dimension', o.dimension, { min: 8, max: 65536 }),
    });
    const folds = intFlag('--cv', o.cv, { min: 2, max: 20 });
    if (folds !== undefined) {
      const cv = await crossValidateGrounding(o.dataset, o.data, embedder, folds);
      if (o.json) await writeFile(o.json, JSON.stringify(cv, null, 2) + '\n');
      const lines = [`${cv.dataset} — ${cv.embedder} — ${cv.folds}-fold cross-validation on the calibration split (${cv.n} items)`];
      for (const v of cv.variants)
        lines.push(`details ${v.details}: balanced_accuracy ${v.balanced_accuracy.toFixed(3)} (folds ${v.per_fold.map((x) => x.toFixed(3)).join(', ')})`);
      process.stdout.write(lines.join('\n') + '\n');
      return;
    }
    const checker = await benchChecker(o);
    let r;
    try {
      r = await runGroundingBench(o.dataset, o.data, embedder, { limit, checker });
    } finally {
      await checker?.close?.();
    }
    if (o.json) await writeFile(o.json, JSON.stringify(r, null, 2) + '\n');
    const f = (x: Interval) => `${x.value.toFixed(3)} [${x.lo.toFixed(3)}, ${x.hi.toFixed(3)}]`;
    const out = [`${r.dataset} — ${r.embedder} — calibration ${r.splits.calibration}, test ${r.splits.test} (${r.splits.rule})`];
    for (const v of r.variants) {
      out.push(`${v.name}: threshold ${v.thresholds.weak.toFixed(3)} (${v.thresholds.source}), details ${v.details}`);
      if (v.errors) out.push(`  items the checker could not decide (left out): calibration ${v.errors.calibration}, test ${v.errors.test}`);
      out.push(
        `  n ${v.test.n}  balanced_accuracy ${f(v.test.balanced_accuracy)}  precision ${f(v.test.precision)}  recall ${f(v.test.recall)}  f1 ${f(v.test.f1)}`,
      );
    }
    process.stdout.write(out.join('\n') + '\n');
  });
}

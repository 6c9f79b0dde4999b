import type { Command } from 'commander';
import { calibrate, readLabelledSet } from '../ground/eval/calibrate.js';
import { embedderFromSpec } from '../ground/embedders/resolve.js';
import { openKnowledgeBase, writeCalibration } from '../ground/kb/kb-store.js';
import { DEFAULT_KB, embedderConfig, embedderOptions } from './ground-options.js';
import { oneOfFlag } from './flags.js';

/** `assay calibrate --kb <dir> --data <labelled.jsonl>`: fit the support threshold, store it with the KB. */
export function register(program: Command): void {
  embedderOptions(
    program
      .command('calibrate')
      .description('Fit the support threshold on labelled claims (max balanced accuracy) and store it with the KB')
      .option('--kb <dir>', 'knowledge base directory', DEFAULT_KB)
      .requiredOption('--data <file>', 'JSONL of {"claim": "...", "supported": true|false}')
      .option('--details <mode>', 'numbers/dates/names check during calibration: count | off', 'count')
      .option('--json', 'print the calibration as JSON'),
  ).action(async (o) => {
    oneOfFlag('--details', o.details, ['count', 'off']);
    const set = await readLabelledSet(o.data);
    const { kb } = await openKnowledgeBase(o.kb, { resolve: (s) => embedderFromSpec(s, embedderConfig(o)) });
    const c = await calibrate(kb, set, { details: o.details });
    await writeCalibration(o.kb, c);
    process.stdout.write(
      o.json
        ? JSON.stringify(c, null, 2) + '\n'
        : `calibrated ${c.embedder} on ${c.n} claims: weak ${c.thresholds.weak}, strong ${c.thresholds.strong} (balanced accuracy ${c.balanced_accuracy.toFixed(3)})\n`,
    );
  });
}

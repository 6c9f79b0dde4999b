import type { StopRule } from './stop.js';

/**
 * `maxCostUsd` / `--max-cost`: a stop rule that ends the run once its priced calls (system and verifiers,
 * resumed samples included) have cost the budget. The run ends `interrupted`, like Ctrl-C: every finished
 * sample is kept and `assay run --resume <runId> --max-cost <more>` continues it. Samples in flight when
 * the budget is reached still finish and are stored, so the spend may pass the budget by up to
 * `concurrency` samples' worth.
 */
export function maxCostRule(maxUsd: number): StopRule & { readonly spentUsd: number } {
  let spent = 0;
  return {
    name: 'max-cost',
    get spentUsd() {
      return spent;
    },
    observe(sample) {
      spent += sample.cost?.usd ?? 0;
    },
    check() {
      // A sum of float prices lands a hair under a budget it has reached (5 × 0.0002 = 0.000999…).
      if (spent < maxUsd - 1e-12) return undefined;
      return {
        rule: 'max-cost',
        status: 'interrupted',
        message: `stopped at the budget: the run has cost $${formatUsd(spent)}, reaching its budget of $${formatUsd(maxUsd)} (maxCostUsd, --max-cost). Finished samples are kept: finish the run with --resume and a larger --max-cost`,
      };
    },
  };
}

/** Dollars with enough digits to tell small amounts apart: 0.000012, 0.0008, 0.0123, 0.50, 1.23, 1,234.50. */
export function formatUsd(usd: number): string {
  if (usd === 0) return '0';
  if (Math.abs(usd) < 0.0001) return usd.toPrecision(2);
  if (Math.abs(usd) < 1) return usd.toFixed(4).replace(/(\.\d\d\d*?)0+$/, '$1');
  return usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

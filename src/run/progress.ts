import type cliProgressModule from 'cli-progress';
import { lazyPackage } from '../lazy.js';
import type { RunProgress } from './runner.js';

/** Progress for the CLI: a bar on a TTY, a plain line per ~10% otherwise (CI logs stay readable). */
export interface ProgressView {
  update(p: RunProgress): void;
  stop(): void;
}

// The bar's package loads on a terminal only (start-up, docs/runner.md).
const cliProgressPackage = lazyPackage<typeof cliProgressModule>('cli-progress');

export function createProgressView(stream: NodeJS.WriteStream = process.stderr, tty = Boolean(stream.isTTY)): ProgressView {
  if (tty) {
    const cliProgress = cliProgressPackage();
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: '{bar} {percentage}% | {value}/{total} samples | retries {retries} | errors {errors} | eta {eta_formatted}',
        hideCursor: true,
        clearOnComplete: true,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(p) {
        const value = p.done + p.skipped;
        if (!started) {
          bar.start(p.total, value, { retries: p.retries, errors: p.generationErrors });
          started = true;
        } else bar.update(value, { retries: p.retries, errors: p.generationErrors });
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  let lastDecile = -1;
  return {
    update(p) {
      const value = p.done + p.skipped;
      const decile = p.total ? Math.floor((value / p.total) * 10) : 10;
      if (decile === lastDecile) return;
      lastDecile = decile;
      stream.write(
        `progress ${value}/${p.total} samples (${Math.round((value / Math.max(1, p.total)) * 100)}%), retries ${p.retries}, generation errors ${p.generationErrors}\n`,
      );
    },
    stop() {},
  };
}

/**
 * Where the SPADE benchmark data lives for tests: `../shared/benchmarks/spade` beside the repository (or
 * `ASSAY_BENCHMARKS/spade`). The data is never copied into the project, so a fresh clone has none: tests
 * over it skip (the global setup prints one line saying so) unless `CI=true`, where they run and fail loudly.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../..');

export function benchmarksRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.ASSAY_BENCHMARKS ? resolve(env.ASSAY_BENCHMARKS) : join(ROOT, '..', 'shared', 'benchmarks');
}

export const SPADE_DATA = join(benchmarksRoot(), 'spade');

/** True when the tests over the benchmark data must be skipped: the data is absent and CI is not set. */
export const skipWithoutData = !existsSync(SPADE_DATA) && process.env.CI !== 'true';

/** A file of the benchmark; throws (in CI, where the data is required) naming the path when it is missing. */
export function spadeFile(name: string): string {
  const f = join(SPADE_DATA, name);
  if (!existsSync(f)) throw new Error(`SPADE benchmark file not found: ${f} (expected ../shared/benchmarks/spade beside the repository, or ASSAY_BENCHMARKS)`);
  return f;
}

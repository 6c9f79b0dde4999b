import { UsageError } from '../errors.js';

const ON = new Set(['1', 'true', 'on', 'yes']);
const OFF = new Set(['0', 'false', 'off', 'no']);

/**
 * Whether a reliability test serves outputs from the response cache: ASSAY_CACHE (1/0) wins, then the
 * describe's `cache` option, else on under `vitest --watch` (Vitest tells its workers VITEST_MODE=WATCH) and
 * off in `vitest run`. The one place this is decided.
 */
export function cacheOn(option: boolean | { key: string } | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = env.ASSAY_CACHE?.trim().toLowerCase();
  if (raw !== undefined && raw !== '') {
    if (ON.has(raw)) return true;
    if (OFF.has(raw)) return false;
    throw new UsageError(`ASSAY_CACHE: expected 1 (cache on) or 0 (cache off), found ${JSON.stringify(env.ASSAY_CACHE)}`, { path: 'ASSAY_CACHE' });
  }
  if (option !== undefined) return option !== false;
  return env.VITEST_MODE === 'WATCH';
}

/** The config `assay run` uses when given none: the one conventional config file in the working directory. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { assayCommandLine } from '../invocation.js';

/** Looked for in this order; `assay init` writes the first. */
export const DEFAULT_CONFIG_FILES = [
  'assay.yaml',
  'assay.yml',
  'assay.json',
  'assay.config.ts',
  'assay.config.mts',
  'assay.config.js',
  'assay.config.mjs',
] as const;

/** The conventional config file in `dir` (relative to it, as the user would type it), or a UsageError: none, or more than one. */
export function findDefaultConfig(dir: string): string {
  const found = DEFAULT_CONFIG_FILES.filter((f) => existsSync(join(dir, f)));
  if (found.length === 1) return found[0];
  if (found.length > 1) throw new UsageError(`assay run: found ${found.join(' and ')} here; name the one to run (${assayCommandLine(`run ${found[0]}`)})`);
  throw new UsageError(
    `assay run: expected a config file: none given, and no ${DEFAULT_CONFIG_FILES.slice(0, 2).join(' or ')} or assay.config.ts in ${dir} (${assayCommandLine('init')} writes one)`,
  );
}

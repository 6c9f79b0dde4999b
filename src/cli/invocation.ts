import { realpathSync } from 'node:fs';
import { dirname, sep } from 'node:path';

/**
 * How the user starts assay again, for the commands a message suggests: `npx assay` when this process came from
 * npx (`npm exec`) or from a project's own install (the bin under a node_modules folder of the working directory or
 * one above it: `assay` alone is then not on the user's PATH), `assay` for a global install. The one place this
 * is decided.
 */
export function assayCommand(env: NodeJS.ProcessEnv = process.env, script: string | undefined = process.argv[1], cwd = process.cwd()): string {
  if (env.npm_command === 'exec') return 'npx assay';
  if (script === undefined) return 'assay';
  let real = script;
  try {
    real = realpathSync(script);
  } catch {
    // a script that cannot be resolved is judged by the path it was started with
  }
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (real.startsWith(`${dir === sep ? '' : dir}${sep}node_modules${sep}`)) return 'npx assay';
    if (dirname(dir) === dir) return 'assay';
  }
}

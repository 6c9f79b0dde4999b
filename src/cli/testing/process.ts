import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
const SRC = fileURLToPath(new URL('../../', import.meta.url));
/** The bin as it ships: the bundle `npm run build` makes (scripts/bundle-cli.mjs). */
export const BUILT_MAIN = fileURLToPath(new URL('../../../dist/cli/main.js', import.meta.url));
// By its full path: a process started in another folder (a fresh temporary one) finds no node_modules there.
export const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/**
 * Which CLI the end-to-end tests run: the sources (`src/cli/main.ts` under tsx; in-process for captureCli),
 * or with ASSAY_TEST_CLI=bin the built bin, `node dist/cli/main.js`, in a process of its own. `npm test`
 * builds the package and then sets it, so CI tests what ships; a test file run by hand (`npx vitest run
 * src/cli/x.test.ts`) runs the sources, so an edit is tested without a build. A bin older than the sources
 * fails the test that would run it, with the command that rebuilds it.
 */
export const CLI_UNDER_TEST: 'sources' | 'bin' = process.env.ASSAY_TEST_CLI === 'bin' ? 'bin' : 'sources';

let fresh = false;
/** Throws when a source file the bin is built from changed after dist/cli/main.js was built. */
function assertBuilt(): void {
  if (fresh) return;
  let built: number;
  try {
    built = statSync(BUILT_MAIN).mtimeMs;
  } catch {
    throw new Error(`${BUILT_MAIN} does not exist: build it with npm run build (npm test does)`);
  }
  const newer = (dir: string): string | undefined => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name === 'testing') continue;
        const found = newer(file);
        if (found) return found;
      } else if (/(?<!\.test|\.case)\.ts$/.test(entry.name) && statSync(file).mtimeMs > built) return file;
    }
    return undefined;
  };
  const changed = newer(SRC);
  if (changed) throw new Error(`src/${relative(SRC, changed)} changed after ${BUILT_MAIN} was built: rebuild it with npm run build`);
  fresh = true;
}

/**
 * The node arguments that start the CLI under test, before the CLI's own: `['--import', tsx, 'src/cli/main.ts']`
 * or `['dist/cli/main.js']` (with `built`, the bin whatever ASSAY_TEST_CLI says). `nodeArgs` go before the
 * entry (a loader hook, a tracer).
 */
export function cliCommand(opts: { nodeArgs?: string[]; built?: boolean } = {}): string[] {
  if (opts.built || CLI_UNDER_TEST === 'bin') {
    assertBuilt();
    return [...(opts.nodeArgs ?? []), BUILT_MAIN];
  }
  return ['--import', TSX, ...(opts.nodeArgs ?? []), MAIN];
}

/**
 * The CLI in a process of its own, as a user runs it (tests only): its exit code and output, once it has
 * exited. Where captureCli cannot tell, this can: that the process ends by itself (nothing left keeping it
 * alive), and what it creates in its working directory. The CLI under test (cliCommand), or with `built`
 * the bin in dist/.
 */
export function runCliProcess(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; nodeArgs?: string[]; built?: boolean; stdin?: string } = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }> {
  const child = spawn(process.execPath, [...cliCommand(opts), ...args], {
    // `stdin`: what a pipe gives it (keys for a grading session), then its end
    stdio: [opts.stdin !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    env: opts.env ?? process.env,
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, out, err })));
}

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
/** The bin as it ships: the bundle `npm run build` makes (scripts/bundle-cli.mjs). */
export const BUILT_MAIN = fileURLToPath(new URL('../../../dist/cli/main.js', import.meta.url));
// By its full path: a process started in another folder (a fresh temporary one) finds no node_modules there.
export const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/**
 * The CLI in a process of its own, as a user runs it (tests only): its exit code and output, once it has
 * exited. Where captureCli cannot tell, this can: that the process ends by itself (nothing left keeping it
 * alive), and what it creates in its working directory. From the sources under tsx, or with `built` the
 * bundle in dist/ (built by `npm run build`, which `npm test` runs first).
 */
export function runCliProcess(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; nodeArgs?: string[]; built?: boolean } = {},
): Promise<{ code: number | null; out: string; err: string }> {
  const [loader, entry] = opts.built ? [[], BUILT_MAIN] : [['--import', TSX], MAIN];
  const child = spawn(process.execPath, [...loader, ...(opts.nodeArgs ?? []), entry, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    env: opts.env ?? process.env,
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

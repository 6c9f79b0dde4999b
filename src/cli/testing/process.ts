import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
// By its full path: a process started in another folder (a fresh temporary one) finds no node_modules there.
export const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/**
 * The CLI in a process of its own, as a user runs it (tests only): its exit code and output, once it has
 * exited. Where captureCli cannot tell, this can: that the process ends by itself (nothing left keeping it
 * alive), and what it creates in its working directory.
 */
export function runCliProcess(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; nodeArgs?: string[] } = {},
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, ['--import', TSX, ...(opts.nodeArgs ?? []), MAIN, ...args], {
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

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TSX } from '../../cli/testing/process.js';

const BOUNDED = fileURLToPath(new URL('./bounded-batch.ts', import.meta.url));

/** bounded-batch.ts in a process whose heap is capped at 64 MB: its exit, and what it printed. */
export function boundedRun(mode: 'stream' | 'memory' | 'answers', n: number, out: string) {
  const r = spawnSync(process.execPath, ['--max-old-space-size=64', '--import', TSX, BOUNDED, mode, String(n), out], { encoding: 'utf8', timeout: 900_000 });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

import { main } from '../main.js';
import { CLI_UNDER_TEST, runCliProcess } from './process.js';

/**
 * Run the CLI as a user would, capturing what it writes and its exit code (tests only). The sources run
 * in-process (fast, and a failure's stack is the test's own); the built bin (ASSAY_TEST_CLI=bin, which
 * `npm test` sets) in a process of its own, in this process's working directory and environment.
 */
export async function captureCli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  if (CLI_UNDER_TEST === 'bin') {
    const r = await runCliProcess(args, { cwd: process.cwd() });
    if (r.code === null) throw new Error(`assay ${args.join(' ')} was ended by ${r.signal}; stderr: ${r.err}`);
    return { code: r.code, out: r.out, err: r.err };
  }
  let out = '';
  let err = '';
  const w1 = process.stdout.write.bind(process.stdout);
  const w2 = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string | Uint8Array) => ((out += String(s)), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string | Uint8Array) => ((err += String(s)), true)) as typeof process.stderr.write;
  const before = process.exitCode;
  try {
    return { code: await main(args), out, err };
  } finally {
    process.stdout.write = w1;
    process.stderr.write = w2;
    process.exitCode = before;
  }
}

import { main } from '../main.js';

/** Run the CLI in-process as a user would, capturing what it writes and its exit code (tests only). */
export async function captureCli(args: string[]): Promise<{ code: number; out: string; err: string }> {
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

/**
 * npm run -s bench:grounded-check [-- --json] — what the `grounded` check costs the runner's thread: the same
 * outputs audited (a) by the check as built (the engine in a worker thread, the KB loaded there once) and (b) by
 * the engine on the calling thread, as a naive validator would, eight at a time as the runner checks them. For
 * each: how late a 10 ms heartbeat timer on the calling thread fires while it works (p50/p99/max: what the
 * runner's other work — provider I/O, progress, Ctrl-C — waits), the wall time, and the time per output. Not a test: figures for docs/grounding.md.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { saveKnowledgeBase } from '../src/ground/kb/kb-store.js';
import { createGroundingEngine } from '../src/ground/service.js';
import { sentenceSource, syntheticKb } from '../src/ground/testing/heavy.js';
import { groundedValidator } from '../src/validators/grounded.js';

const DOCS = Number(process.env.BENCH_DOCS ?? 400);
const OUTPUTS = Number(process.env.BENCH_OUTPUTS ?? 96);
const CLAIMS = 20;
const CONCURRENCY = 8;
const r1 = (x: number) => Math.round(x * 10) / 10;

/** Lateness of a 10 ms heartbeat on the calling thread while `check` audits the outputs, eight at a time. */
async function measure(label: string, check: (output: string) => Promise<unknown>, outputs: string[]) {
  await check(outputs[0]); // warm-up (JIT, first KB touches)
  const ticks: number[] = [];
  const beat = setInterval(() => ticks.push(performance.now()), 10);
  await new Promise((r) => setTimeout(r, 50));
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < outputs.length) await check(outputs[next++]);
    }),
  );
  const wall = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 30)); // the heartbeat that was held back fires now and is counted
  clearInterval(beat);
  const late = ticks
    .slice(1)
    .map((t, i) => t - ticks[i] - 10)
    .sort((a, b) => a - b);
  const q = (p: number) => r1(Math.max(0, late[Math.min(late.length - 1, Math.floor(p * late.length))]));
  return {
    label,
    wall_ms: r1(wall),
    ms_per_output: r1(wall / outputs.length),
    heartbeats: late.length,
    heartbeat_late_p50_ms: q(0.5),
    heartbeat_late_p99_ms: q(0.99),
    heartbeat_late_max_ms: r1(Math.max(0, late[late.length - 1])),
  };
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'assay-bench-grounded-'));
  try {
    const kb = await syntheticKb(DOCS, 60);
    await saveKnowledgeBase(kb, join(dir, 'kb'));
    const sentence = sentenceSource(23);
    const outputs = Array.from({ length: OUTPUTS }, () => Array.from({ length: CLAIMS }, sentence).join(' '));

    const check = await groundedValidator({ name: 'grounded', minSuccess: 0.9 }, { type: 'grounded', kb: './kb', maxRisk: 'medium' }, { baseDir: dir });
    const inWorker = await measure('grounded check (worker thread)', (o) => check.evaluate!(o, 'q', new AbortController().signal), outputs);
    await check.close();

    const engine = await createGroundingEngine({ kbDir: join(dir, 'kb') });
    const onThread = await measure('engine on the calling thread', (o) => engine.analyze({ query: 'q', answer: o }), outputs);

    const result = {
      kb: { documents: DOCS, chunks: kb.chunks.length, windows: kb.windowCount },
      outputs: OUTPUTS,
      claims_per_output: CLAIMS,
      concurrency: CONCURRENCY,
      load_average: loadavg().map(r1),
      worker: inWorker,
      calling_thread: onThread,
    };
    if (process.argv.includes('--json')) process.stdout.write(JSON.stringify(result) + '\n');
    else console.log(JSON.stringify(result, null, 2));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();

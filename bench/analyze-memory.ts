/**
 * `npm run -s bench:analyze-memory -- [--sizes 10000,100000] [--baseline <checkout>] [--reports json|all] [--parts]`
 *
 * Peak memory of `assay analyze --answers` over batches of short answers (issue 30: a report for 1M answers in
 * bounded memory). Builds a knowledge base from examples/grounded/docs, writes answers files of each size
 * (five short answers in turn: supported, contradicted, unsupported), and runs the CLI from source in a process
 * of its own under `/usr/bin/time -v`, the JSON report to a file (`--reports all`: JUnit and Markdown too) and
 * the table to /dev/null. With `--baseline <dir>` (another checkout of assay, e.g. a worktree of main), its CLI
 * runs the same batches side by side, each size the baseline first.
 *
 * Prints one JSON object: per run the CLI, the answers, the exit code, peak RSS in MB ("Maximum resident set
 * size"), wall seconds and the JSON report's bytes; the load average before and after.
 *
 * `--parts`: instead of the CLI (whose analysis takes about a millisecond an answer), the two parts that grow with
 * the batch, without the engine (src/report/testing/bounded-batch.ts): `stream`, the four reports of synthetic
 * results written by BatchReportWriter; `memory`, the same reports built from an array of the results, as before
 * issue 30; `answers`, an answers file (about 380 bytes a line) checked and read streamed.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { TSX } from '../src/cli/testing/process.js';

function fail(message: string): never {
  process.stderr.write(`bench:analyze-memory: ${message}\n`);
  process.exit(2);
}

let values: { sizes?: string; baseline?: string; reports?: string; parts?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '10000,100000' },
      baseline: { type: 'string' },
      reports: { type: 'string', default: 'json' },
      parts: { type: 'boolean' },
    },
  }));
} catch (err) {
  fail((err as Error).message);
}
const sizes = values.sizes!.split(',').map((s) => {
  const n = Number(s.trim());
  if (!(Number.isInteger(n) && n >= 1)) fail(`--sizes: expected whole numbers ≥ 1 separated by commas, found "${s}"`);
  return n;
});
if (values.reports !== 'json' && values.reports !== 'all') fail(`--reports: expected json or all, found "${values.reports}"`);
const TIME = '/usr/bin/time';
if (!existsSync(TIME)) fail(`${TIME} is needed (GNU time, for "Maximum resident set size"): install the time package`);

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const main = (checkout: string) => {
  const file = join(resolve(checkout), 'src', 'cli', 'main.ts');
  if (!existsSync(file)) fail(`${checkout}: expected a checkout of assay (no src/cli/main.ts)`);
  return file;
};
const clis = [...(values.baseline ? [{ name: 'baseline', main: main(values.baseline) }] : []), { name: 'current', main: main(ROOT) }];

const ANSWERS = [
  'Opened routers can be returned within 14 days of purchase with the receipt.',
  'Opened routers can be returned within 60 days of purchase with the receipt.',
  'After a firmware update the router reboots in two minutes.',
  'The X200 is rated IP68 and survives an hour under water.',
  'The X200 router supports 5G.',
];

async function answersFile(file: string, n: number): Promise<void> {
  const out = createWriteStream(file);
  for (let i = 0; i < n; i++)
    if (!out.write(`${JSON.stringify({ id: `a${i}`, query: 'What about the router?', answer: ANSWERS[i % ANSWERS.length] })}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

/** A command under GNU time: exit code (or signal), peak RSS, seconds, and the line that says why it failed. */
function timed(args: string[]) {
  const started = Date.now();
  const r = spawnSync(TIME, ['-v', ...args], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 1 << 26 });
  const seconds = +((Date.now() - started) / 1000).toFixed(1);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  const exit = /Exit status: (\d+)/.exec(r.stderr);
  const signal = /Command terminated by signal (\d+)/.exec(r.stderr);
  const said = r.stderr.split('\n').find((l) => /^assay:|Error|heap out of memory/.test(l) && !l.startsWith('assay: wrote'));
  return {
    exit_code: exit ? Number(exit[1]) : r.status,
    ...(signal ? { signal: Number(signal[1]) } : {}),
    ...(said ? { error: said.slice(0, 300) } : {}),
    peak_rss_mb: rss ? Math.round(Number(rss[1]) / 1024) : null,
    seconds,
  };
}

const dir = mkdtempSync(join(tmpdir(), 'assay-bench-analyze-'));
if (values.parts) {
  try {
    const load = { before: loadavg().map((x) => +x.toFixed(2)), after: [] as number[] };
    const runs = [];
    const script = join(ROOT, 'src', 'report', 'testing', 'bounded-batch.ts');
    for (const n of sizes)
      for (const part of ['stream', 'memory', 'answers']) {
        runs.push({ part, answers: n, ...timed([process.execPath, '--import', TSX, script, part, String(n), dir]) });
        for (const f of ['batch.json', 'batch.xml', 'batch.md', 'table.txt', 'answers.jsonl']) rmSync(join(dir, f), { force: true });
      }
    load.after = loadavg().map((x) => +x.toFixed(2));
    process.stdout.write(JSON.stringify({ bench: 'analyze-memory', parts: true, node: process.version, load, runs }, null, 2) + '\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}
try {
  const kb = join(dir, 'kb');
  const ingest = spawnSync(process.execPath, ['--import', TSX, main(ROOT), 'kb', 'ingest', join(ROOT, 'examples', 'grounded', 'docs'), '--kb', kb], {
    encoding: 'utf8',
  });
  if (ingest.status !== 0) fail(`kb ingest failed: ${ingest.stderr}`);
  const load = { before: loadavg().map((x) => +x.toFixed(2)), after: [] as number[] };
  const runs = [];
  for (const n of sizes) {
    const file = join(dir, `answers-${n}.jsonl`);
    await answersFile(file, n);
    for (const cli of clis) {
      const out = (ext: string) => join(dir, `${cli.name}-${n}.${ext}`);
      const reports = values.reports === 'all' ? ['--junit', out('xml'), '--markdown', out('md')] : [];
      const r = timed([process.execPath, '--import', TSX, cli.main, 'analyze', '--kb', kb, '--answers', file, '--json', out('json'), ...reports]);
      runs.push({ cli: cli.name, answers: n, ...r, json_bytes: existsSync(out('json')) ? statSync(out('json')).size : 0 });
      for (const ext of ['json', 'xml', 'md']) rmSync(out(ext), { force: true });
    }
    rmSync(file, { force: true });
  }
  load.after = loadavg().map((x) => +x.toFixed(2));
  const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
  process.stdout.write(JSON.stringify({ bench: 'analyze-memory', version, node: process.version, reports: values.reports, load, runs }, null, 2) + '\n');
} finally {
  rmSync(dir, { recursive: true, force: true });
}

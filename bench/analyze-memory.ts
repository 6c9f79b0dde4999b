/**
 * `npm run -s bench:analyze-memory -- [--sizes 10000,100000] [--baseline <checkout>] [--reports json|all]`
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
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

function fail(message: string): never {
  process.stderr.write(`bench:analyze-memory: ${message}\n`);
  process.exit(2);
}

let values: { sizes?: string; baseline?: string; reports?: string };
try {
  ({ values } = parseArgs({
    options: { sizes: { type: 'string', default: '10000,100000' }, baseline: { type: 'string' }, reports: { type: 'string', default: 'json' } },
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
const TSX = import.meta.resolve('tsx');

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

const dir = mkdtempSync(join(tmpdir(), 'assay-bench-analyze-'));
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
      const started = Date.now();
      const r = spawnSync(
        TIME,
        ['-v', process.execPath, '--import', TSX, cli.main, 'analyze', '--kb', kb, '--answers', file, '--json', out('json'), ...reports],
        {
          stdio: ['ignore', 'ignore', 'pipe'],
          encoding: 'utf8',
          maxBuffer: 1 << 26,
        },
      );
      const seconds = (Date.now() - started) / 1000;
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
      const exit = /Exit status: (\d+)/.exec(r.stderr);
      const said = r.stderr.split('\n').find((l) => l.startsWith('assay:') && !l.startsWith('assay: wrote'));
      runs.push({
        cli: cli.name,
        answers: n,
        exit_code: exit ? Number(exit[1]) : r.status,
        ...(/Command terminated by signal (\d+)/.exec(r.stderr) ? { signal: Number(/signal (\d+)/.exec(r.stderr)![1]) } : {}),
        ...(said ? { error: said.slice(0, 300) } : {}),
        peak_rss_mb: rss ? Math.round(Number(rss[1]) / 1024) : null,
        seconds: +seconds.toFixed(1),
        json_bytes: existsSync(out('json')) ? statSync(out('json')).size : 0,
      });
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

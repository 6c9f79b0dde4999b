/**
 * `npm run bench:startup [-- --json] [--runs 10] [--root DIR] [--baseline DIR]`
 *
 * Start-up cost of the built package (dist; the npm script builds it first), as a user meets it:
 * - node_s: `node -e 0`, the floor;
 * - version_s: `assay --version`;
 * - run_one_s: `assay run` of one call (1 input × 1 sample, one `contains` check) against `assay mock`
 *   (started once, before timing, in a process of its own), SQLite store in a temp folder, terminal report;
 * - import_vitest_s: `node -e "await import('assay/vitest')"`, resolved through the package's own exports
 *   (null, with a note, when the package has no `assay/vitest`).
 * Commands are alternated round-robin (`--runs` rounds, default 10) so machine load hits all alike; each
 * figure is the median of its runs, with min_s and max_s beside it, and the ratios run_one_per_node and
 * import_vitest_per_node (targets: ≤ 4 and ≤ 3). `--root` measures another checkout's built package (its
 * package.json, dist and node_modules); `--baseline DIR` measures one more package in the same rounds,
 * alternated with this one (e.g. main's build: a before/after figure under the same load), under `baseline`.
 *
 * Prints one JSON object with --json, else a table. Every command must exit 0, or the bench fails.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

function fail(message: string): never {
  process.stderr.write(`bench:startup: ${message}\n`);
  process.exit(2);
}

let values: { json?: boolean; runs?: string; root?: string; baseline?: string };
try {
  ({ values } = parseArgs({
    options: { json: { type: 'boolean' }, runs: { type: 'string', default: '10' }, root: { type: 'string' }, baseline: { type: 'string' } },
  }));
} catch (err) {
  fail((err as Error).message);
}
const RUNS = Number(values.runs);
if (!(Number.isInteger(RUNS) && RUNS >= 1)) fail(`--runs must be a whole number ≥ 1, got "${values.runs}"`);
/** A built package to measure: its root, its CLI, and whether it has `assay/vitest`. */
function packageAt(root: string): { root: string; main: string; hasVitest: boolean } {
  const main = join(root, 'dist', 'cli', 'main.js');
  if (!existsSync(main)) fail(`${main} not found: build the package first (npm run build)`);
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports?: Record<string, unknown> };
  return { root, main, hasVitest: pkg.exports?.['./vitest'] !== undefined && existsSync(join(root, 'dist', 'vitest', 'index.js')) };
}
const measured = packageAt(resolve(values.root ?? fileURLToPath(new URL('..', import.meta.url))));
const baseline = values.baseline === undefined ? undefined : packageAt(resolve(values.baseline));
const MAIN = measured.main;

/** `assay mock` on a free port, in a process of its own: resolves with its base URL once it listens. */
function startMock(): Promise<{ baseURL: string; stop(): void }> {
  const child = spawn(process.execPath, [MAIN, 'mock', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((ok, ko) => {
    let out = '';
    child.once('exit', (code) => ko(new Error(`assay mock exited (${code}) before listening`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(out)?.[1];
      if (url) {
        child.removeAllListeners('exit');
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        ok({ baseURL: url, stop: () => child.kill('SIGTERM') });
      }
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'assay-bench-startup-'));
const mock = await startMock();
try {
  const config = join(dir, 'assay.yaml');
  // One call; minSuccess low enough that one pass decides it, so the run exits 0 (anything else fails the bench).
  writeFileSync(
    config,
    [
      'name: startup',
      `system: { openai: { model: gpt-4o-mini, baseURL: "${mock.baseURL}" } }`,
      'inputs: ["Say hello."]',
      'samples: 1',
      'validators:',
      '  - { name: greets, check: { type: contains, value: hello, ignoreCase: true }, minSuccess: 0.01 }',
      '',
    ].join('\n'),
  );
  const env = { ...process.env, OPENAI_API_KEY: 'bench', NO_COLOR: '1' };
  const commandsOf = (p: typeof measured, tag: string) => [
    { key: 'node', args: ['-e', '0'] },
    { key: 'version', args: [p.main, '--version'] },
    { key: 'run_one', args: [p.main, 'run', config, '--store', join(dir, `${tag}.db`), '--no-progress'] },
    ...(p.hasVitest ? [{ key: 'import_vitest', args: ['--input-type=module', '-e', "await import('assay/vitest')"] }] : []),
  ];
  const sets = [
    { p: measured, commands: commandsOf(measured, 'measured'), times: new Map<string, number[]>() },
    ...(baseline ? [{ p: baseline, commands: commandsOf(baseline, 'baseline'), times: new Map<string, number[]>() }] : []),
  ];
  for (let r = 0; r < RUNS; r++) {
    for (const set of sets) {
      for (const c of set.commands) {
        const t0 = performance.now();
        // cwd: the package's root, where `assay/vitest` resolves through its own exports (self-reference).
        const res = spawnSync(process.execPath, c.args, { cwd: set.p.root, env, encoding: 'utf8' });
        const seconds = (performance.now() - t0) / 1000;
        if (res.status !== 0) fail(`${c.key} (${set.p.root}) exited ${res.status}:\n${res.stdout}${res.stderr}`);
        set.times.set(c.key, [...(set.times.get(c.key) ?? []), seconds]);
      }
    }
    if (!values.json) process.stderr.write(`round ${r + 1}/${RUNS}\n`);
  }
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  };
  const figures = (set: (typeof sets)[number]) => {
    const med = (k: string) => (set.times.has(k) ? round(median(set.times.get(k)!)) : null);
    const node = med('node')!;
    const runOne = med('run_one')!;
    const importVitest = med('import_vitest');
    return {
      node_s: node,
      version_s: med('version'),
      run_one_s: runOne,
      import_vitest_s: importVitest,
      run_one_per_node: round(runOne / node),
      import_vitest_per_node: importVitest === null ? null : round(importVitest / node),
      min_s: Object.fromEntries([...set.times].map(([k, xs]) => [k, round(Math.min(...xs))])),
      max_s: Object.fromEntries([...set.times].map(([k, xs]) => [k, round(Math.max(...xs))])),
      ...(set.p.hasVitest ? {} : { note: 'this package has no assay/vitest export (dist/vitest/index.js): import_vitest_s not measured' }),
    };
  };
  const result = {
    ...figures(sets[0]),
    runs: RUNS,
    node_version: process.version,
    loadavg_1m: round(loadavg()[0]),
    ...(sets[1] ? { baseline: { root: sets[1].p.root, ...figures(sets[1]) } } : {}),
  };
  if (values.json) process.stdout.write(JSON.stringify(result) + '\n');
  else {
    const show = (label: string, f: ReturnType<typeof figures>) => {
      for (const k of Object.keys(f.min_s)) {
        const med = (f as unknown as Record<string, number>)[`${k}_s`];
        process.stdout.write(`${label}${k.padEnd(14)} median ${med} s  min ${f.min_s[k]} s  max ${f.max_s[k]} s\n`);
      }
      process.stdout.write(`${label}run_one / node ${f.run_one_per_node}  import_vitest / node ${f.import_vitest_per_node ?? 'n/a'}\n`);
    };
    show('', figures(sets[0]));
    if (sets[1]) show('baseline ', figures(sets[1]));
  }
} finally {
  mock.stop();
  rmSync(dir, { recursive: true, force: true });
}

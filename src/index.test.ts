import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as assay from './index.js';
import * as stats from './api/stats.js';
import { MemoryStore } from './api/store.js';

const API_DOC = readFileSync(join(import.meta.dirname, '..', 'docs', 'api.md'), 'utf8');
const PACKAGE = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
const API_DIR = join(import.meta.dirname, 'api');

/** The entry points: '.' (src/index.ts) and each subpath's entry file src/api/<name>.ts (`assay/<name>`). */
const SUBPATHS = readdirSync(API_DIR)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => f.slice(0, -'.ts'.length))
  .sort();
const ENTRIES = ['.', ...SUBPATHS];
const sourceOf = (entry: string) => readFileSync(entry === '.' ? join(import.meta.dirname, 'index.ts') : join(API_DIR, `${entry}.ts`), 'utf8');
const load = (entry: string): Promise<Record<string, unknown>> =>
  entry === '.' ? import('./index.js') : import(/* @vite-ignore */ pathToFileURL(join(API_DIR, `${entry}.ts`)).href);

type Row = { name: string; kind: string };

/**
 * The rows of docs/api.md's tables by entry point: every backticked name of the first column with the row's
 * kind. A `## ` heading naming `assay/<name>` starts that subpath's section; any other `## ` heading is the root's.
 */
function documented(): Map<string, Row[]> {
  const out = new Map<string, Row[]>();
  let entry = '.';
  for (const line of API_DOC.split('\n')) {
    if (line.startsWith('## ')) entry = /`assay\/([\w/-]+)`/.exec(line)?.[1] ?? '.';
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4 || !cells[1].startsWith('`')) continue;
    const rows = out.get(entry) ?? [];
    for (const m of cells[1].matchAll(/`(\w+)`/g)) rows.push({ name: m[1], kind: cells[2] });
    out.set(entry, rows);
  }
  return out;
}

/** The type names an entry file exports: `export type { … }`, and `type X` inside `export { … }`. */
function exportedTypes(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/export\s+(type\s+)?\{([^}]*)\}/g))
    for (const part of m[2].split(',').map((p) => p.trim())) {
      if (!part) continue;
      if (m[1]) out.push(part);
      else if (part.startsWith('type ')) out.push(part.slice('type '.length).trim());
    }
  return out;
}

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

// The package root is the typed library API: a user writes an experiment in code, runs it, and reads the statistics.
describe('public API (package root)', () => {
  it('runs an experiment in code end to end: simulated system, real predicate, memory store, summary and planner', async () => {
    const system = assay.createSystem(
      {
        simulated: {
          seed: 7,
          latencyMs: 0,
          outputs: [
            { text: 'short answer', weight: 3 },
            { text: 'a much longer answer than allowed', weight: 1 },
          ],
        },
      },
      { baseDir: '.' },
    );
    const validators: assay.Validator[] = [
      { name: 'short', message: 'too long', minSuccess: 0.9, predicate: (o) => o.length <= 12 },
      {
        name: 'throws',
        message: 'never decides',
        minSuccess: 0.5,
        predicate: () => {
          throw new Error('boom');
        },
      },
    ];
    const store = new MemoryStore();
    const result = await assay.runExperiment({
      experiment: { name: 'api', inputs: ['a', 'b', 'c'], samples: 40, validators },
      system,
      store,
      concurrency: 4,
    });
    expect(result.status).toBe('complete');
    const summary = assay.summarize(result.tensor, result.run.validators, { verdict: 'confident' });
    const [short, throws] = summary.validators;
    expect(short.counts.pass + short.counts.fail).toBe(120);
    expect(short.counts.error).toBe(0);
    // true rate 0.75 (weights 3:1) against 0.9: the estimate lies within 4 standard errors, and the verdict fails
    expect(Math.abs(short.rate! - 0.75)).toBeLessThan(4 * Math.sqrt((0.75 * 0.25) / 120));
    expect(short.ci!.low).toBeLessThan(short.rate!);
    expect(short.ci!.high).toBeLessThan(0.9);
    expect(short.verdict).toBe('fail');
    // a predicate that throws is an error outcome on every cell, never a failure
    expect(throws.counts).toEqual({ pass: 0, fail: 0, error: 120, pending: 0 });
    expect(throws.rate).toBeNull();
    expect(throws.verdict).toBe('error');

    const plan = stats.planFromRates([short.rate!], 0.99);
    expect(plan.m).toBe(stats.minAttempts(short.rate!, 0.99));
    expect(1 - (1 - short.rate!) ** plan.m!).toBeGreaterThanOrEqual(0.99);
    await store.close();
  });

  it('exports exactly what docs/api.md lists, entry by entry: every value by name, every type by name', async () => {
    const docs = documented();
    // Every section with names is an entry point, and every entry point has a section.
    expect(sorted(docs.keys())).toEqual(sorted(ENTRIES));
    for (const entry of ENTRIES) {
      const rows = docs.get(entry)!;
      const module = await load(entry);
      expect(Object.keys(module).sort(), `assay${entry === '.' ? '' : `/${entry}`}: values`).toEqual(
        sorted(rows.filter((r) => r.kind !== 'type').map((r) => r.name)),
      );
      expect(sorted(exportedTypes(sourceOf(entry))), `assay${entry === '.' ? '' : `/${entry}`}: types`).toEqual(
        sorted(rows.filter((r) => r.kind === 'type').map((r) => r.name)),
      );
      for (const r of rows) {
        if (r.kind === 'function' || r.kind === 'class') expect(typeof module[r.name], r.name).toBe('function');
        if (r.kind === 'const') expect(module[r.name], r.name).toBeDefined();
      }
    }
  });

  it('gives every name one home: no name is exported by two entry points, and internals by none', async () => {
    const homes = new Map<string, string[]>();
    for (const entry of ENTRIES)
      for (const name of [...Object.keys(await load(entry)), ...exportedTypes(sourceOf(entry))]) homes.set(name, [...(homes.get(name) ?? []), entry]);
    expect([...homes].filter(([, entries]) => entries.length > 1)).toEqual([]);
    for (const internal of ['StatsAccumulator', 'callWithRetry', 'SqliteStore', 'FlatIPIndex', 'mulberry32', 'logGamma', 'createApp', 'analyze'])
      expect(homes.has(internal), internal).toBe(false);
  });

  it('keeps the root small: the run lifecycle in at most 40 names', () => {
    expect(Object.keys(assay).length).toBeLessThanOrEqual(40);
  });

  it("publishes each subpath's entry file in package.json, as the build emits it", () => {
    for (const name of SUBPATHS) expect(PACKAGE.exports[`./${name}`], name).toEqual({ types: `./dist/api/${name}.d.ts`, default: `./dist/api/${name}.js` });
    const intoApi = Object.entries(PACKAGE.exports).filter(([, target]) => JSON.stringify(target).includes('/dist/api/'));
    expect(intoApi.map(([key]) => key).sort()).toEqual(SUBPATHS.map((n) => `./${n}`));
  });

  it('runs the example of docs/api.md as written: a YAML config, the SQLite store, the exit code', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'assay-api-'));
    try {
      writeFileSync(
        join(dir, 'assay.yaml'),
        'system:\n  simulated: { seed: 1, latencyMs: 0, outputs: [{ text: "Hello!" }] }\ninputs: ["Say hello."]\nsamples: 40\nvalidators:\n  - { name: short, message: Too long, minSuccess: 0.9, predicate: "o => o.length < 200" }\n',
      );
      const experiment = await assay.loadExperiment(join(dir, 'assay.yaml'));
      const system = assay.createSystem(experiment.systemConfig, { baseDir: experiment.baseDir, inputs: experiment.inputs });
      const store = await assay.openStore(join(dir, '.assay', 'assay.db'));
      const { run, status, tensor } = await assay.runExperiment({ experiment, system, store });
      const summary = assay.summarizeRun(run, tensor);
      expect(assay.exitCodeFor(summary, status)).toBe(assay.ExitCode.OK);
      // 40 of 40 show 0.9 at 95% (a confident pass needs 36), as summarize with the experiment's own options says too.
      expect(summary.validators[0]).toMatchObject({ verdict: 'pass', counts: { pass: 40 } });
      expect(assay.summarize(tensor, run.validators, assay.summaryOptionsOf(experiment)).validators[0].verdict).toBe('pass');
      await store.close();
      experiment.dispose();
      expect(API_DOC).toContain('const summary = summarizeRun(run, tensor);');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("checks a judge against people in code: the grades to draw, the judge's alignment, the corrected rate", () => {
    // 1,000 judged outputs, 900 passed by the judge; people grade a stratified draw of 60.
    const outputs = Array.from({ length: 1000 }, (_, id) => ({ id, judge: id % 10 !== 0 }));
    const { picks, design } = stats.suggestGrading(outputs, 60, { seed: 1, design: 'stratified' });
    expect([picks.length, design]).toEqual([60, 'stratified']);
    // About one in seven of the judge's PASS verdicts is wrong (person FAIL); its FAIL verdicts are right.
    const graded = picks.map((p) => ({ judge: p.id % 10 !== 0, person: p.id % 10 !== 0 && p.id % 7 !== 0, probability: p.probability }));
    const a = stats.alignment(graded, 0.95);
    expect(a.tnr!.rate).toBeLessThan(1);
    expect(a.weighted).toBe(true);
    const c = stats.correctedRate({ judged: { pass: 900, n: 1000 }, graded, level: 0.95 })!;
    expect(c.rate).toBeLessThan(0.9);
    expect(c.low).toBeLessThan(c.rate);
    expect(c.grades).toBe(60);
    expect(stats.gradesForWidth({ judged: { pass: 900, n: 1000 }, tpr: a.tpr!.rate, tnr: a.tnr!.rate, width: 0.1, level: 0.95 })).toBeGreaterThan(0);
  });

  it('exposes each area under its subpath: statistics, store, sandbox, spade, grounding, guard, judges, providers, server', async () => {
    expect(stats.wilson(95, 100, 0.95)!.low).toBeCloseTo(0.8882, 4);
    expect(typeof (await import('./api/store.js')).openSqliteStore).toBe('function');
    expect(typeof (await import('./api/sandbox.js')).createSandbox).toBe('function');
    expect(typeof (await import('./api/spade.js')).select).toBe('function');
    expect(typeof (await import('./api/grounding.js')).createGroundingEngine).toBe('function');
    expect(typeof (await import('./api/guard.js')).guard).toBe('function');
    expect(typeof (await import('./api/judges.js')).createJudge).toBe('function');
    expect(typeof (await import('./api/providers.js')).chatModelFromConfig).toBe('function');
    expect(typeof (await import('./api/server.js')).startServer).toBe('function');
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as assay from './index.js';

const API_DOC = readFileSync(join(import.meta.dirname, '..', 'docs', 'api.md'), 'utf8');
const INDEX = readFileSync(join(import.meta.dirname, 'index.ts'), 'utf8');

/** The rows of docs/api.md's tables: every backticked name of the first column with the row's kind. */
function documented(): { name: string; kind: string }[] {
  const out: { name: string; kind: string }[] = [];
  for (const line of API_DOC.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4 || !cells[1].startsWith('`')) continue;
    for (const m of cells[1].matchAll(/`([\w.]+)`/g)) out.push({ name: m[1], kind: cells[2] });
  }
  return out;
}

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
    const store = new assay.MemoryStore();
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

    const plan = assay.planFromRates([short.rate!], 0.99);
    expect(plan.m).toBe(assay.minAttempts(short.rate!, 0.99));
    expect(1 - (1 - short.rate!) ** plan.m!).toBeGreaterThanOrEqual(0.99);
    await store.close();
  });

  it('exports exactly what docs/api.md lists: every value by name, every type in src/index.ts', () => {
    const rows = documented();
    const values = rows.filter((r) => r.kind !== 'type' && !r.name.includes('.')).map((r) => r.name);
    expect(Object.keys(assay).sort()).toEqual([...new Set(values)].sort());
    const spadeValues = rows.filter((r) => r.name.startsWith('spade.')).map((r) => r.name.slice('spade.'.length));
    expect(Object.keys(assay.spade).sort()).toEqual([...new Set(spadeValues)].sort());
    for (const r of rows.filter((r) => r.kind === 'type')) expect(INDEX, r.name).toMatch(new RegExp(`\\b${r.name}\\b`));
    for (const r of rows) {
      const v = r.name.startsWith('spade.') ? (assay.spade as Record<string, unknown>)[r.name.slice(6)] : (assay as Record<string, unknown>)[r.name];
      if (r.kind === 'function' || r.kind === 'class') expect(typeof v, r.name).toBe('function');
      if (r.kind === 'const' || r.kind === 'namespace') expect(v, r.name).toBeDefined();
    }
    // Internals stay out of the package root.
    for (const internal of ['StatsAccumulator', 'callWithRetry', 'SqliteStore', 'FlatIPIndex', 'mulberry32', 'logGamma', 'createApp'])
      expect(assay).not.toHaveProperty(internal);
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
      const store = assay.openSqliteStore(join(dir, '.assay', 'assay.db'));
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
    const { picks, design } = assay.suggestGrading(outputs, 60, { seed: 1, design: 'stratified' });
    expect([picks.length, design]).toEqual([60, 'stratified']);
    // About one in seven of the judge's PASS verdicts is wrong (person FAIL); its FAIL verdicts are right.
    const graded = picks.map((p) => ({ judge: p.id % 10 !== 0, person: p.id % 10 !== 0 && p.id % 7 !== 0, probability: p.probability }));
    const a = assay.alignment(graded, 0.95);
    expect(a.tnr!.rate).toBeLessThan(1);
    expect(a.weighted).toBe(true);
    const c = assay.correctedRate({ judged: { pass: 900, n: 1000 }, graded, level: 0.95 })!;
    expect(c.rate).toBeLessThan(0.9);
    expect(c.low).toBeLessThan(c.rate);
    expect(c.grades).toBe(60);
    expect(assay.gradesForWidth({ judged: { pass: 900, n: 1000 }, tpr: a.tpr!.rate, tnr: a.tnr!.rate, width: 0.1, level: 0.95 })).toBeGreaterThan(0);
  });

  it('exposes each area: statistics, store, sandbox, spade, grounding', () => {
    expect(assay.wilson(95, 100, 0.95)!.low).toBeCloseTo(0.8882, 4);
    expect(typeof assay.openSqliteStore).toBe('function');
    expect(typeof assay.createSandbox).toBe('function');
    expect(typeof assay.spade).toBe('object');
    expect(typeof assay.createGroundingEngine).toBe('function');
    expect(typeof assay.guard).toBe('function');
  });
});

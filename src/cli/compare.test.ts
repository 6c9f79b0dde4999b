import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { writeFixtureRun } from '../server/testing/fixtures.js';
import { openSqliteStore } from '../store/sqlite.js';
import type { RunRecord } from '../store/types.js';
import { main } from './main.js';

const { PASS, FAIL, ERROR } = Outcome;
let dir: string;
let db: string;
let base: RunRecord;
let same: RunRecord;
let worse: RunRecord;
let better: RunRecord;
let unrelated: RunRecord;
let erroring: RunRecord;

const inputs = ['a', 'b', 'c', 'd', 'e'];
const validators = [{ name: 'format' }, { name: 'tone' }];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'assay-compare-'));
  db = join(dir, 'assay.db');
  const store = openSqliteStore(db);
  // 5 inputs × 10 samples = 50 cells per validator.
  // base: format 45/50 (input e fails samples 0..4), tone 40/50 (input d fails everywhere).
  base = await writeFixtureRun(store, {
    name: 'x',
    inputs,
    samples: 10,
    validators,
    cell: (i, j, k) => (k === 0 ? (i === 4 && j < 5 ? FAIL : PASS) : i === 3 ? FAIL : PASS),
  });
  // same: identical counts → unchanged.
  same = await writeFixtureRun(store, {
    name: 'x',
    inputs,
    samples: 10,
    validators,
    cell: (i, j, k) => (k === 0 ? (i === 4 && j >= 5 ? FAIL : PASS) : i === 3 ? FAIL : PASS),
  });
  // worse: format 25/50 (inputs c, d fail everywhere, e fails 5) → 45/50 vs 25/50, z-test p ≈ 1.2e-5.
  worse = await writeFixtureRun(store, {
    name: 'x',
    inputs,
    samples: 10,
    validators,
    cell: (i, j, k) => (k === 0 ? (i === 2 || i === 3 || (i === 4 && j < 5) ? FAIL : PASS) : i === 3 ? FAIL : PASS),
  });
  // better: tone 50/50, format unchanged.
  better = await writeFixtureRun(store, { name: 'x', inputs, samples: 10, validators, cell: (i, j, k) => (k === 0 ? (i === 4 && j < 5 ? FAIL : PASS) : PASS) });
  // Another experiment: no validator in common with the others.
  unrelated = await writeFixtureRun(store, { name: 'y', inputs, samples: 2, validators: [{ name: 'other' }], cell: () => PASS });
  // 'tone' errors everywhere (the provider was down): untestable, never a regression.
  erroring = await writeFixtureRun(store, {
    name: 'x',
    inputs,
    samples: 10,
    validators,
    cell: (i, j, k) => (k === 0 ? (i === 4 && j < 5 ? FAIL : PASS) : ERROR),
  });
  await store.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

afterEach(() => {
  process.exitCode = undefined;
  vi.restoreAllMocks();
});

async function run(args: string[]) {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
  const code = await main(args);
  vi.restoreAllMocks();
  process.exitCode = undefined;
  return { code, out, err };
}

describe('assay compare', () => {
  it('exits 0 when nothing changed', async () => {
    const r = await run(['compare', base.id, same.id, '--store', db]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('no validator got significantly worse');
  });

  it('exits 1 when a validator got significantly worse, and writes the JSON', async () => {
    const file = join(dir, 'out', 'cmp.json');
    // Report folders must exist (checked before any work): a missing one is exit 2 naming the flag.
    expect((await run(['compare', base.id, worse.id, '--store', db, '--json', file])).err).toMatch(/^assay: --json: expected a file in an existing folder/);
    mkdirSync(join(dir, 'out'));
    const r = await run(['compare', base.id, worse.id, '--store', db, '--json', file]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/format .*WORSE/);
    const json = JSON.parse(readFileSync(file, 'utf8'));
    expect(json.regressions).toEqual(['format']);
    const format = json.validators.find((v: { label: string }) => v.label === 'format');
    // 45/50 vs 25/50: pooled p = 70/100 = 0.7, se = sqrt(0.7·0.3·(2/50)) = 0.091652, z = −0.4/0.091652 = −4.3644
    expect(format.test).toBe('z');
    expect(format.z.z).toBeCloseTo(-4.3644, 3);
    expect(format.pValue).toBeCloseTo(1.275e-5, 7);
    expect(format.diff).toBeCloseTo(-0.4, 12);
    // per input: c went 10/20 → … pooled over both validators: a: c 20/20, b: c 10/20
    const c = json.inputs.find((x: { label: string }) => x.label === 'c');
    expect(c.a).toMatchObject({ pass: 20, n: 20 });
    expect(c.b).toMatchObject({ pass: 10, n: 20 });
  });

  it('exits 0 when a validator got better (the gate only looks for regressions)', async () => {
    const r = await run(['compare', base.id, better.id, '--store', db, '--json', '-']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out);
    expect(json.validators.find((v: { label: string }) => v.label === 'tone').direction).toBe('better');
    expect(json.regressions).toEqual([]);
  });

  it('exits 2 when the runs share no validator, rather than passing a gate that compared nothing', async () => {
    const r = await run(['compare', base.id, unrelated.id, '--store', db]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('no validator in common');
    expect(r.err).toContain('A: format, tone; B: other');
    expect(r.out).toContain('validators only in B (not compared): other');
  });

  it('reports a validator with only errors in B as not testable, and exits 0', async () => {
    const r = await run(['compare', base.id, erroring.id, '--store', db]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/tone .*\? not testable/);
    expect(r.out).toContain('not testable (no decided cell in A or B, e.g. all errors): tone');
  });

  it('applies the Holm adjustment with --adjust holm and rejects an unknown method', async () => {
    const r = await run(['compare', base.id, worse.id, '--store', db, '--adjust', 'holm', '--json', '-']);
    expect(r.code).toBe(1);
    const json = JSON.parse(r.out);
    expect(json.adjust).toBe('holm');
    // format p = 1.275e-5, tone p = 1 (unchanged counts) → Holm: 2 × 1.275e-5 for format.
    expect(json.validators[0].adjustedP).toBeCloseTo(2 * 1.275e-5, 7);
    const bad = await run(['compare', base.id, worse.id, '--store', db, '--adjust', 'bh']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--adjust: expected none or holm, found "bh"');
  });

  it('exits 2 for an unknown run id, a bad level or a missing store', async () => {
    const unknown = await run(['compare', base.id, 'no-such-run', '--store', db]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('no-such-run');
    expect((await run(['compare', base.id, worse.id, '--store', db, '--level', '95'])).code).toBe(2);
    expect((await run(['compare', base.id, worse.id, '--store', join(dir, 'missing.db')])).code).toBe(2);
  });
});

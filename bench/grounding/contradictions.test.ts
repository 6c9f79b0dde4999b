import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchmarksRoot } from '../../src/spade/testing/benchmark-data.js';
import { summarizeContradictions, summarizeNatural, type LabelledVariant } from './contradictions.js';
import type { SupportStatus } from '../../src/ground/types.js';

/**
 * bench:contradictions: the summary's arithmetic on hand-made labels, the script end to end on a tiny data
 * folder in the benchmark's format, its usage errors, and (when the benchmark data lies beside the
 * repository, or always with CI=true) its targets on the real development data.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const script = (args: string[]) =>
  run(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'contradictions.ts'), ...args], { cwd: ROOT, maxBuffer: 1 << 24 });

const GROUNDING = join(benchmarksRoot(), 'grounding');
const skipWithoutData = !existsSync(GROUNDING) && process.env.CI !== 'true';
if (skipWithoutData) console.log(`benchmark data: not found at ${GROUNDING}; the bench:contradictions test over it is skipped (CI=true makes it required)`);

const rec = (variant: LabelledVariant['variant'], label: SupportStatus, kind?: string, original: SupportStatus = 'STRONG'): LabelledVariant => ({
  dataset: 'd',
  id: 'x',
  variant,
  kind,
  claim: 'c',
  label,
  original,
});

describe('summarizeContradictions', () => {
  it('recall counts CONTRADICTED and UNSUPPORTED, false contradictions count unperturbed CONTRADICTED, per kind', () => {
    const records = [
      ...Array.from({ length: 19 }, () => rec('original', 'STRONG')),
      rec('original', 'CONTRADICTED'),
      rec('perturbed', 'CONTRADICTED', 'digits'),
      rec('perturbed', 'UNSUPPORTED', 'digits'),
      rec('perturbed', 'STRONG', 'digits'),
      rec('perturbed', 'WEAK', 'digits', 'UNSUPPORTED'),
      rec('perturbed', 'CONTRADICTED', 'dates'),
      rec('restated', 'CONTRADICTED', 'range'),
      rec('restated', 'STRONG', 'range'),
      rec('restated', 'STRONG', 'number_words'),
    ];
    const s = summarizeContradictions(records);
    expect(s.n_claims).toBe(20);
    expect(s.recall).toBe(0.6); // 3 of 5
    // of the 4 perturbations of claims labelled supported before (not the one already UNSUPPORTED), 3 are caught
    expect([s.n_original_supported, s.recall_when_original_supported]).toEqual([4, 0.75]);
    expect(s.false_contradiction_rate).toBe(0.05); // 1 of 20
    expect(s.kinds.digits).toMatchObject({ n: 4, recall: 0.5, contradicted: 0.25, n_original_supported: 3, recall_when_original_supported: 0.6667 });
    expect(s.kinds.dates).toMatchObject({ n: 1, recall: 1, contradicted: 1 });
    expect(s.kinds.entities).toMatchObject({ n: 0, recall: 0 });
    expect(s.restated).toMatchObject({ n: 3, false_contradiction_rate: 0.3333 });
    expect(s.restated.kinds.range).toMatchObject({ n: 2, contradicted: 0.5, supported_rate: 0.5 });
    expect(s.unperturbed).toEqual({ n: 20, supported_rate: 0.95, contradicted: 1 });
    // Wilson interval of 3/5 (reference: 0.231, 0.882)
    expect(s.recall_ci.lo).toBeCloseTo(0.2307, 3);
    expect(s.recall_ci.hi).toBeCloseTo(0.8824, 3);
    expect(s.targets.met).toBe(false);
  });

  it('targets: met only when every kind has claims, each recall ≥ 0.95 and false contradictions ≤ 0.03', () => {
    const kinds = ['digits', 'number_words', 'dates', 'units_or_percentages', 'entities'];
    const good = [...Array.from({ length: 40 }, () => rec('original', 'WEAK')), ...kinds.map((k) => rec('perturbed', 'UNSUPPORTED', k))];
    expect(summarizeContradictions(good).targets.met).toBe(true);
    expect(summarizeContradictions([...good, rec('original', 'CONTRADICTED'), rec('original', 'CONTRADICTED')]).targets.met).toBe(false); // 2/42 > 0.03
    expect(summarizeContradictions(good.filter((r) => r.kind !== 'entities')).targets.met).toBe(false);
  });
});

describe('summarizeNatural', () => {
  it('counts CONTRADICTED originals as false contradictions and caught perturbations as recall, each kind with n and intervals', () => {
    const kinds = ['digits', 'number_words', 'dates', 'units_or_percentages', 'entities'];
    const records = [
      ...Array.from({ length: 99 }, () => rec('original', 'STRONG')),
      rec('original', 'CONTRADICTED'),
      ...kinds.flatMap((k) => Array.from({ length: 20 }, (_, i) => rec('perturbed', i === 0 && k === 'dates' ? 'WEAK' : 'UNSUPPORTED', k))),
      rec('restated', 'STRONG', 'range'),
      rec('restated', 'UNSUPPORTED', 'range', 'UNSUPPORTED'),
    ];
    const s = summarizeNatural(records, 'calibration');
    expect(s.natural_false_contradiction_rate).toMatchObject({ value: 0.01, n: 100, contradicted: 1, supported_rate: 0.99 });
    // Wilson interval of 1/100 (reference: 0.0018, 0.0545)
    expect(s.natural_false_contradiction_rate.ci.lo).toBeCloseTo(0.0018, 3);
    expect(s.natural_false_contradiction_rate.ci.hi).toBeCloseTo(0.0545, 3);
    expect(s.natural_recall).toMatchObject({ value: 0.99, n: 100 });
    expect(s.natural_recall.kinds.dates).toMatchObject({ n: 20, recall: 0.95 });
    expect(s.natural_restated).toEqual({ n: 2, contradicted: 0, supported_rate: 0.5, supported_when_original_supported: 1 });
    expect(s.goals.met).toBe(true);
    expect(summarizeNatural([...records, rec('original', 'CONTRADICTED')], 'calibration').goals.met).toBe(false); // 2/101 > 0.01
  });
});

describe('npm run bench:contradictions', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'assay-bench-contradictions-'));
    await mkdir(join(dir, 'wice', 'oracle_chunks', 'claim'), { recursive: true });
    const facts = [
      ['Acme opened 12 stores in Ohio in 2014 within three weeks.', 'In 2014 Acme opened 12 stores in Ohio within three weeks, its annual report says.'],
      ['Sales at Globex rose 15% to $2.5 million in 2019.', 'In 2019 sales at Globex rose 15% to $2.5 million, a record for the firm.'],
      ['The bridge in Lisbon is 2,277 metres long and opened on 6 August 1966.', 'Lisbon opened the bridge on 6 August 1966; it is 2,277 metres long.'],
      // another company's figures in the same words: in one KB of all the evidence they are in reach of Acme's claim
      ['Initech opened 30 stores in Ohio in 2016 within five weeks.', 'In 2016 Initech opened 30 stores in Ohio within five weeks, its annual report says.'],
    ];
    const rows = facts.flatMap(([claim, ev], i) => [
      JSON.stringify({ label: 'supported', claim, evidence: ['Markets sell bread and fruit every morning.', ev], meta: { id: `dev${i}` } }),
      JSON.stringify({ label: 'not_supported', claim: `Unrelated claim number ${i}.`, evidence: [ev], meta: { id: `dev${i}x` } }),
    ]);
    await writeFile(join(dir, 'wice', 'oracle_chunks', 'claim', 'dev.jsonl'), rows.join('\n') + '\n');
    await writeFile(join(dir, 'wice', 'oracle_chunks', 'claim', 'test.jsonl'), '');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('prints one JSON object with recall, false_contradiction_rate and kinds, the same for the same seed', async () => {
    const args = ['--json', '--data', dir, '--dataset', 'wice', '--seed', '5'];
    const { stdout } = await script(args);
    const r = JSON.parse(stdout);
    expect(r).toMatchObject({ benchmark: 'contradictions', seed: 5, datasets: ['wice'], n_claims: 4 });
    expect(Object.keys(r.kinds)).toEqual(['digits', 'number_words', 'dates', 'units_or_percentages', 'entities']);
    for (const k of Object.values(r.kinds) as { n: number; recall: number }[]) expect(k.n).toBeGreaterThan(0);
    // these claims restate their evidence: none is contradicted, and each changed detail is caught
    expect(r.false_contradiction_rate).toBe(0);
    expect(r.recall).toBe(1);
    expect(r.by_dataset.wice.n_claims).toBe(4);
    // natural answers: the same claims against one KB of all four companies' evidence
    expect(r.natural_split).toBe('calibration');
    expect(r.natural_false_contradiction_rate).toMatchObject({ value: 0, n: 4 });
    expect(r.natural_recall.value).toBe(1);
    expect(Object.keys(r.natural_recall.kinds)).toEqual(['digits', 'number_words', 'dates', 'units_or_percentages', 'entities']);
    const again = JSON.parse((await script(args)).stdout);
    delete again.seconds;
    delete r.seconds;
    expect(again).toEqual(r);
  }, 120_000);

  it('names the flag or folder it cannot use (exit 2)', async () => {
    for (const [args, message] of [
      [['--dataset', 'squad'], /--dataset: expected wice, faithbench or both/],
      [['--seed', 'abc'], /--seed: expected a whole number ≥ 0, found "abc"/],
      [['--split', 'dev'], /--split: expected all, calibration or test/],
      [['--natural-split', 'dev'], /--natural-split: expected calibration, test, all or none/],
      [['--data', join(dir, 'nowhere')], /nowhere[/\\]wice: not found/],
    ] as const) {
      const err = await script([...args]).then(
        () => null,
        (e: { code: number; stderr: string }) => e,
      );
      expect(err?.code, args.join(' ')).toBe(2);
      expect(err?.stderr, args.join(' ')).toMatch(message);
    }
  }, 120_000);
});

describe.skipIf(skipWithoutData)('bench:contradictions on the development data (WiCE and FaithBench)', () => {
  it('meets its targets: recall ≥ 0.95 in every kind, false contradictions ≤ 0.03, restatements never contradicted', async () => {
    const { stdout } = await script(['--json', '--data', GROUNDING]);
    const r = JSON.parse(stdout);
    expect(r.n_claims).toBeGreaterThan(500);
    for (const [kind, k] of Object.entries(r.kinds) as [string, { n: number; recall: number }][]) {
      expect(k.n, kind).toBeGreaterThan(40);
      expect(k.recall, kind).toBeGreaterThanOrEqual(0.95);
    }
    expect(r.false_contradiction_rate).toBeLessThanOrEqual(0.03);
    expect(r.restated.false_contradiction_rate).toBeLessThanOrEqual(0.03);
    expect(r.targets.met).toBe(true);
    // natural answers (issue 27): the development split's supported claims against one KB of all their evidence
    expect(r.natural_false_contradiction_rate.n).toBeGreaterThan(400);
    expect(r.natural_false_contradiction_rate.value).toBeLessThanOrEqual(0.01);
    for (const [kind, k] of Object.entries(r.natural_recall.kinds) as [string, { n: number; recall: number }][]) {
      expect(k.n, kind).toBeGreaterThan(40);
      expect(k.recall, kind).toBeGreaterThanOrEqual(0.95);
    }
    expect(r.goals.met).toBe(true);
  }, 600_000);
});

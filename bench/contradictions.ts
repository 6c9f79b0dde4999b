/**
 * `npm run -s bench:contradictions -- [--json] [--data DIR] [--dataset wice,faithbench] [--split all|calibration|test]
 *   [--seed N] [--limit N] [--examples N] [--natural-split calibration|test|all|none]`
 *
 * From claims the grounding benchmark's evidence supports, changes one detail (digits, a number in words,
 * a date, a unit or percentage, a name) and asks the engine (lexical embedder, default thresholds) to label
 * each claim. With --json it prints one JSON object: recall (perturbed claims labelled CONTRADICTED or
 * UNSUPPORTED), false_contradiction_rate (unperturbed claims labelled CONTRADICTED), kinds {kind: {n, recall}},
 * restated (meaning-keeping rewrites labelled CONTRADICTED), and the natural-answer figures (issue 27): the supported
 * claims of --natural-split (default: the development split) audited against one KB of all their evidence,
 * natural_false_contradiction_rate and natural_recall (one detail changed), each kind with n. Seeded: the same seed gives the same figures.
 * The data is read where it lies (default ../shared/benchmarks/grounding, or $ASSAY_BENCHMARKS/grounding).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  labelNatural,
  labelVariants,
  loadSupportedClaims,
  summarizeContradictions,
  summarizeNatural,
  type LabelledVariant,
  type NaturalSummary,
  type SupportedClaim,
} from './grounding/contradictions.js';
import { createLexicalEmbedder } from '../src/ground/embedders/lexical.js';

function fail(message: string, code = 2): never {
  process.stderr.write(`bench:contradictions: ${message}\n`);
  process.exit(code);
}

let values: Record<string, string | boolean | undefined>;
try {
  ({ values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      data: { type: 'string', default: process.env.ASSAY_BENCHMARKS ? join(process.env.ASSAY_BENCHMARKS, 'grounding') : '../shared/benchmarks/grounding' },
      dataset: { type: 'string', default: 'wice,faithbench' },
      split: { type: 'string', default: 'all' },
      seed: { type: 'string', default: '1' },
      limit: { type: 'string' },
      examples: { type: 'string', default: '0' },
      'natural-split': { type: 'string', default: 'calibration' },
    },
  }));
} catch (err) {
  fail((err as Error).message);
}
const whole = (flag: string, v: string | undefined, min: number) => {
  const n = Number(v);
  if (!(v !== undefined && /^\d+$/.test(v) && n >= min)) fail(`${flag}: expected a whole number ≥ ${min}, found "${v}"`);
  return n;
};
const dir = resolve(String(values.data));
const datasets = String(values.dataset)
  .split(',')
  .map((s) => s.trim());
for (const d of datasets) if (d !== 'wice' && d !== 'faithbench') fail(`--dataset: expected wice, faithbench or both (comma-separated), found "${d}"`);
const split = String(values.split);
if (split !== 'all' && split !== 'calibration' && split !== 'test') fail(`--split: expected all, calibration or test, found "${split}"`);
const naturalSplit = String(values['natural-split']);
if (!['all', 'calibration', 'test', 'none'].includes(naturalSplit)) fail(`--natural-split: expected calibration, test, all or none, found "${naturalSplit}"`);
const seed = whole('--seed', values.seed as string, 0);
const limit = values.limit === undefined ? undefined : whole('--limit', values.limit as string, 1);
const examples = whole('--examples', values.examples as string, 0);
for (const d of datasets)
  if (!existsSync(join(dir, d))) fail(`${join(dir, d)}: not found (expected the grounding benchmark folder with ${datasets.join(' and ')}; see --data)`);

const t0 = performance.now();
let claims: SupportedClaim[] = [];
try {
  claims = await loadSupportedClaims(dir, datasets, split as 'all' | 'calibration' | 'test');
} catch (err) {
  fail((err as Error).message);
}
if (limit !== undefined) claims = datasets.flatMap((d) => claims.filter((c) => c.dataset === d).slice(0, limit));
const records = await labelVariants(claims, createLexicalEmbedder(), seed);

// Natural answers: the supported claims of the chosen split against ONE knowledge base of all their evidence.
let natural: NaturalSummary | undefined;
let naturalRecords: LabelledVariant[] = [];
if (naturalSplit !== 'none') {
  let own = naturalSplit === split ? claims : await loadSupportedClaims(dir, datasets, naturalSplit as 'all' | 'calibration' | 'test');
  if (limit !== undefined) own = datasets.flatMap((d) => own.filter((c) => c.dataset === d).slice(0, limit));
  naturalRecords = await labelNatural(own, createLexicalEmbedder(), seed);
  natural = summarizeNatural(naturalRecords, naturalSplit);
}
const byDataset = Object.fromEntries(datasets.map((d) => [d, summarizeContradictions(records.filter((r) => r.dataset === d))]));
const summary = summarizeContradictions(records);
const misses = (pick: (r: LabelledVariant) => boolean) =>
  records
    .filter(pick)
    .slice(0, examples)
    .map((r) => ({ dataset: r.dataset, id: r.id, kind: r.kind, label: r.label, from: r.from, to: r.to, claim: r.claim }));
const out = {
  benchmark: 'contradictions',
  seed,
  split,
  datasets,
  embedder: 'lexical (default thresholds)',
  ...summary,
  by_dataset: byDataset,
  ...(natural ? { ...natural, natural_split: natural.split } : {}),
  ...(examples
    ? {
        examples: {
          missed: misses((r) => r.variant === 'perturbed' && (r.label === 'STRONG' || r.label === 'WEAK')),
          false_contradictions: misses((r) => r.variant !== 'perturbed' && r.label === 'CONTRADICTED'),
          natural_false_contradictions: naturalRecords
            .filter((r) => r.variant === 'original' && r.label === 'CONTRADICTED')
            .slice(0, examples)
            .map((r) => ({ dataset: r.dataset, id: r.id, claim: r.claim })),
        },
      }
    : {}),
  seconds: Math.round((performance.now() - t0) / 100) / 10,
};
if (values.json) process.stdout.write(JSON.stringify(out, null, 2) + '\n');
else {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const lines = [
    `contradictions — ${datasets.join(', ')} (${split}), seed ${seed}: ${summary.n_claims} supported claims, ${out.seconds} s`,
    `recall ${pct(summary.recall)} [${pct(summary.recall_ci.lo)}, ${pct(summary.recall_ci.hi)}]  false contradictions ${pct(summary.false_contradiction_rate)}  restated contradicted ${pct(summary.restated.false_contradiction_rate)} (n ${summary.restated.n})`,
    ...Object.entries(summary.kinds).map(
      ([k, v]) =>
        `  ${k.padEnd(21)} n ${String(v.n).padStart(4)}  recall ${pct(v.recall)}  contradicted ${pct(v.contradicted)}  recall when the original is supported ${pct(v.recall_when_original_supported)} (n ${v.n_original_supported})`,
    ),
    `targets (recall ≥ 95% in every kind, false contradictions ≤ 3%): ${summary.targets.met ? 'met' : 'not met'}`,
    ...(natural
      ? [
          `natural answers (${natural.split} split, one KB of all the evidence): false contradictions ${pct(natural.natural_false_contradiction_rate.value)} [${pct(natural.natural_false_contradiction_rate.ci.lo)}, ${pct(natural.natural_false_contradiction_rate.ci.hi)}] (n ${natural.natural_false_contradiction_rate.n})  recall ${pct(natural.natural_recall.value)} [${pct(natural.natural_recall.ci.lo)}, ${pct(natural.natural_recall.ci.hi)}] (n ${natural.natural_recall.n})`,
          ...Object.entries(natural.natural_recall.kinds).map(
            ([k, v]) => `  ${k.padEnd(21)} n ${String(v.n).padStart(4)}  recall ${pct(v.recall)}  contradicted ${pct(v.contradicted)}`,
          ),
          `natural goals (false contradictions ≤ 1%, recall ≥ 95% in every kind): ${natural.goals.met ? 'met' : 'not met'}`,
        ]
      : []),
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

import * as z from 'zod';
import type { Predicate } from '../core/validator.js';
import { configCheckSchema } from '../validators/grounded-schema.js';
import { DURATION_EXPECTED, parseDuration } from './duration.js';
import { MAX_SAMPLES } from '../core/limits.js';

/*
 * The experiment config (YAML, JSON or assay.config.ts). Every object is strict, so a typo such as
 * `sample:` is reported instead of silently ignored. Messages start with "expected …"; the loader
 * adds the file, the field path and what was found.
 */

const E01 = 'expected a number between 0 and 1';
const unit = z.number({ error: E01 }).min(0, { error: E01 }).max(1, { error: E01 });
const posInt = (what = 'an integer ≥ 1') =>
  z
    .number({ error: `expected ${what}` })
    .int({ error: `expected ${what}` })
    .min(1, { error: `expected ${what}` });
const nonEmpty = z.string({ error: 'expected a non-empty string' }).min(1, { error: 'expected a non-empty string' });
const samplesSchema = z
  .number({ error: `expected an integer from 1 to ${MAX_SAMPLES}` })
  .int({ error: `expected an integer from 1 to ${MAX_SAMPLES}` })
  .min(1, { error: `expected an integer from 1 to ${MAX_SAMPLES}` })
  .max(MAX_SAMPLES, { error: `expected an integer from 1 to ${MAX_SAMPLES}` });
const weight = z.number({ error: 'expected a positive number' }).positive({ error: 'expected a positive number' });
const E01open = 'expected a number strictly between 0 and 1';
const openUnit = z.number({ error: E01open }).gt(0, { error: E01open }).lt(1, { error: E01open });
/** Largest share of error cells a verdict may rest on (docs/verdicts.md). */
const maxErrorShare = unit.describe(
  'Largest share of error cells a verdict may rest on; above it the verdict is `error` (unless the bounds decide it however the errors resolve).',
);
/** The rate expected; the sequential design decides fastest near it. */
const expectRate = openUnit.describe(
  'The success rate you expect: a sequential run (stopping: sequential) decides fastest near it; the guarantee does not depend on it.',
);

/** `perInput: { minSuccess }`: each input passes at least minSuccess of its repeats (docs/verdicts.md, per-input floors). */
export const perInputSchema = z
  .strictObject({ minSuccess: openUnit }, { error: 'expected { minSuccess: <a number strictly between 0 and 1> }' })
  .describe(
    "Each input passes at least minSuccess of its repeats: each input's exact one-sided test, Holm over the inputs (family-wise error held at 1 − confidence). Not with stopping: sequential.",
  );
/** On a rule: its floor, or `false` for none where the run sets a default. */
const rulePerInput = z.union([perInputSchema, z.literal(false)], { error: 'expected { minSuccess: <a number strictly between 0 and 1> } or false' }).optional();

/** `passK: { k, minSuccess? }`: pass^k and pass@k at k, and with minSuccess a gate on pass^k (docs/verdicts.md#passk-and-passk). */
export const passKSchema = z
  .strictObject(
    {
      k: posInt('a whole number of tries ≥ 1 (at most samples)'),
      minSuccess: unit.optional(),
    },
    { error: 'expected { k: <tries>, minSuccess?: <a number between 0 and 1> }' },
  )
  .describe(
    'Report pass^k (all k of k tries succeed, τ-bench) and pass@k per input and over inputs, each with an interval that holds its level; with minSuccess, the rule also needs pass^k over inputs ≥ minSuccess. k ≤ samples. Not with stopping: sequential.',
  );
/** On a rule: its own, or `false` for none where the run sets a default. */
const rulePassK = z.union([passKSchema, z.literal(false)], { error: 'expected { k: <tries>, minSuccess?: <a number between 0 and 1> } or false' }).optional();

export const inputValueSchema = z.union([z.string(), z.record(z.string(), z.unknown())], {
  error: 'expected a string or an object',
});

export const inputsSchema = z.union([z.array(inputValueSchema).min(1, { error: 'expected at least one input' }), z.strictObject({ file: nonEmpty })], {
  error: 'expected a list of inputs (strings or objects) or { file: path }',
});

const predicateSchema = z.union([z.string(), z.custom<Predicate>((v) => typeof v === 'function')], {
  error: 'expected a JavaScript arrow-function source string such as "o => o.length < 100"',
});

export const validatorConfigSchema = z
  .strictObject({
    name: nonEmpty,
    message: z.string({ error: 'expected a string' }).optional(),
    minSuccess: unit,
    weight: weight.optional(),
    timeoutMs: posInt('a whole number of milliseconds ≥ 1').optional(),
    /** JavaScript source run in the sandbox (YAML/JSON), or a real function (assay.config.ts). */
    predicate: predicateSchema.optional(),
    /** A built-in check type (or `grounded`: an audit against a knowledge base). */
    check: configCheckSchema.optional(),
    /** A conversation: the rule holds for the agent's reply to every user turn (default: the final answer only). */
    perTurn: z.boolean({ error: 'expected true or false' }).optional(),
    /** `fail`: a predicate that throws means the output failed the rule (e.g. JSON.parse on non-JSON). Default `error`. */
    onError: z
      .enum(['error', 'fail'], { error: 'expected "error" (a throw is an error outcome, the default) or "fail" (a throw means the output failed)' })
      .optional(),
    maxErrorShare: maxErrorShare.optional(),
    expect: expectRate.optional(),
    perInput: rulePerInput,
    passK: rulePassK,
  })
  .superRefine((v, ctx) => {
    if ((v.predicate === undefined) === (v.check === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: v.predicate === undefined ? 'expected either predicate or check, found neither' : 'expected either predicate or check, found both',
      });
    }
  });

export const verifierConfigSchema = z.strictObject({
  name: nonEmpty,
  message: z.string({ error: 'expected a string' }).optional(),
  minSuccess: unit,
  weight: weight.optional(),
  timeoutMs: posInt('a whole number of milliseconds ≥ 1').optional(),
  maxErrorShare: maxErrorShare.optional(),
  expect: expectRate.optional(),
  perInput: rulePerInput,
  passK: rulePassK,
  instructions: z.union([nonEmpty, z.array(nonEmpty).min(1)], { error: 'expected a string or a list of strings' }),
  /** The judge's provider, raw like `system`; the verifier module validates it. */
  judge: z.unknown().refine((v) => v !== undefined && v !== null, { error: 'expected a provider object like system' }),
});

export const duration = z
  .union([z.string(), z.number()], { error: DURATION_EXPECTED })
  .refine((v) => parseDuration(v) !== undefined, { error: DURATION_EXPECTED })
  .transform((v) => parseDuration(v)!);

/** `cache: true`, or `cache: { ttl: 7d }`: answers kept in the store and reused by identical calls. */
export const cacheConfigSchema = z.union([z.boolean(), z.strictObject({ ttl: duration.optional() })], { error: 'expected true, false or { ttl: 7d }' });

const usdPerMTok = z.number({ error: 'expected USD per million tokens, a number ≥ 0' }).min(0, { error: 'expected USD per million tokens, a number ≥ 0' });
/** `prices: { <model>: { inputPerMTok, outputPerMTok } }`: USD per million tokens, over the built-in table. */
export const pricesConfigSchema = z.record(z.string().min(1), z.strictObject({ inputPerMTok: usdPerMTok, outputPerMTok: usdPerMTok }));

export const experimentConfigSchema = z.strictObject({
  name: nonEmpty.optional(),
  description: z.string({ error: 'expected a string' }).optional(),
  /** The system under test, raw: the providers module validates it (createSystem). */
  system: z.unknown().refine((v) => v !== undefined && v !== null, { error: 'expected a system, e.g. { simulated: {...} } or { openai: {...} }' }),
  /** Optional only with a `replay` system: its recorded inputs are then the inputs (see load.ts). */
  inputs: inputsSchema.optional().describe('Required, unless the system is `replay`: its recorded inputs are then the inputs.'),
  /** Default 1, or with a replay system and no inputs, the most recordings of one input. */
  samples: samplesSchema.optional().describe('Samples per input. Default 1; with a replay system and no inputs, the most recordings of one input.'),
  validators: z.array(validatorConfigSchema).default([]),
  verifiers: z.array(verifierConfigSchema).default([]),
  aggregate: z.enum(['mean', 'weighted', 'min']).default('mean'),
  confidence: z
    .number({ error: 'expected a number strictly between 0 and 1' })
    .gt(0, { error: 'expected a number strictly between 0 and 1' })
    .lt(1, { error: 'expected a number strictly between 0 and 1' })
    .default(0.95),
  interval: z.enum(['clopper-pearson', 'wilson', 'wald']).default('clopper-pearson'),
  /** Default `confident`; `point` (the paper's rate ≥ minSuccess) on request, and never with `stopping: sequential`. */
  verdict: z
    .enum(['point', 'confident'])
    .optional()
    .describe(
      'confident (the default: the interval must clear minSuccess, else inconclusive) or point (the paper: rate ≥ minSuccess, marked "(point)" in reports). stopping: sequential needs confident.',
    ),
  maxErrorShare: maxErrorShare.default(0.05),
  /** What the verdicts are about: the inputs run (default) or the input population (docs/verdicts.md). */
  estimand: z
    .enum(['inputs', 'population'], {
      error: 'expected "inputs" (verdicts about the inputs run, the default) or "population" (about the inputs you will meet, each input a unit)',
    })
    .default('inputs')
    .describe(
      'inputs (the default): verdicts about the inputs that were run, each output a trial; population: verdicts about an input drawn at random from the population the inputs came from, each input a unit (needs ≥ 2 inputs; not with stopping: sequential).',
    ),
  /** The per-input floor of every rule that sets none (a rule's `perInput: false` opts out). */
  perInput: perInputSchema.optional(),
  /** The pass^k report (and gate) of every rule that sets none (a rule's `passK: false` opts out). */
  passK: passKSchema.optional(),
  stopping: z
    .enum(['fixed', 'sequential'], {
      error: 'expected "fixed" (run every sample, the default) or "sequential" (stop each validator once its confidence sequence decides it)',
    })
    .default('fixed')
    .describe(
      'fixed: run every sample; sequential: stop checking a validator once its anytime-valid confidence sequence decides it, and the run once all are decided.',
    ),
  concurrency: posInt().default(8),
  timeoutMs: posInt('a whole number of milliseconds ≥ 1').default(60_000),
  validatorTimeoutMs: posInt('a whole number of milliseconds ≥ 1').optional(),
  /** Reuse stored answers of identical calls (same provider, model, request and sample index j). */
  cache: cacheConfigSchema.optional(),
  /** Model prices over the built-in table, USD per million input and output tokens. */
  prices: pricesConfigSchema.optional(),
  /** Stop the run cleanly (resumable) once its priced calls have cost this much. */
  maxCostUsd: z.number({ error: 'expected an amount of USD > 0' }).positive({ error: 'expected an amount of USD > 0' }).optional(),
});

/** What a config file may contain (defaults not yet applied). `defineConfig` takes this. */
export type ExperimentConfig = z.input<typeof experimentConfigSchema>;
/** A config after validation, with defaults applied. */
export type ParsedExperimentConfig = z.output<typeof experimentConfigSchema>;
export type ValidatorConfig = z.output<typeof validatorConfigSchema>;
export type VerifierConfig = z.output<typeof verifierConfigSchema>;

/** Command-line overrides (`--samples`, `--concurrency`, …), checked like the config keys they replace. */
export const overridesSchema = z.strictObject({
  samples: samplesSchema.optional().describe('Samples per input. Default 1; with a replay system and no inputs, the most recordings of one input.'),
  concurrency: posInt().optional(),
  timeoutMs: posInt('a whole number of milliseconds ≥ 1').optional(),
  validatorTimeoutMs: posInt('a whole number of milliseconds ≥ 1').optional(),
  confidence: z.number().gt(0).lt(1).optional(),
  interval: z.enum(['clopper-pearson', 'wilson', 'wald']).optional(),
  verdict: z.enum(['point', 'confident']).optional(),
  aggregate: z.enum(['mean', 'weighted', 'min']).optional(),
  stopping: z.enum(['fixed', 'sequential'], { error: 'expected fixed or sequential' }).optional(),
  estimand: z.enum(['inputs', 'population'], { error: 'expected inputs or population' }).optional(),
  /** `--per-input`: the run's default per-input floor. */
  perInput: perInputSchema.optional(),
});
export type ExperimentOverrides = z.input<typeof overridesSchema>;

/** Top-level keys, for "did you mean" suggestions. */
export const CONFIG_KEYS = Object.keys(experimentConfigSchema.shape);

/** JSON Schema of the YAML/JSON config (for editors); `schemas/config.schema.json` is this, written out. */
export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(experimentConfigSchema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  return {
    $schema: schema.$schema,
    title: 'assay experiment config',
    description: 'An assay reliability experiment: a system under test, inputs, samples, validators and verifiers. See docs/config.md.',
    ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$schema')),
  };
}

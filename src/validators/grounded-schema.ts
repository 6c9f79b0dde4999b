import * as z from 'zod';
import { checkSchema } from './builtin.js';

/**
 * The `grounded` check: the output, against the input as its query, is audited against a knowledge base
 * (src/ground) and passes or fails by these options. Written like the other checks, `check: { type: grounded,
 * kb: ./kb, maxRisk: medium }`; its validator is built in grounded.ts (it opens the KB, so it is async).
 */
const risk = z.enum(['low', 'medium', 'high']);
const E01 = 'expected a number between 0 and 1';
const path = z.string({ error: 'expected a path (relative to the config file)' }).min(1, { error: 'expected a path (relative to the config file)' });

export const groundedCheckSchema = z
  .strictObject({
    type: z.literal('grounded'),
    /** The knowledge base folder (`assay kb ingest … --kb <dir>`), relative to the config file. */
    kb: path,
    /** The highest hallucination risk that passes. */
    maxRisk: risk.optional(),
    /** The least share of the output's claims that must be supported (STRONG or WEAK): its evidence coverage. */
    minSupport: z.number({ error: E01 }).min(0, { error: E01 }).max(1, { error: E01 }).optional(),
    /** `true`: one CONTRADICTED claim fails the output. */
    noContradiction: z.boolean({ error: 'expected true or false' }).optional(),
    /** Evidence chunks retrieved per claim (default 5). */
    topK: z.number({ error: 'expected a whole number from 1 to 50' }).int({ error: 'expected a whole number from 1 to 50' }).min(1).max(50).optional(),
    /** The detail check: count (default), report or off. */
    details: z.enum(['count', 'report', 'off'], { error: 'expected count, report or off' }).optional(),
    /** With object inputs: the field that holds the query (default `query`; without it, the whole input as JSON). */
    queryField: z.string({ error: 'expected a field name' }).min(1, { error: 'expected a field name' }).optional(),
    /** An NLI / cross-encoder model folder (checkers/nli.ts), relative to the config file: checks each claim. */
    nliModel: path.optional(),
    /** An LLM judge (a provider object, as a verifier's judge:) that checks each claim; not with nliModel. */
    judge: z
      .record(z.string(), z.unknown(), { error: "expected a provider object, as a verifier's judge (e.g. { openai: { model: gpt-4o-mini } })" })
      .optional(),
    /** Worker threads that analyse outputs, each with its own copy of the KB (default 1). */
    workers: z.number({ error: 'expected a whole number from 1 to 8' }).int({ error: 'expected a whole number from 1 to 8' }).min(1).max(8).optional(),
    /** For a KB built with the transformers embedder: the folder holding its model (relative to the config file). */
    modelDir: path.optional(),
    /** For a KB built with the openai embedder: its endpoint (default $OPENAI_BASE_URL). */
    embeddingUrl: z.string({ error: 'expected a URL' }).url({ error: 'expected a URL' }).optional(),
  })
  .refine((c) => c.maxRisk !== undefined || c.minSupport !== undefined || c.noContradiction === true, {
    error: 'expected at least one of maxRisk, minSupport or noContradiction: true (what makes an output fail)',
  })
  .refine((c) => !(c.nliModel !== undefined && c.judge !== undefined), {
    error: 'expected one claim checker, nliModel or judge, found both',
    path: ['judge'],
  });

export type GroundedCheckSpec = z.output<typeof groundedCheckSchema>;

/** What a validator's `check:` may hold in a config: the built-in checks and `grounded`. */
export const configCheckSchema = z.discriminatedUnion('type', [...checkSchema.options, groundedCheckSchema]);
export type ConfigCheckSpec = z.output<typeof configCheckSchema>;

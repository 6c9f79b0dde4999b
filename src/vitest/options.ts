import * as z from 'zod';
import { describeFound, fieldError, zodUsageError } from '../core/issues.js';
import { UsageError } from '../errors.js';
import { MAX_RUN_TIMEOUT_MS } from './limits.js';
import type { ReliabilityOptions } from './types.js';

/**
 * A describeReliability block's options, checked like a config file before anything runs: the test-only keys
 * here, the config keys by the config loader (they become a config document, `configDocument`). Unknown keys
 * are refused with a "did you mean", the field named as a config file's would be.
 */

const anyValue = z.unknown().optional();
const RUN_TIMEOUT = `expected a whole number of milliseconds from 1 to ${MAX_RUN_TIMEOUT_MS} (7 days)`;

/** Every option; the config keys' values pass as they are (the config loader checks them with the file's messages). */
const optionsSchema = z.strictObject({
  inputs: anyValue,
  samples: anyValue,
  system: anyValue,
  validators: anyValue,
  verifiers: anyValue,
  stopping: anyValue,
  estimand: anyValue,
  confidence: anyValue,
  verdict: anyValue,
  interval: anyValue,
  maxErrorShare: anyValue,
  concurrency: anyValue,
  timeoutMs: anyValue,
  perInput: anyValue,
  passK: anyValue,
  rateLimit: anyValue,
  onInconclusive: z.enum(['fail', 'skip']).optional(),
  cache: z
    .union([z.boolean(), z.strictObject({ key: z.string().min(1) })], { error: 'expected true, false or { key: "<a version of the system you control>" }' })
    .optional(),
  store: z
    .string({ error: 'expected the path of a SQLite file or a postgres:// URL' })
    .min(1, { error: 'expected the path of a SQLite file or a postgres:// URL' })
    .optional(),
  runTimeoutMs: z
    .number({ error: RUN_TIMEOUT })
    .int({ error: RUN_TIMEOUT })
    .min(1, { error: RUN_TIMEOUT })
    .max(MAX_RUN_TIMEOUT_MS, { error: RUN_TIMEOUT })
    .optional(),
} satisfies Record<keyof ReliabilityOptions, z.ZodType>);

/** The keys a block takes, for "did you mean". */
export const OPTION_KEYS = Object.keys(optionsSchema.shape);

/** Throws a UsageError naming each bad option (`<where>: <field>: <message>`, as the config loader says it). */
export function checkOptions(options: unknown, where: string): void {
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new UsageError(`${where}: expected options { inputs, system, validators, … }, found ${describeFound(options)}`, { file: where });
  const r = optionsSchema.safeParse(options, { reportInput: true });
  const o = options as Partial<ReliabilityOptions>;
  if (r.success && o.rateLimit !== undefined && o.system && typeof o.system === 'object' && 'rateLimit' in o.system)
    throw fieldError({ file: where }, ['rateLimit'], 'expected it once, found it both beside system and in system.rateLimit; keep one');
  if (!r.success) throw zodUsageError(r.error, { file: where, schema: optionsSchema });
}

function systemDocument(o: ReliabilityOptions): unknown {
  const system = typeof o.system === 'function' ? { function: o.system.name || 'anonymous' } : o.system;
  if (o.rateLimit === undefined || system === null || typeof system !== 'object' || Array.isArray(system)) return system;
  return { ...system, rateLimit: o.rateLimit };
}

/** The block's config keys as a config document (checked by the config loader like a file). */
export function configDocument(name: string, o: ReliabilityOptions): Record<string, unknown> {
  const doc: Record<string, unknown> = {
    name,
    // A function system is not data: the loader only needs a value here; the runner gets the function itself.
    // `rateLimit` goes beside the provider key, as in a config file (the assembly reads it there).
    system: systemDocument(o),
    inputs: o.inputs,
    samples: o.samples,
    validators: o.validators,
    verifiers: o.verifiers,
    // The run's per-input floor, for every rule that sets none (the config key of the same name).
    perInput: o.perInput,
    // pass^k (and its gate) for every rule that sets none.
    passK: o.passK,
    stopping: o.stopping,
    estimand: o.estimand,
    confidence: o.confidence,
    verdict: o.verdict,
    interval: o.interval,
    maxErrorShare: o.maxErrorShare,
    concurrency: o.concurrency,
    timeoutMs: o.timeoutMs,
  };
  return Object.fromEntries(Object.entries(doc).filter(([, v]) => v !== undefined));
}

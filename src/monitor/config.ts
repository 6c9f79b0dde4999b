import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import * as z from 'zod';
import { experimentFromDocument, type Experiment } from '../config/load.js';
import { duration } from '../config/schema.js';
import { readYaml } from '../config/yaml.js';
import { describeFound, zodUsageError, type Locate } from '../core/issues.js';
import type { Validator } from '../core/validator.js';
import { UsageError } from '../errors.js';
import { localLimiters } from '../providers/rate-limit.js';
import { priceTable } from '../providers/prices.js';

/**
 * A monitor: which production experiment to watch, with which rules (the same `validators:` and `verifiers:`
 * as an experiment's), how much of the traffic to check, how many judge calls an hour of traffic may spend,
 * what counts as a drop (a baseline run), and where alarms go. A YAML or JSON file:
 *
 *   monitor:
 *     experiment: shop/answer
 *     sample: 0.25            # check a quarter of the samples (chosen by span id: the same ones every time)
 *     judgeCallsPerHour: 120  # per hour of traffic, for the verifiers
 *     alpha: 0.05             # the chance of any false alarm, ever
 *     window: 1d              # also alarm on each day's traffic alone (or { checks: 5000 })
 *     baseline: { run: latest, name: shop-answer }   # a stored CI run: a drop below it is an alarm
 *     webhook: { url: https://hooks.example.com/assay }
 *   validators: [...]
 *   verifiers: [...]
 */

const nonEmpty = z.string({ error: 'expected a non-empty string' }).min(1, { error: 'expected a non-empty string' });

export const monitorSectionSchema = z.strictObject({
  experiment: nonEmpty.describe('the production experiment: service/operation, as assay runs lists it'),
  sample: z
    .number({ error: 'expected a share of the samples in (0, 1]' })
    .gt(0, { error: 'expected a share of the samples in (0, 1]' })
    .lte(1, { error: 'expected a share of the samples in (0, 1]' })
    .default(1),
  judgeCallsPerHour: z.number({ error: 'expected a whole number ≥ 0' }).int({ error: 'expected a whole number ≥ 0' }).min(0).optional(),
  alpha: z
    .number({ error: 'expected a probability strictly between 0 and 1' })
    .gt(0, { error: 'expected a probability strictly between 0 and 1' })
    .lt(1, { error: 'expected a probability strictly between 0 and 1' })
    .default(0.05),
  window: z
    .union([duration, z.strictObject({ checks: z.number().int().min(1) })], { error: 'expected a duration such as 1h or 1d, or { checks: N }' })
    .optional(),
  baseline: z.strictObject({ run: nonEmpty.describe('a run id, an id prefix, or latest'), name: nonEmpty.optional() }).optional(),
  tolerance: z.number({ error: 'expected a share in [0, 1)' }).min(0).lt(1, { error: 'expected a share in [0, 1)' }).default(0),
  webhook: z
    .strictObject({
      url: z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' }),
      retries: z.number().int().min(0).max(10).default(3),
    })
    .optional(),
});

export type MonitorSection = z.output<typeof monitorSectionSchema>;

export interface Monitor extends Omit<MonitorSection, 'window'> {
  /** The file as the user named it, for messages. */
  file: string;
  window?: { ms: number } | { checks: number };
  /** The rules: the validators, then the verifiers with their judges. */
  rules: Validator[];
  /** The experiment the rules came from (frees their sandbox). */
  experiment_: Experiment;
  dispose(): void;
}

/** Read a monitor file (YAML or JSON); a problem is a UsageError naming the file, field and line. */
export async function loadMonitor(path: string, env: NodeJS.ProcessEnv = process.env): Promise<Monitor> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`${path}: cannot read the monitor file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { file: path });
  }
  const { raw, locate } = readYaml(text, path);
  return monitorFromDocument(raw, path, locate, env);
}

export async function monitorFromDocument(
  raw: unknown,
  file: string,
  locate: Locate = () => undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Monitor> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new UsageError(`${file}: expected a monitor object with keys monitor, validators, verifiers, found ${describeFound(raw)}`, { file });
  const { monitor, ...rest } = raw as Record<string, unknown>;
  if (monitor === undefined)
    throw new UsageError(`${file}: monitor: expected the monitor's settings ({ experiment: service/operation, … }), found none`, { file });
  const parsed = monitorSectionSchema.safeParse(monitor, { reportInput: true });
  if (!parsed.success) throw zodUsageError(parsed.error, { file, locate, prefix: ['monitor'], schema: monitorSectionSchema });
  const m = parsed.data;
  for (const key of Object.keys(rest))
    if (key !== 'validators' && key !== 'verifiers' && key !== 'prices' && key !== 'timeoutMs')
      throw new UsageError(`${file}: ${key}: expected one of monitor, validators, verifiers, prices, timeoutMs, found an unknown key`, { file, path: key });
  const configPath = resolve(file);
  // The rules are an experiment's: built by the config module, as for a run, over a system that is never called.
  const experiment = await experimentFromDocument(
    { name: m.experiment, system: { production: m.experiment }, inputs: ['production'], ...rest },
    { file, configPath, baseDir: dirname(configPath), locate },
  );
  const { verifierColumns } = await import('../run/columns.js');
  const judges = verifierColumns(experiment, localLimiters(), { prices: priceTable(experiment.prices), env });
  const window = m.window === undefined ? undefined : typeof m.window === 'number' ? { ms: m.window } : m.window;
  const { window: _w, ...settings } = m;
  return {
    ...settings,
    file,
    ...(window ? { window } : {}),
    rules: [...experiment.validators, ...judges],
    experiment_: experiment,
    dispose: () => experiment.dispose(),
  };
}

import type { PassKOption } from '../core/pass-k.js';
import { withoutBom } from '../core/text.js';
import { readFileSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AggregateMethod, IntervalMethod, StoppingRule, VerdictMode } from '../core/summary-types.js';
import { DEFAULT_VERDICT_MODE, intervalProblem } from '../core/verdict.js';
import type { InputValue, Validator, ValidatorMeta } from '../core/validator.js';
import { AssayError, ExitCode, UsageError, thrownMessage } from '../errors.js';
import { ruleDecision, type DecisionParameters } from '../core/decision.js';
import { turnReplies } from '../core/trajectory.js';
import { estimandProblem } from '../core/summarize.js';
import { SandboxError } from '../sandbox/errors.js';
import { createSandbox } from '../sandbox/index.js';
import type { Sandbox } from '../sandbox/types.js';
import { builtinValidator, CheckOptionError, type CheckSpec } from '../validators/builtin.js';
import { DEFAULT_VALIDATOR_TIMEOUT_MS } from '../validators/evaluate.js';
import { sandboxedValidator } from '../validators/sandboxed.js';
import type { GroundedValidator } from '../validators/grounded.js';
import { priceTable } from '../providers/prices.js';
import { inputsFromReplay, loadInputsFile } from './inputs.js';
import { readYaml } from './yaml.js';
import { designProblem } from '../core/limits.js';
import { floorUnderSequential, perInputWithSequential } from '../core/per-input.js';
import { describeFound, explainIssues, formatPath, issuesError, schemaKeys, type LocatedMessage, type Locate } from '../core/issues.js';
import {
  experimentConfigSchema,
  overridesSchema,
  type ExperimentConfig,
  type ExperimentOverrides,
  type ParsedExperimentConfig,
  type ValidatorConfig,
  type VerifierConfig,
} from './schema.js';

/** The keys of a config file's objects, for "did you mean". */
const CONFIG_KEYS_AT = schemaKeys(experimentConfigSchema);

/** A verifier entry with its per-input floor and pass^k resolved (its own, else the run's default). */
export type ResolvedVerifierConfig = Omit<VerifierConfig, 'perInput' | 'passK'> & { perInput?: { minSuccess: number }; passK?: PassKOption };

/** A loaded, validated experiment: everything the runner needs, nothing it must parse again. */
export interface Experiment {
  name: string;
  description?: string;
  /** Absolute path of the config file. */
  configPath: string;
  /** The config file as the user named it, for messages (default configPath). */
  file?: string;
  /** The line of a field path in the config file, when known (YAML): errors found later (the system, a judge) name it. */
  locate?: Locate;
  /** Directory of the config file; relative paths in it (inputs, replay files) resolve here. */
  baseDir: string;
  /** The `system` key as written; `createSystem(raw, { file, baseDir, inputs })` validates it. */
  systemConfig: unknown;
  inputs: InputValue[];
  samples: number;
  validators: Validator[];
  /** The `verifiers` entries as validated here (perInput resolved); their `judge` is raw, for the verifier module. */
  verifierConfigs: ResolvedVerifierConfig[];
  aggregate: AggregateMethod;
  confidence: number;
  interval: IntervalMethod;
  verdict: VerdictMode;
  /** Largest error share a verdict may rest on (validators may set their own). */
  maxErrorShare: number;
  stopping: StoppingRule;
  /** What decides the verdicts, stored with the run (`serialisable.decision`): a resume may not change it. */
  decision: DecisionParameters;
  concurrency: number;
  timeoutMs: number;
  /** Per-evaluation limit for validators without their own `timeoutMs`. */
  validatorTimeoutMs: number;
  /** The response cache: undefined when off; `ttlMs` undefined for no expiry. */
  cache?: { ttlMs?: number };
  /** `prices:` from the config (over the built-in table). */
  prices?: Record<string, { inputPerMTok: number; outputPerMTok: number }>;
  /** Stop the run once this much USD is spent. */
  maxCostUsd?: number;
  /** A JSON-safe copy of the config (predicates as source text), for the store. */
  serialisable: unknown;
  /** Frees the sandbox that runs this experiment's predicate strings. */
  dispose(): void;
}

export interface LoadOptions {
  /** Sandbox for predicate strings; by default the experiment creates (and disposes) its own. */
  sandbox?: Sandbox;
}

/** Where a config document came from, for building an experiment out of one (a queue worker's stored copy). */
export interface DocumentOrigin {
  /** Named in error messages. */
  file: string;
  /** Absolute path of the config file. */
  configPath: string;
  /** Relative paths in the document (inputs, replay files, command cwd) resolve here. */
  baseDir: string;
  /** The inputs, when already known (a stored run's): the document's own are then not read. */
  inputs?: InputValue[];
  /** The line of a field path in the document, when it was read with positions (a monitor's YAML). */
  locate?: Locate;
}

/** Typed identity for `assay.config.ts`: `export default defineConfig({ ... })`. */
export function defineConfig(config: ExperimentConfig): ExperimentConfig {
  return config;
}

export async function loadExperiment(path: string, overrides: ExperimentOverrides = {}, options: LoadOptions = {}): Promise<Experiment> {
  const configPath = resolve(path);
  const { raw, locate } = await readConfig(configPath, path);
  return buildExperiment(raw, { file: path, configPath, baseDir: dirname(configPath) }, locate, overrides, options);
}

/**
 * The experiment of a config document that was read elsewhere: the `document` a YAML or JSON config's
 * experiment carries in its stored copy (`serialisable.document`), which queue workers build their run from.
 */
export async function experimentFromDocument(
  raw: unknown,
  origin: DocumentOrigin,
  overrides: ExperimentOverrides = {},
  options: LoadOptions = {},
): Promise<Experiment> {
  return buildExperiment(raw, origin, origin.locate ?? (() => undefined), overrides, options);
}

async function buildExperiment(
  raw: unknown,
  origin: DocumentOrigin,
  locate: Locate,
  overrides: ExperimentOverrides,
  options: LoadOptions,
): Promise<Experiment> {
  const { file, configPath, baseDir } = origin;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new UsageError(`${file}: expected a config object with keys name, system, inputs, validators, found ${describeFound(raw)}`, { file });
  }
  const parsed = experimentConfigSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success) throw usageError(file, explainIssues(parsed.error.issues, { keysAt: CONFIG_KEYS_AT }), locate);

  const ov = overridesSchema.safeParse(overrides, { reportInput: true });
  if (!ov.success) {
    const issues = explainIssues(ov.error.issues, { prefix: ['overrides'], keysAt: schemaKeys(overridesSchema) });
    throw issuesError({ key: formatPath(issues[0]?.path ?? ['overrides']) }, issues);
  }
  const cfg: ParsedExperimentConfig = { ...parsed.data };
  for (const [k, v] of Object.entries(ov.data)) if (v !== undefined) (cfg as Record<string, unknown>)[k] = v;

  if (cfg.validators.length + cfg.verifiers.length === 0) {
    throw usageError(file, [{ path: ['validators'], message: 'expected at least one validator (or verifier), found none' }], locate);
  }
  const seen = new Map<string, string>();
  for (const [key, list] of [
    ['validators', cfg.validators],
    ['verifiers', cfg.verifiers],
  ] as const) {
    list.forEach((v, i) => {
      const at = `${key}[${i}]`;
      const before = seen.get(v.name);
      if (before)
        throw usageError(
          file,
          [{ path: [key, i, 'name'], message: `expected a unique name, found ${JSON.stringify(v.name)} (also used by ${before})` }],
          locate,
        );
      seen.set(v.name, at);
    });
  }

  let inputs: InputValue[];
  let samples = cfg.samples;
  if (origin.inputs !== undefined) {
    inputs = origin.inputs;
  } else if (cfg.inputs === undefined) {
    // Validating logs one already has: the recording says what was asked, and how often.
    const recorded = inputsFromReplay(cfg.system, baseDir);
    if (!recorded)
      throw usageError(
        file,
        [
          {
            path: ['inputs'],
            message: 'expected a list of inputs (strings or objects) or { file: path }, found nothing (only a replay system may leave them out)',
          },
        ],
        locate,
      );
    inputs = recorded.inputs;
    samples ??= recorded.samples;
  } else {
    inputs = Array.isArray(cfg.inputs) ? (cfg.inputs as InputValue[]) : loadInputsFile(cfg.inputs.file, baseDir, { configFile: file, field: 'inputs.file' });
  }
  samples ??= 1;
  const tooBig = designProblem(inputs.length, samples, cfg.validators.length + cfg.verifiers.length);
  if (tooBig) throw usageError(file, [{ path: ['samples'], message: tooBig }], locate);

  let ownSandbox: Sandbox | undefined;
  const sandbox = (): Sandbox => options.sandbox ?? (ownSandbox ??= createSandbox());
  const validators: Validator[] = [];
  // `grounded` checks hold worker threads (each with its KB loaded): ended with the experiment.
  const grounded: GroundedValidator[] = [];
  const build = { cfg, sandbox, file, locate, baseDir, grounded };
  try {
    for (let i = 0; i < cfg.validators.length; i++) {
      const v = await buildValidator(cfg.validators[i], i, build);
      validators.push(cfg.validators[i].perTurn ? everyTurn(v, i, file, locate) : v);
    }
  } catch (err) {
    ownSandbox?.dispose();
    await Promise.all(grounded.map((g) => g.close()));
    throw err;
  }

  // Each rule's per-input floor: its own, else the run's default (`perInput: false` on a rule opts out).
  const verifierConfigs: ResolvedVerifierConfig[] = cfg.verifiers.map((v) => withPassK(withPerInput(v, cfg.perInput), cfg.passK));
  checkPerInputStopping(cfg, file, locate, { stopping: ov.data.stopping !== undefined, perInput: ov.data.perInput !== undefined });
  // The population claim needs a number of inputs fixed in advance: not with sequential stopping (yet).
  const estimand = estimandProblem(cfg.estimand, cfg.stopping);
  if (estimand) {
    if (ov.data.estimand !== undefined) throw issuesError({ key: 'overrides.estimand' }, [{ path: ['overrides', 'estimand'], message: estimand }]);
    if (ov.data.stopping !== undefined) throw issuesError({ key: 'overrides.stopping' }, [{ path: ['overrides', 'stopping'], message: estimand }]);
    throw usageError(file, [{ path: ['estimand'], message: estimand }], locate);
  }
  checkPassK(cfg, samples, file, locate);

  const metas: ValidatorMeta[] = validators.map((v) => ({
    name: v.name,
    message: v.message,
    minSuccess: v.minSuccess,
    weight: v.weight ?? 1,
    kind: 'validator',
    source: v.source,
    ...(v.onError !== undefined ? { onError: v.onError } : {}),
    ...(v.maxErrorShare !== undefined ? { maxErrorShare: v.maxErrorShare } : {}),
    ...(v.expect !== undefined ? { expect: v.expect } : {}),
    ...(v.perInput !== undefined ? { perInput: v.perInput } : {}),
    ...(v.passK !== undefined ? { passK: v.passK } : {}),
  }));
  const name = cfg.name ?? defaultName(configPath);
  // A sequential run decides on confidence bounds: it needs the confident verdict (the default).
  if (cfg.stopping === 'sequential' && cfg.verdict === 'point') {
    throw usageError(
      file,
      [{ path: ['verdict'], message: 'expected "confident" with stopping: sequential (its verdicts are decided by confidence bounds), found "point"' }],
      locate,
    );
  }
  const verdict: VerdictMode = cfg.verdict ?? DEFAULT_VERDICT_MODE;
  const degenerate = intervalProblem(cfg.interval, verdict);
  if (degenerate) {
    // Said where the pair came from: the file, or an override (`assay run --interval/--verdict`).
    if (ov.data.interval !== undefined)
      throw issuesError({ key: 'overrides.interval' }, [
        { path: ['overrides', 'interval'], message: `${degenerate} (interval wald is accepted with verdict point)` },
      ]);
    if (ov.data.verdict !== undefined)
      throw issuesError({ key: 'overrides.verdict' }, [
        {
          path: ['overrides', 'verdict'],
          message: `expected point with the config's interval: wald, found "confident" (${degenerate.replace(/^.*?found "wald": /, '')}); or override interval with clopper-pearson or wilson`,
        },
      ]);
    throw usageError(file, [{ path: ['interval'], message: degenerate }], locate);
  }
  // The run settings, the same in the experiment and in the copy stored with its runs.
  const settings = {
    aggregate: cfg.aggregate,
    confidence: cfg.confidence,
    interval: cfg.interval,
    verdict,
    maxErrorShare: cfg.maxErrorShare,
    stopping: cfg.stopping,
    estimand: cfg.estimand,
    concurrency: cfg.concurrency,
    timeoutMs: cfg.timeoutMs,
  };
  // What decides the verdicts, column by column (validators, then verifiers: the tensor's order), stored with the run.
  const decision: DecisionParameters = {
    confidence: cfg.confidence,
    interval: cfg.interval,
    verdict,
    maxErrorShare: cfg.maxErrorShare,
    stopping: cfg.stopping,
    estimand: cfg.estimand,
    rules: [...metas, ...verifierConfigs].map(ruleDecision),
  };
  const serialisable = jsonSafe({
    name,
    description: cfg.description,
    system: cfg.system,
    inputs: cfg.inputs ?? 'recorded in the replay file',
    samples,
    validators: metas,
    verifiers: verifierConfigs,
    ...settings,
    validatorTimeoutMs: cfg.validatorTimeoutMs,
    cache: cfg.cache,
    prices: cfg.prices,
    maxCostUsd: cfg.maxCostUsd,
    decision,
  }) as Record<string, unknown>;
  // A YAML or JSON document is data: kept with the run (its inputs are stored apart), so that a queue worker
  // on another machine builds the same experiment. A TypeScript config's functions cannot travel this way.
  if (isPlainData(raw)) {
    const { inputs: _inputs, ...document } = raw as Record<string, unknown>;
    serialisable.document = document;
  }

  return {
    name,
    ...(cfg.description !== undefined ? { description: cfg.description } : {}),
    configPath,
    file,
    locate,
    baseDir,
    systemConfig: cfg.system,
    inputs,
    samples,
    validators,
    verifierConfigs,
    ...settings,
    decision,
    validatorTimeoutMs: cfg.validatorTimeoutMs ?? DEFAULT_VALIDATOR_TIMEOUT_MS,
    ...(cfg.cache ? { cache: cfg.cache === true ? {} : { ...(cfg.cache.ttl !== undefined ? { ttlMs: cfg.cache.ttl } : {}) } } : {}),
    ...(cfg.prices ? { prices: cfg.prices } : {}),
    ...(cfg.maxCostUsd !== undefined ? { maxCostUsd: cfg.maxCostUsd } : {}),
    serialisable,
    dispose: () => {
      // Idempotent: the assembled run disposes its experiment, and callers may too.
      const own = ownSandbox;
      ownSandbox = undefined;
      own?.dispose();
      for (const g of grounded.splice(0)) void g.close();
    },
  };
}

/** A rule with its per-input floor resolved: its own, else `fallback`; none when it says `perInput: false`. */
function withPerInput<T extends { perInput?: { minSuccess: number } | false }>(
  rule: T,
  fallback: { minSuccess: number } | undefined,
): Omit<T, 'perInput'> & { perInput?: { minSuccess: number } } {
  const { perInput, ...rest } = rule;
  const floor = perInput === false ? undefined : (perInput ?? fallback);
  return floor ? { ...rest, perInput: { minSuccess: floor.minSuccess } } : rest;
}

/** A rule with its pass^k resolved: its own, else `fallback`; none when it says `passK: false`. */
function withPassK<T extends { passK?: PassKOption | false }>(rule: T, fallback: PassKOption | undefined): Omit<T, 'passK'> & { passK?: PassKOption } {
  const { passK, ...rest } = rule;
  const p = passK === false ? undefined : (passK ?? fallback);
  return p ? { ...rest, passK: { k: p.k, ...(p.minSuccess !== undefined ? { minSuccess: p.minSuccess } : {}) } } : rest;
}

/**
 * pass^k needs k tries of each input (k ≤ samples), and a number of tries fixed in advance: a sequential run stops
 * each rule when its data decide it, which would bias the per-input estimates (core/pass-k.ts). Each is refused.
 */
function checkPassK(cfg: ParsedExperimentConfig, samples: number, file: string, locate: Locate): void {
  const at = [
    ...(cfg.passK ? [{ path: ['passK'], k: cfg.passK.k }] : []),
    ...(['validators', 'verifiers'] as const).flatMap((key) => cfg[key].flatMap((v, i) => (v.passK ? [{ path: [key, i, 'passK'], k: v.passK.k }] : []))),
  ];
  const tooMany = at.find((x) => x.k > samples);
  if (tooMany)
    throw usageError(
      file,
      [{ path: [...tooMany.path, 'k'], message: `expected k ≤ samples (${samples}): pass^k needs k tries of each input, found ${tooMany.k}` }],
      locate,
    );
  if (cfg.stopping === 'sequential' && at.length)
    throw usageError(
      file,
      [
        {
          path: at[0].path,
          message:
            'expected no passK with stopping: sequential, found one: its per-input estimates need a number of tries fixed in advance, and a sequential run stops when the data decide the rule (use stopping: fixed, or drop passK)',
        },
      ],
      locate,
    );
}

/**
 * Per-input floors against sequential stopping, as core/per-input.ts decides and words it, named where the
 * pair came from: the file's field (with its line), or the override (`where.key`, which the CLI shows as its flag).
 */
function checkPerInputStopping(cfg: ParsedExperimentConfig, file: string, locate: Locate, byOverride: { stopping: boolean; perInput: boolean }): void {
  const rules = [cfg, ...cfg.validators, ...cfg.verifiers];
  const k = floorUnderSequential(cfg.stopping, rules);
  if (k === undefined) return;
  const path =
    k === 0 ? ['perInput'] : k <= cfg.validators.length ? ['validators', k - 1, 'perInput'] : ['verifiers', k - 1 - cfg.validators.length, 'perInput'];
  if (byOverride.perInput) throw issuesError({ key: 'overrides.perInput' }, [{ path: ['overrides', 'perInput'], message: perInputWithSequential() }]);
  if (byOverride.stopping) {
    const line = locate(path);
    const floor = `${formatPath(path)} in ${file}${line ? `, line ${line}` : ''}`;
    throw issuesError({ key: 'overrides.stopping' }, [{ path: ['overrides', 'stopping'], message: perInputWithSequential(floor) }]);
  }
  throw usageError(file, [{ path, message: perInputWithSequential() }], locate);
}

interface BuildContext {
  cfg: ParsedExperimentConfig;
  sandbox: () => Sandbox;
  file: string;
  locate: Locate;
  baseDir: string;
  /** Built `grounded` validators, for the experiment to close. */
  grounded: GroundedValidator[];
}

/**
 * `perTurn: true`: the rule checks the agent's reply to every user turn of a conversation (each must pass), not only
 * the final answer; an output without turns is checked as it is. Predicates and built-in checks only.
 */
function everyTurn(v: Validator, i: number, file: string, locate: Locate): Validator {
  if (v.evaluate)
    throw usageError(
      file,
      [
        {
          path: ['validators', i, 'perTurn'],
          message: 'expected only on a predicate or a built-in text check, found it on a check that evaluates the whole output',
        },
      ],
      locate,
    );
  const inner = v.predicate;
  return {
    ...v,
    predicate: async (output, input, trajectory) => {
      const replies = trajectory ? turnReplies(trajectory) : [];
      for (const reply of replies.length ? replies : [output]) if (!(await inner(reply, input, trajectory))) return false;
      return true;
    },
    source: `${v.source ?? v.name}, in every turn's reply`,
  };
}

async function buildValidator(v: ValidatorConfig, i: number, { cfg, sandbox, file, locate, baseDir, grounded }: BuildContext): Promise<Validator> {
  const header = { name: v.name, message: v.message, minSuccess: v.minSuccess, weight: v.weight, timeoutMs: v.timeoutMs };
  // How errors and the sequential design treat this rule: the same for every kind of predicate.
  const policy = stripUndefined({
    onError: v.onError,
    maxErrorShare: v.maxErrorShare,
    expect: v.expect,
    perInput: withPerInput(v, cfg.perInput).perInput,
    passK: withPassK(v, cfg.passK).passK,
  });
  if (typeof v.predicate === 'function') {
    const fn = v.predicate;
    return {
      ...stripUndefined(header),
      message: v.message ?? `Output does not satisfy ${v.name}`,
      kind: 'validator',
      predicate: fn,
      source: sourceOf(fn),
      ...policy,
    };
  }
  if (typeof v.predicate === 'string') {
    try {
      return {
        ...(await sandboxedValidator(
          stripUndefined(header),
          v.predicate,
          sandbox(),
          cfg.validatorTimeoutMs !== undefined ? { timeoutMs: cfg.validatorTimeoutMs } : {},
        )),
        ...policy,
      };
    } catch (err) {
      if (!SandboxError.isInstance(err)) throw err;
      // The sandbox itself failed, not the predicate: an environment problem (exit 3), said in one line.
      if (err.kind === 'crashed')
        throw new AssayError(`${file}: validator ${JSON.stringify(v.name)}: the predicate sandbox failed: ${err.message}`, ExitCode.INTERNAL);
      const message = `expected a JavaScript function expression such as "o => o.length < 100", found ${describeFound(v.predicate)} (validator ${JSON.stringify(v.name)} ${err.message})`;
      throw usageError(file, [{ path: ['validators', i, 'predicate'], message }], locate);
    }
  }
  try {
    if (v.check?.type === 'grounded') {
      // The grounding audit's modules load with a grounded check only (start-up, docs/runner.md).
      const { groundedValidator } = await import('../validators/grounded.js');
      const g = await groundedValidator(stripUndefined(header), v.check, {
        baseDir,
        file,
        locate,
        path: `validators[${i}].check`,
        ...(cfg.prices ? { prices: priceTable(cfg.prices) } : {}),
      });
      grounded.push(g);
      const { close: _close, stats: _stats, ...validator } = g;
      return { ...validator, ...policy };
    }
    return { ...builtinValidator(stripUndefined(header), v.check as CheckSpec), ...policy };
  } catch (err) {
    if (!CheckOptionError.isInstance(err)) throw err;
    throw usageError(file, [{ path: ['validators', i, 'check', err.field], message: err.message }], locate);
  }
}

/** One UsageError for a document's problems: `<file>: <field>: <message> (line N)` a line, in file order. */
function usageError(file: string, messages: LocatedMessage[], locate: Locate): UsageError {
  return issuesError({ file, locate }, messages);
}

async function readConfig(abs: string, file: string): Promise<{ raw: unknown; locate: Locate }> {
  const ext = extname(abs).toLowerCase();
  const none: Locate = () => undefined;
  if (['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'].includes(ext)) return { raw: await importConfig(abs, file, ext), locate: none };
  if (!['.yaml', '.yml', '.json'].includes(ext)) {
    throw new UsageError(`${file}: expected a .yaml, .yml, .json, .ts, .mts, .js or .mjs config file, found ${JSON.stringify(ext || 'no extension')}`, {
      file,
    });
  }
  let text: string;
  try {
    text = withoutBom(readFileSync(abs, 'utf8'));
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'it does not exist' : (err as Error).message;
    throw new UsageError(`${file}: expected a readable config file, but ${why}`, { file });
  }
  if (ext === '.json') {
    try {
      return { raw: JSON.parse(text), locate: none };
    } catch (err) {
      const m = /position (\d+)/.exec((err as Error).message);
      const line = m ? text.slice(0, Number(m[1])).split('\n').length : undefined;
      throw new UsageError(`${file}${line ? `:${line}` : ''}: expected valid JSON (${(err as Error).message})`, { file, line });
    }
  }
  return readYaml(text, file);
}

async function importConfig(abs: string, file: string, ext: string): Promise<unknown> {
  let mod: Record<string, unknown>;
  try {
    const url = pathToFileURL(abs).href;
    if (ext === '.ts' || ext === '.mts' || ext === '.cts') {
      const { tsImport } = await import('tsx/esm/api');
      mod = (await tsImport(url, import.meta.url)) as Record<string, unknown>;
    } else {
      mod = (await import(url)) as Record<string, unknown>;
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const message = thrownMessage(err);
    // esbuild (through tsx) puts the syntax errors on the lines after "Transform failed with N error(s):".
    const syntax = /^Transform failed/.test(message) ? /:(\d+):(\d+): ERROR: (.*)$/m.exec(message) : null;
    if (syntax) {
      const [, line, col, what] = syntax;
      throw new UsageError(`${file}:${line}:${col}: expected a config module that loads, but it has a syntax error: ${what} (line ${line}, column ${col})`, {
        file,
        line: Number(line),
      });
    }
    const why = code === 'ERR_MODULE_NOT_FOUND' && !existsQuiet(abs) ? 'it does not exist' : message.split('\n')[0];
    throw new UsageError(`${file}: expected a config module that loads, but ${why}`, { file });
  }
  let value = mod.default ?? mod.config;
  // Some loaders wrap a CommonJS-style default export once more.
  if (value && typeof value === 'object' && 'default' in value && Object.keys(value).length === 1) value = (value as { default: unknown }).default;
  if (typeof value === 'function') value = await (value as () => unknown)();
  if (value === undefined) throw new UsageError(`${file}: expected a default export (export default defineConfig({...})), found none`, { file });
  return value;
}

function existsQuiet(p: string): boolean {
  try {
    readFileSync(p);
    return true;
  } catch {
    return false;
  }
}

function defaultName(configPath: string): string {
  return (
    basename(configPath)
      .replace(/\.[^.]+$/, '')
      .replace(/\.config$/, '') || 'experiment'
  );
}

function sourceOf(fn: (...a: never[]) => unknown): string {
  const s = fn.toString().replace(/\s+/g, ' ').trim();
  return s.length > 200 ? `${s.slice(0, 199)}…` : s;
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** True for JSON data all the way down (what YAML and JSON parse to), false if a function or class instance is inside. */
function isPlainData(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return true;
  if (Array.isArray(v)) return v.every(isPlainData);
  if (typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && Object.values(v as object).every(isPlainData);
}

/** A JSON-safe deep copy: functions become their source text, cycles and non-JSON values are dropped. */
function jsonSafe(value: unknown): unknown {
  const seen = new WeakSet<object>();
  return JSON.parse(
    JSON.stringify(value, (_k, v: unknown) => {
      if (typeof v === 'function') return sourceOf(v as () => unknown);
      if (typeof v === 'bigint') return v.toString();
      if (v && typeof v === 'object') {
        if (seen.has(v)) return undefined;
        seen.add(v);
      }
      return v;
    }) ?? 'null',
  );
}

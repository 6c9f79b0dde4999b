import type { Command } from 'commander';
import { loadExperiment, type Experiment } from '../config/index.js';
import type { InputValue, Validator } from '../core/validator.js';
import { ExitCode, UsageError } from '../errors.js';
import { guardedCall } from '../guard/guard.js';
import type { GuardResult } from '../guard/types.js';
import { assembleRun, type AssembledRun } from '../run/assemble.js';
import { shownLocation, storeLocation } from '../store/open.js';
import { intFlag } from './flags.js';

/**
 * `assay guard <config> --input "..."`: one guarded call with an experiment's system, validators and verifiers
 * (white paper §4.1–4.2). The first verifier drives the retry with its reasons; further verifiers act as
 * validators whose reasons are fed back too. Exit 0 when an output was accepted, 1 when none was, 3 when the
 * system could not be called.
 */

interface GuardFlags {
  input?: string;
  inputIndex?: string;
  maxAttempts: string;
  timeout?: string;
  callTimeout?: string;
  feedback: boolean;
  store?: string | false;
  json?: boolean;
}

function pickInput(x: Experiment, flags: GuardFlags): InputValue {
  if ((flags.input === undefined) === (flags.inputIndex === undefined)) {
    throw new UsageError(`assay guard: expected exactly one of --input <text> or --input-index <n>, found ${flags.input === undefined ? 'neither' : 'both'}`);
  }
  if (flags.input !== undefined) return flags.input;
  // Counted from 1, as people count the config's inputs (and as reports number them).
  const n = intFlag('--input-index', flags.inputIndex, { min: 1, max: x.inputs.length, hint: "the config's inputs, counted from 1" })!;
  return x.inputs[n - 1];
}

const show = (v: InputValue) => (typeof v === 'string' ? v : JSON.stringify(v));

/** The result for a terminal; `verifierName` names the verifier's column (its config name). */
export function formatGuardResult(r: GuardResult, verifierName = 'verifier'): string {
  const lines = [`${r.accepted ? 'ACCEPTED' : 'NO OUTPUT'} after ${r.attempts.length} attempt(s): ${r.reason}${r.detail ? ` (${r.detail})` : ''}`];
  for (const a of r.attempts) {
    const checks = a.validators.map((c) => `${c.name}=${c.outcome}`);
    if (a.verifier) checks.push(`${verifierName} (verifier)=${a.verifier.outcome}`);
    lines.push(
      `  #${a.n} ${a.status.padEnd(8)} ${Math.round(a.latencyMs)} ms  ${checks.join(' ')}${a.generationError ? `  system error: ${a.generationError}` : ''}`,
    );
    for (const reason of a.reasons) lines.push(`      - ${reason}`);
  }
  const u = r.usage.total;
  lines.push(
    `tokens: ${u.promptTokens} prompt + ${u.completionTokens} completion (verifier ${r.usage.verifier.promptTokens} + ${r.usage.verifier.completionTokens})`,
  );
  if (r.output !== undefined) lines.push('', r.output);
  return lines.join('\n');
}

/**
 * 0 accepted; 1 no output accepted (rejected every time, or out of time); 3 the system itself failed (connection
 * refused, 401, a missing model… after the retries of retryable errors): an infrastructure error, not a verdict.
 */
export function guardExitCode(r: GuardResult): number {
  if (r.accepted) return ExitCode.OK;
  if (r.reason === 'error' && r.attempts.at(-1)?.generationError !== undefined) return ExitCode.INTERNAL;
  return ExitCode.VERDICT_FAILED;
}

// Node's timers hold at most 2^31 − 1 ms (about 24.8 days).
const MAX_MS = 2 ** 31 - 1;

const msFlag = (flag: string, value: string | undefined) => intFlag(flag, value, { min: 1, max: MAX_MS, what: 'a whole number of milliseconds' });

async function guardCommand(configPath: string, flags: GuardFlags): Promise<void> {
  const maxAttempts = intFlag('--max-attempts', flags.maxAttempts, { min: 1 })!;
  const timeoutMs = msFlag('--timeout', flags.timeout);
  const callTimeoutMs = msFlag('--call-timeout', flags.callTimeout);
  const experiment = await loadExperiment(configPath);
  let assembled: AssembledRun | undefined;
  try {
    const input = pickInput(experiment, flags);
    // The system and the judges as `assay run` makes them (rate limits, prices): the first verifier is the one whose reasons are fed back.
    assembled = await assembleRun(experiment);
    const system = assembled.system;
    const verifiers = assembled.experiment.validators.slice(experiment.validators.length);
    const validators: Validator[] = [...experiment.validators, ...verifiers.slice(1)];
    const store = flags.store === false ? undefined : storeLocation(flags.store);
    const idx = experiment.inputs.findIndex((x) => show(x) === show(input));
    const result = await guardedCall(system, input, {
      validators,
      verifier: verifiers[0],
      maxAttempts,
      timeoutMs,
      callTimeoutMs: callTimeoutMs ?? experiment.timeoutMs,
      validatorTimeoutMs: experiment.validatorTimeoutMs,
      // As in `assay run`: a verifier is an LLM call and gets the config's per-call limit unless it sets its own.
      verifierTimeoutMs: experiment.timeoutMs,
      feedback: flags.feedback,
      store,
      inputIndex: idx >= 0 ? idx : 0,
    });
    process.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatGuardResult(result, verifiers[0]?.name)}\n`);
    // The answer stands (the gate must not fail on logging), but a log that was asked for and not written is said.
    if (result.logError)
      process.stderr.write(`assay: warning: the guard's attempts were not logged to ${store ? shownLocation(store) : 'the store'}: ${result.logError}\n`);
    process.exitCode = guardExitCode(result);
  } finally {
    await (assembled ? assembled.dispose() : experiment.dispose());
  }
}

export function register(program: Command): void {
  program
    .command('guard')
    .description('Run one input through the guard: generate, check, retry with the reasons fed back, up to --max-attempts')
    .argument('<config>', 'experiment config (its system, validators and verifiers are used)')
    .option('--input <text>', 'the input to guard')
    .option('--input-index <n>', "use the config's n-th input instead (1 = the first)")
    .option('--max-attempts <n>', 'maximum attempts including the first (m)', '3')
    .option('--timeout <ms>', 'overall time limit for the whole loop')
    .option('--call-timeout <ms>', "time limit of one generation (default: the config's timeoutMs)")
    .option('--no-feedback', 'regenerate from the unchanged input (no reasons fed back)')
    .option('--store <location>', 'store for the attempt log: a SQLite file or a postgres:// URL (default: $ASSAY_STORE, else .assay/assay.db)')
    .option('--no-store', 'do not persist attempts')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExit codes: 0 an output was accepted; 1 none was (every attempt rejected, or --timeout ran out);\n2 bad usage or config; 3 the system could not be called (connection refused, 401/403/404, …).',
    )
    .action((config: string, flags: GuardFlags) => guardCommand(config, flags));
}

#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AssayError, ExitCode } from '../errors.js';
import * as analyze from './analyze.js';
import * as bench from './bench.js';
import * as calibrate from './calibrate.js';
import * as compare from './compare.js';
import * as guard from './guard.js';
import * as init from './init.js';
import * as kb from './kb.js';
import * as plan from './plan.js';
import * as run from './run.js';
import * as runs from './runs.js';
import * as serve from './serve.js';
import * as show from './show.js';
import * as spade from './spade.js';

/** One file per command; each exports register(program). */
const commands = [run, runs, show, init, plan, guard, compare, spade, kb, analyze, calibrate, bench, serve];

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('assay')
    .description('Continuous alignment testing for LLM-based systems')
    .version('0.1.0')
    .exitOverride()
    .showHelpAfterError();
  for (const c of commands) c.register(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  // Each call reports its own verdict (tests call main() many times in one process).
  process.exitCode = undefined;
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through here with code 0
      return err.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
    }
    // A problem assay raised on purpose (bad usage, an unusable store or report file): its message says it all.
    if (err instanceof AssayError) {
      process.stderr.write(`assay: ${err.message}\n`);
      return err.exitCode;
    }
    process.stderr.write(`assay: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return ExitCode.INTERNAL;
  }
}

/**
 * Run when executed as the bin, not when imported (tests). Comparing real paths covers every way in:
 * `node dist/cli/main.js`, `node --import tsx src/cli/main.ts`, and the npm bin symlink or shim
 * (`npx assay`, node_modules/.bin/assay, a global install), whatever the link is called.
 */
function isEntryPoint(): boolean {
  const invokedAs = process.argv[1];
  if (!invokedAs) return false;
  try {
    return realpathSync(invokedAs) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return /[\\/]cli[\\/]main\.(js|ts)$/.test(invokedAs) || /[\\/]assay$/.test(invokedAs);
  }
}

if (isEntryPoint()) {
  // `assay runs | head -3`: the reader went away; that is not an error, stop quietly.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : ExitCode.OK);
  });
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}

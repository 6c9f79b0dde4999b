#!/usr/bin/env node
import { cliMessage } from './flag-names.js';
import { Command, CommanderError } from 'commander';
import { realpathSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssayError, ExitCode } from '../errors.js';
import { mapStackTraces } from './stack-traces.js';
import { setAssayCommand } from '../invocation.js';
import { assayCommand } from './invocation.js';

/**
 * One file per command; each exports register(program). Modules are imported only when their command runs
 * (`assay --version` loads none of them; `assay run` loads run.ts and what it imports), so start-up stays
 * close to node's own. To add a command: one line here, in any order.
 */
const COMMANDS: { name: string; load: () => Promise<{ register(program: Command): void }> }[] = [
  { name: 'run', load: () => import('./run.js') },
  { name: 'runs', load: () => import('./runs.js') },
  { name: 'show', load: () => import('./show.js') },
  { name: 'init', load: () => import('./init.js') },
  { name: 'plan', load: () => import('./plan.js') },
  { name: 'guard', load: () => import('./guard.js') },
  { name: 'compare', load: () => import('./compare.js') },
  { name: 'spade', load: () => import('./spade.js') },
  { name: 'kb', load: () => import('./kb.js') },
  { name: 'analyze', load: () => import('./analyze.js') },
  { name: 'calibrate', load: () => import('./calibrate.js') },
  { name: 'bench', load: () => import('./bench.js') },
  { name: 'serve', load: () => import('./serve.js') },
  { name: 'ingest', load: () => import('./ingest.js') },
  { name: 'monitor', load: () => import('./monitor.js') },
  { name: 'worker', load: () => import('./worker.js') },
  { name: 'mock', load: () => import('./mock.js') },
  { name: 'cache', load: () => import('./cache.js') },
  { name: 'grades', load: () => import('./grades.js') },
  { name: 'grade', load: () => import('./grade.js') },
  { name: 'audits', load: () => import('./audits.js') },
];

const VERSION_ONLY = new Set(['--version', '-V']);

/**
 * The commands `argv` needs: the one it names, none for a bare --version, and all of them otherwise
 * (help, no command, or an unknown one, which commander answers with the list and a suggestion).
 */
function commandsFor(argv: readonly string[]): typeof COMMANDS {
  const first = argv.find((a) => !a.startsWith('-'));
  const named = first === undefined ? undefined : COMMANDS.find((c) => c.name === first);
  if (named) return [named];
  if (argv.length > 0 && argv.every((a) => VERSION_ONLY.has(a))) return [];
  return COMMANDS;
}

export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const program = new Command();
  program.name('assay').description('Continuous alignment testing for LLM-based systems').version('0.1.0').exitOverride().showHelpAfterError();
  const modules = await Promise.all(commandsFor(argv).map((c) => c.load()));
  for (const m of modules) m.register(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  // Each call reports its own verdict (tests call main() many times in one process).
  process.exitCode = undefined;
  try {
    const program = await buildProgram(argv);
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through here with code 0
      return err.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
    }
    // A problem assay raised on purpose (bad usage, an unusable store or report file): its message says it all.
    if (AssayError.isInstance(err)) {
      process.stderr.write(`assay: ${cliMessage(err as AssayError & { where?: { key?: string } })}\n`);
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
  // Node ≥ 22.1 keeps the compiled code of the modules loaded from here on in a cache on disk (its temp
  // folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off), so later runs skip compiling them: see docs/runner.md,
  // "Start-up". Node 20 has no such cache.
  (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  // The bundled bin's stack traces name src/ files and lines, from the maps beside its chunks (read on demand).
  mapStackTraces(dirname(fileURLToPath(import.meta.url)));
  // Every hint a message gives names the command the user started assay with (`npx assay` in a project install).
  setAssayCommand(assayCommand());
  // `assay runs | head -3`: the reader went away; that is not an error, stop quietly.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : ExitCode.OK);
  });
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}

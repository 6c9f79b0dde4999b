import type { Command } from 'commander';

/** `assay analyze`: not built yet (placeholder so the CLI compiles; replaced by the command's owner). */
export function register(program: Command): void {
  program.command('analyze').description('(not implemented yet)');
}

import type { Command } from 'commander';

/** `assay compare`: not built yet (placeholder so the CLI compiles; replaced by the command's owner). */
export function register(program: Command): void {
  program.command('compare').description('(not implemented yet)');
}

import type { Command } from 'commander';

/** `assay run`: not built yet (placeholder so the CLI compiles; replaced by the command's owner). */
export function register(program: Command): void {
  program.command('run').description('(not implemented yet)');
}

import type { Command } from 'commander';

/** `assay bench`: not built yet (placeholder so the CLI compiles; replaced by the command's owner). */
export function register(program: Command): void {
  program.command('bench').description('(not implemented yet)');
}

import type { Command } from 'commander';

/** `assay plan`: not built yet (placeholder so the CLI compiles; replaced by the command's owner). */
export function register(program: Command): void {
  program.command('plan').description('(not implemented yet)');
}

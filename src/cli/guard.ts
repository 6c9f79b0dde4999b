import type { Command } from 'commander';

/** `assay guard`: not built yet (placeholder so the CLI compiles; replaced by the command's owner). */
export function register(program: Command): void {
  program.command('guard').description('(not implemented yet)');
}

import type { Command } from 'commander';

/** `assay serve`: not built yet (placeholder so the CLI compiles; replaced by the command's owner). */
export function register(program: Command): void {
  program.command('serve').description('(not implemented yet)');
}

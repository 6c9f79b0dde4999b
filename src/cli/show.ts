import type { Command } from 'commander';

/** `assay show`: not built yet (placeholder so the CLI compiles; replaced by the command's owner). */
export function register(program: Command): void {
  program.command('show').description('(not implemented yet)');
}

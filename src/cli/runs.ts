import type { Command } from 'commander';

/** `assay runs`: not built yet (placeholder so the CLI compiles; replaced by the command's owner). */
export function register(program: Command): void {
  program.command('runs').description('(not implemented yet)');
}

import type { Command } from 'commander';

/** `assay kb`: not built yet (placeholder so the CLI compiles; replaced by the command's owner). */
export function register(program: Command): void {
  program.command('kb').description('(not implemented yet)');
}

import type { Command } from 'commander';

/** `assay calibrate`: not built yet (placeholder so the CLI compiles; replaced by the command's owner). */
export function register(program: Command): void {
  program.command('calibrate').description('(not implemented yet)');
}

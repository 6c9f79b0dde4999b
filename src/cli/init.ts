import type { Command } from 'commander';

/** `assay init`: not built yet (placeholder so the CLI compiles; replaced by the command's owner). */
export function register(program: Command): void {
  program.command('init').description('(not implemented yet)');
}

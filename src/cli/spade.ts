import type { Command } from 'commander';

/** `assay spade`: not built yet (placeholder so the CLI compiles; replaced by the command's owner). */
export function register(program: Command): void {
  program.command('spade').description('(not implemented yet)');
}

import type { Command } from 'commander';
import { openStore, shownLocation, storeLocation } from '../store/open.js';
import { STORE_FLAG, STORE_HELP } from './store-flag.js';

/** `assay cache clear`: forget every answer the response cache (`assay run --cache`) kept in the store. */
export function register(program: Command): void {
  const cache = program.command('cache').description('The response cache kept in the store by `assay run --cache`');
  cache
    .command('clear')
    .description('remove every cached answer (runs and their samples are kept)')
    .option(STORE_FLAG, STORE_HELP)
    .action(async (flags: { store?: string }) => {
      const location = storeLocation(flags.store);
      // A missing store is exit 2 and stays missing (it has no cache to clear).
      const store = await openStore(location, { existing: true });
      try {
        const n = await store.cache.clear();
        process.stdout.write(`assay: removed ${n} cached answer${n === 1 ? '' : 's'} from ${shownLocation(location)}\n`);
      } finally {
        await store.close();
      }
    });
}

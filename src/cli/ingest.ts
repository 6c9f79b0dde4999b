import type { Command } from 'commander';
import { ingestFile } from '../app/ingest.js';
import { openStore, storeLocation } from '../store/open.js';
import { STORE_FLAG, STORE_HELP } from './store-flag.js';
import { assayCommandLine } from '../invocation.js';

interface IngestFlags {
  json?: boolean;
  store?: string;
}

/** `assay ingest FILE`: production traffic from a JSONL log (OTLP/JSON exports or flat records) into the store. */
export function register(program: Command): void {
  program
    .command('ingest')
    .description(
      'store production traffic from a JSONL file: OTLP/JSON trace exports (the Collector file exporter) or one record per call (docs/production.md)',
    )
    .argument('<file>', 'the JSONL file')
    .option('--json', 'print the counts as JSON')
    .option(STORE_FLAG, STORE_HELP)
    .action(async (file: string, flags: IngestFlags) => {
      const store = await openStore(storeLocation(flags.store));
      try {
        const r = await ingestFile(store, file);
        if (flags.json) process.stdout.write(JSON.stringify(r) + '\n');
        else
          process.stdout.write(
            `${file}: ${r.lines} lines, ${r.spans} GenAI spans: ${r.stored} stored, ${r.duplicates} already there (${assayCommandLine('runs')} lists the production experiments)\n`,
          );
        process.exitCode = 0;
      } finally {
        await store.close();
      }
    });
}

import type { Command } from 'commander';
import { loadStoredRun, type StoredRunReport } from '../report/load.js';
import { openStore, storeLocation } from '../store/open.js';
import type { Store } from '../store/types.js';
import { intFlag } from './flags.js';
import { STORE_FLAG, STORE_HELP } from './store-flag.js';
import { formatRate } from '../core/show.js';
import { maxOf } from '../core/arrays.js';
import { thrownMessage } from '../errors.js';
import { assayCommandLine } from '../invocation.js';

interface RunsFlags {
  name?: string;
  json?: boolean;
  limit?: string;
  offset?: string;
  store?: string;
}

interface RunRow {
  id: string;
  name: string;
  status: string;
  createdAt: string;
  finishedAt?: string;
  system: string;
  design: { N: number; M: number; K: number };
  /** Stored samples out of N × M. */
  done: number;
  verdict: string;
  /** Configured aggregate of validator rates. */
  overall: number | null;
  /** Share of checked cells that are errors: the overall rate leaves them out. */
  errorShare?: number | null;
  /** Why the run could not be read (verdict "unreadable"). */
  problem?: string;
}

/** `assay runs`: the stored runs, newest first, with their verdicts. */
export function register(program: Command): void {
  program
    .command('runs')
    .description('List stored runs, newest first, with verdict and overall rate')
    .option('--name <name>', 'only runs of this experiment name')
    .option('--limit <n>', 'at most this many runs', '20')
    .option('--offset <n>', 'skip this many of the newest runs first (the next page: --offset 20)')
    .option('--json', 'print JSON instead of a table')
    .option(STORE_FLAG, STORE_HELP)
    .action(async (flags: RunsFlags) => {
      const limit = intFlag('--limit', flags.limit, { min: 1 });
      const offset = intFlag('--offset', flags.offset, { min: 0 }) || undefined;
      const store = await openStore(storeLocation(flags.store), { readonly: true });
      try {
        const runs = await store.runs.list({
          ...(flags.name !== undefined ? { name: flags.name } : {}),
          ...(limit !== undefined ? { limit } : {}),
          ...(offset !== undefined ? { offset } : {}),
        });
        const rows: RunRow[] = [];
        for (const run of runs) {
          let r: StoredRunReport;
          try {
            r = await loadStoredRun(store, run.id);
          } catch (err) {
            // One damaged record (e.g. an impossible N×M×K from an older assay) must not hide every other run.
            const problem = thrownMessage(err);
            process.stderr.write(`assay: run ${run.id} cannot be read: ${problem}\n`);
            rows.push({
              id: run.id,
              name: run.name,
              status: run.status,
              createdAt: run.createdAt,
              system: run.systemId,
              design: { N: run.N, M: run.M, K: run.K },
              done: 0,
              verdict: 'unreadable',
              overall: null,
              problem,
            });
            continue;
          }
          // A stored sample has a non-pending cell (a sequential run leaves decided validators' cells pending).
          let done = 0;
          for (let i = 0; i < r.tensor.N; i++)
            for (let j = 0; j < r.tensor.M; j++) if (!Array.from({ length: r.tensor.K }, (_, k) => r.tensor.get(i, j, k)).every((c) => c === 0)) done++;
          rows.push({
            id: run.id,
            name: run.name,
            status: run.status,
            createdAt: run.createdAt,
            ...(run.finishedAt !== undefined ? { finishedAt: run.finishedAt } : {}),
            system: run.systemId,
            design: { N: run.N, M: run.M, K: run.K },
            done,
            verdict: r.summary.verdict,
            overall: r.summary.overall.value,
            errorShare: r.summary.overall.errorShare,
          });
        }
        // Production experiments (traces taken in by assay serve --ingest or assay ingest) follow the runs.
        const production = offset ? [] : await productionRows(store, flags.name);
        if (flags.json) {
          process.stdout.write(JSON.stringify([...rows, ...production], null, 2) + '\n');
        } else if (!rows.length && !production.length) {
          process.stdout.write(
            flags.name !== undefined
              ? `no runs named "${flags.name}" in the store\n`
              : `no runs in the store yet (start one with: ${assayCommandLine('run assay.yaml')})\n`,
          );
        } else {
          if (rows.length)
            printTable(
              [['run', 'name', 'status', 'created', 'N×M×K', 'samples', 'verdict', 'overall', 'errors']].concat(
                rows.map((r) => [
                  r.id,
                  r.name,
                  r.status,
                  r.createdAt.slice(0, 19).replace('T', ' '),
                  `${r.design.N}×${r.design.M}×${r.design.K}`,
                  `${r.done}/${r.design.N * r.design.M}`,
                  r.verdict,
                  formatRate(r.overall),
                  formatRate(r.errorShare),
                ]),
              ),
            );
          if (production.length) {
            if (rows.length) process.stdout.write('\n');
            printTable(
              [['production experiment', 'samples', 'first', 'last', 'alarms']].concat(
                production.map((p) => [p.name, p.samples.toLocaleString('en'), shortTime(p.first), shortTime(p.last), String(p.alarms)]),
              ),
            );
          }
        }
        process.exitCode = 0;
      } finally {
        await store.close();
      }
    });
}

interface ProductionRow {
  kind: 'production';
  name: string;
  samples: number;
  first: string;
  last: string;
  alarms: number;
}

/** The store's production experiments (all, or the one named), with their alarms so far. */
async function productionRows(store: Store, name: string | undefined): Promise<ProductionRow[]> {
  const experiments = (await store.production.experiments()).filter((e) => name === undefined || e.name === name);
  const rows: ProductionRow[] = [];
  for (const e of experiments) {
    const alarms = (await store.production.alarms(e.name)).length;
    rows.push({
      kind: 'production',
      name: e.name,
      samples: e.samples,
      first: new Date(e.firstMs).toISOString(),
      last: new Date(e.lastMs).toISOString(),
      alarms,
    });
  }
  return rows;
}

function shortTime(iso: string): string {
  return iso.slice(0, 19).replace('T', ' ');
}

function printTable(table: string[][]): void {
  const widths = table[0].map((_, c) => maxOf(table.map((row) => row[c].length)));
  for (const row of table)
    process.stdout.write(
      row
        .map((cell, c) => cell.padEnd(widths[c]))
        .join('  ')
        .trimEnd() + '\n',
    );
}

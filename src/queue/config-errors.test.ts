import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useConfigDir } from '../cli/testing/config-dir.js';
import { loadExperiment } from '../config/load.js';
import { MemoryStore } from '../store/memory.js';
import { redisForTests } from '../testing/services.js';
import { parseRedisUrl } from './connection.js';
import { runOnQueue } from './coordinator.js';
import { startSampleWorker } from './worker.js';

// A TypeScript config is loaded by tsx, in a module graph of its own: the UsageError it throws is another copy
// of the class than the worker's (as with the `assay` bin, a bundle, and a config that imports the package).
// The worker must still see a usage error, which no retry mends, and fail the job at once.
const redis = await redisForTests();
afterAll(async () => redis?.drop());
const tmp = useConfigDir('assay-queue-config-');

describe.skipIf(!redis)('a TypeScript config that throws a usage error on a queue worker', () => {
  it('fails each job at its first attempt, and the run reports the error', async () => {
    const loads = join(tmp.dir(), 'loads');
    const refuse = join(tmp.dir(), 'refuse');
    writeFileSync(loads, '');
    const file = tmp.config(
      'refuses.config.ts',
      `import { appendFileSync, existsSync } from 'node:fs';
import { UsageError } from ${JSON.stringify(join(import.meta.dirname, '../errors.ts'))};

// Loads where the run is queued; refuses on the worker, once the test has made the file it looks for.
export default () => {
  appendFileSync(${JSON.stringify(loads)}, 'x');
  if (existsSync(${JSON.stringify(refuse)})) throw new UsageError('refuses.config.ts: system: no key for the model on this machine');
  return {
    name: 'refuses',
    system: { simulated: { seed: 1, outputs: ['fine'] } },
    inputs: ['a', 'b', 'c'],
    samples: 2,
    validators: [{ name: 'nonempty', predicate: (o: string) => o.length > 0, minSuccess: 0.5 }],
  };
};
`,
    );
    const x = await loadExperiment(file);
    writeFileSync(refuse, '');
    const store = new MemoryStore();
    const lines: string[] = [];
    const q = parseRedisUrl(`${redis!.url}?prefix=${redis!.prefix}-tsconfig`);
    const worker = await startSampleWorker({ queue: q, store, concurrency: 2, log: (l) => lines.push(l) });
    try {
      const result = await runOnQueue({ experiment: x, systemId: 'simulated', store, queue: q });
      expect(result.failed).toBe(6);
      expect(result.firstError).toBe('refuses.config.ts: system: no key for the model on this machine');
      expect(result.status).toBe('interrupted');
      expect(await store.samples.list(result.run.id)).toEqual([]);
      // Loaded once where the run was queued and once on the worker: its failure is kept for the run, not retried.
      expect(readFileSync(loads, 'utf8')).toBe('xx');
      expect(lines.filter((l) => / failed/.test(l))).toEqual([
        expect.stringMatching(/^sample \(\d, \d\) of run \S+ failed: refuses\.config\.ts: system: no key for the model on this machine \(/),
      ]);
    } finally {
      await worker.close();
      x.dispose();
    }
  });
});

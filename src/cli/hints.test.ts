import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sparePort } from '../testing/throwaway.js';
import { useConfigDir } from './testing/config-dir.js';
import { runCliProcess } from './testing/process.js';

// Issue 26 leftover: `assay init` said `npx assay` when started through npx, but every other printed hint (the
// resume line of an interrupted run, "list them with: assay runs", "start one with: assay run …") said bare
// `assay`, which is not on the PATH of a user who runs a project's own install. Each layer's hint now takes the
// command the CLI decided (cli/invocation.ts), carried by src/invocation.ts.

const tmp = useConfigDir('assay-hints-');
const npx = { ...process.env, npm_command: 'exec' };

/** Lines of `text` that suggest a bare `assay` command (not preceded by npx). */
const bare = (text: string) => text.split('\n').filter((l) => /(?:with|by|see|\(): assay |(?<!npx )assay (?:run|runs|show)\b/.test(l));

describe('hints say the command the user started assay with', () => {
  it('npx assay in the hints of the CLI, the store and the report (an empty store, an unknown run, an interrupted run)', async () => {
    const store = join(tmp.dir(), 'hints.db');
    const config = tmp.config(
      'refused.yaml',
      `name: refused\nsystem: { openai: { baseURL: "http://127.0.0.1:${await sparePort()}/v1", model: m } }\ninputs: [a, b, c, d, e, f]\nsamples: 2\nvalidators:\n  - { name: any, predicate: "o => o.length > 0", minSuccess: 0.5 }\n`,
    );
    const run = await runCliProcess(['run', config, '--store', store, '--no-progress'], { env: { ...npx, OPENAI_API_KEY: 'x' } });
    expect(run.code, run.err).toBe(3);
    expect(run.out + run.err).toMatch(/resume with: npx assay run --resume \S+ --store /);
    expect(bare(run.out + run.err)).toEqual([]);

    const empty = await runCliProcess(['runs', '--store', join(tmp.dir(), 'empty.db')], { env: npx });
    expect(empty.out + empty.err).toContain('npx assay run');
    expect(bare(empty.out + empty.err)).toEqual([]);

    const unknown = await runCliProcess(['show', 'nope', '--store', store], { env: npx });
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('list them with: npx assay runs');

    // A global install (no npx, the bin outside any node_modules of the working folder) says assay.
    const global = await runCliProcess(['show', 'nope', '--store', store], { env: { ...process.env, npm_command: '' }, cwd: tmp.dir() });
    expect(global.err).toContain('list them with: assay runs');
  }, 120_000);
});

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { openSqliteStore } from '../store/sqlite.js';
import { cacheOn } from './cache.js';
import { fixtureProject, SRC, waitFor } from './testing/project.js';

describe('cacheOn', () => {
  it('is on under vitest --watch and off in vitest run by default', () => {
    expect(cacheOn(undefined, { VITEST_MODE: 'WATCH' })).toBe(true);
    expect(cacheOn(undefined, { VITEST_MODE: 'RUN' })).toBe(false);
    expect(cacheOn(undefined, {})).toBe(false);
  });

  it('follows the cache option, and ASSAY_CACHE over both', () => {
    expect(cacheOn(false, { VITEST_MODE: 'WATCH' })).toBe(false);
    expect(cacheOn(true, { VITEST_MODE: 'RUN' })).toBe(true);
    expect(cacheOn(true, { ASSAY_CACHE: '0' })).toBe(false);
    expect(cacheOn(undefined, { ASSAY_CACHE: '0', VITEST_MODE: 'WATCH' })).toBe(false);
    expect(cacheOn(false, { ASSAY_CACHE: '1' })).toBe(true);
  });

  it('refuses an ASSAY_CACHE it cannot read, saying what it expected', () => {
    expect(() => cacheOn(undefined, { ASSAY_CACHE: 'maybe' })).toThrow(UsageError);
    expect(() => cacheOn(undefined, { ASSAY_CACHE: 'maybe' })).toThrow('ASSAY_CACHE: expected 1 (cache on) or 0 (cache off), found "maybe"');
  });
});

// The development loop: under `vitest --watch` the cache is on; with a key the user controls (cache: { key }),
// editing a validator re-checks the stored outputs without a call, the 20 samples of one input stay 20 different
// answers, and the replay is not stored as a second run. (Without a key a function's outputs are never replayed:
// cache-loop.test.ts.)
describe('vitest --watch', () => {
  const project = fixtureProject('assay-vitest-watch-');
  afterAll(() => project.remove());
  const calls = join(project.dir, 'calls.log');
  const rules = (max: number) => `export const rules = [{ name: 'brief', check: { type: 'words', max: ${max} }, minSuccess: 0.9 }];\n`;

  it('re-checks stored outputs after a validator edit with zero new calls, one cache entry per sample', async () => {
    project.write('rules.ts', rules(10));
    project.write(
      'bot.test.ts',
      `import { appendFileSync } from 'node:fs';
import { describeReliability } from '${SRC.vitest}';
import { rules } from './rules';

let n = 0;
describeReliability('counting bot', {
  inputs: ['hi'],
  samples: 20,
  cache: { key: 'counting bot v1' },
  // Counts its calls; every answer differs, so a collapsed cache would show.
  system: async () => { appendFileSync(${JSON.stringify(calls)}, 'call\\n'); n++; return \`answer \${n} of \${process.pid}\`; },
  validators: rules,
});
`,
    );
    const w = project.watch();
    try {
      await waitFor(w.output, (s) => s.includes('cache on: 20 call(s), 0 answer(s) from the cache'));
      expect(readFileSync(calls, 'utf8').split('\n').filter(Boolean).length).toBe(20);
      // The validator changes: the same outputs are checked again, none is asked for.
      project.write('rules.ts', rules(1));
      await waitFor(w.output, (s) => /cache on: 0 call\(s\), 20 answer\(s\) from the cache \(stored [^)]+ UTC\); a replay: not stored as a new run/.test(s));
      expect(w.output()).toMatch(/brief\s+0\.0%/);
    } finally {
      w.stop();
    }
    expect(readFileSync(calls, 'utf8').split('\n').filter(Boolean).length).toBe(20);

    // Stored where assay keeps runs by default (.assay/assay.db under the project): one run (the replay is not
    // stored), its 20 outputs all different.
    const db = join(project.dir, '.assay/assay.db');
    expect(existsSync(db)).toBe(true);
    await using store = openSqliteStore(db, { readonly: true });
    const runs = await store.runs.list();
    expect(runs.map((r) => r.name)).toEqual(['bot.test.ts › counting bot']);
    const first = (await store.samples.list(runs[0].id)).map((s) => s.output);
    expect(new Set(first).size).toBe(20);
  });

  it('is off with ASSAY_CACHE=0 even under watch', async () => {
    writeFileSync(calls, '');
    const w = project.watch({ ASSAY_CACHE: '0' });
    try {
      await waitFor(w.output, (s) => /generations 20 /.test(s));
      expect(w.output()).not.toContain('cache on:');
    } finally {
      w.stop();
    }
    expect(readFileSync(calls, 'utf8').split('\n').filter(Boolean).length).toBe(20);
  });
});

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { MemoryStore } from '../store/memory.js';
import { runReliability } from './engine.js';
import type { ReliabilityOptions } from './types.js';

// The options of a describeReliability block are checked like a config file: every key, the test-only ones
// (onInconclusive, cache, store, runTimeoutMs) included, with the field named and "did you mean" for a typo.

const base: ReliabilityOptions = {
  inputs: ['a'],
  samples: 3,
  system: async () => 'x',
  validators: [{ name: 'v', check: { type: 'words', max: 4 }, minSuccess: 0.1 }],
};
const file = join(process.cwd(), 'bot.test.ts');
const where = 'bot.test.ts › block (describeReliability)';
const run = (extra: Record<string, unknown>) =>
  runReliability({ name: 'block', file, options: { ...base, ...extra } as ReliabilityOptions, store: new MemoryStore() });

describe('describeReliability options', () => {
  it('refuses an unknown key, suggesting the one meant', async () => {
    const err = await run({ sampels: 4 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(
      new RegExp(`^${escape(where)}: sampels: unknown key \\(expected one of: inputs, samples, .*\\); did you mean "samples"\\?$`),
    );
    // The list is the block's options, test-only ones included; not a config file's keys it does not take.
    expect((err as Error).message).toContain('runTimeoutMs');
    expect((err as Error).message).not.toContain('aggregate');
  });

  it.each([
    [{ onInconclusive: 'skp' }, 'onInconclusive: expected one of fail, skip, found "skp"'],
    [{ runTimeoutMs: -5 }, 'runTimeoutMs: expected a whole number of milliseconds from 1 to 604800000 (7 days), found -5'],
    [{ runTimeoutMs: 1.5 }, 'runTimeoutMs: expected a whole number of milliseconds from 1 to 604800000 (7 days), found 1.5'],
    [{ cache: 'yes' }, 'cache: expected true, false or { key: "<a version of the system you control>" }, found "yes"'],
    [{ store: 42 }, 'store: expected the path of a SQLite file or a postgres:// URL, found 42'],
  ])('refuses a bad value of a test-only option: %j', async (extra, message) => {
    await expect(run(extra)).rejects.toThrow(`${where}: ${message}`);
  });

  it('reports every problem of the block at once, the config keys after the test-only ones', async () => {
    await expect(run({ cache: 1, onInconclusive: 'never' })).rejects.toThrow(
      `${where}: onInconclusive: expected one of fail, skip, found "never"\n${where}: cache: expected true, false or { key: "<a version of the system you control>" }, found 1`,
    );
    await expect(run({ samples: 0 })).rejects.toThrow(`${where}: samples: expected an integer from 1 to`);
  });

  it('refuses options that are not an object', async () => {
    await expect(runReliability({ name: 'block', file, options: null as never, store: new MemoryStore() })).rejects.toThrow(
      `${where}: expected options { inputs, system, validators, … }, found null`,
    );
  });

  it("names the block's store option when its folder does not exist (not --store)", async () => {
    await expect(run({ store: '/nonexistent/dir/x.db' })).rejects.toThrow(
      `${where}: store: the folder /nonexistent/dir of the SQLite store /nonexistent/dir/x.db does not exist`,
    );
  });

  it("estimand: 'population' decides the block's rules on the input population (issue 29)", async () => {
    // 10 inputs × 20 samples, two always failing: on the inputs run 80% [73.8%, 85.3%] passes minSuccess 0.7; on
    // the population [44.4%, 97.5%] cannot.
    const inputs = Array.from({ length: 10 }, (_, i) => `q${i}`);
    const block = {
      inputs,
      samples: 20,
      system: async (input: unknown) => (String(input) === 'q8' || String(input) === 'q9' ? 'no' : 'yes'),
      validators: [{ name: 'yes', check: { type: 'contains', value: 'yes' }, minSuccess: 0.7 }],
    };
    const onInputs = await run(block);
    expect(onInputs.rules.map((x) => x.verdict)).toEqual(['pass']);
    const onPopulation = await run({ ...block, estimand: 'population' });
    expect(onPopulation.rules.map((x) => x.verdict)).toEqual(['inconclusive']);
    expect(onPopulation.rules[0].message).toMatch(/\(95% CI, input population\)/);
    await expect(run({ ...block, estimand: 'everyone' })).rejects.toThrow(/estimand/);
  });

  it('still accepts good test-only options', async () => {
    const r = await run({ onInconclusive: 'skip', cache: false, runTimeoutMs: 60_000 });
    expect(r.rules.map((x) => x.test)).toEqual(['pass']);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

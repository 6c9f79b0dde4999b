import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory.js';
import { runReliability } from './engine.js';
import type { ReliabilityOptions, SystemFunction } from './types.js';

// Issue 30, item 7: any thrown value is reported, also one whose toString throws (it aborted the run).
const file = join(process.cwd(), 'bot.test.ts');
const hostile = () => ({
  toString() {
    throw new Error('toString refuses');
  },
});

describe('a system or a check that throws a value that cannot be printed', () => {
  it('is an error outcome with a message naming what was thrown, and the run completes', async () => {
    const store = new MemoryStore();
    const system: SystemFunction = async (input) => {
      if (input === 'a') throw hostile();
      if (input === 'b') throw Object.create(null);
      return 'fine';
    };
    const r = await runReliability({
      name: 'hostile',
      file,
      options: {
        inputs: ['a', 'b', 'c'],
        samples: 2,
        validators: [
          { name: 'short', check: { type: 'words', max: 4 }, minSuccess: 0.5 },
          {
            name: 'picky',
            predicate: (o: string) => {
              if (o === 'fine') throw hostile();
              return true;
            },
            minSuccess: 0.5,
          },
        ],
        system,
      } as ReliabilityOptions,
      store,
    });
    const samples = await store.samples.list(r.runId);
    expect(samples).toHaveLength(6);
    const errors = samples.map((s) => s.generationError ?? s.errors?.[1]);
    const count = (re: RegExp) => errors.filter((e) => re.test(e ?? '')).length;
    expect(count(/^generation failed after 1 attempt\(s\): threw an object whose toString throws \(toString refuses\)$/)).toBe(2);
    expect(count(/^generation failed after 1 attempt\(s\): threw an object without a prototype \(\{\}\)$/)).toBe(2);
    expect(count(/^validator picky: threw an object whose toString throws \(toString refuses\)$/)).toBe(2);
    expect(r.rules.map((x) => x.test)).toHaveLength(2);
  });
});

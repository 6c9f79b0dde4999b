import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useConfigDir } from '../cli/testing/config-dir.js';
import { loadExperiment } from '../config/load.js';
import { localLimiters } from '../providers/rate-limit.js';
import { validatorMeta } from '../run/runner.js';
import { MemoryStore } from '../store/memory.js';
import type { RunRecord } from '../store/types.js';
import { runContext } from './experiment.js';

// What a worker builds a run from: the stored copy of a YAML/JSON config, or the same file for a TS config.
const tmp = useConfigDir('assay-queue-experiment-');

async function storedRun(file: string): Promise<RunRecord> {
  const x = await loadExperiment(file);
  try {
    return await new MemoryStore().runs.create({
      name: x.name,
      config: x.serialisable,
      configPath: x.configPath,
      inputs: x.inputs,
      samples: x.samples,
      validators: x.validators.map(validatorMeta),
      systemId: 'simulated',
    });
  } finally {
    x.dispose();
  }
}

describe('a worker rebuilds a stored run', () => {
  it('from the stored document of a YAML config, with the file gone: same validators, same answers', async () => {
    const file = tmp.config(
      'gone.yaml',
      `name: gone
system: { simulated: { seed: 3, outputs: ["It's fine.", "Fine."] } }
inputs: { file: inputs.jsonl }
samples: 4
validators:
  - { name: few, predicate: "o => (o.match(/'/g) ?? []).length < 1", minSuccess: 0.5 }
  - { name: short, check: { type: words, max: 3 }, minSuccess: 0.5 }
`,
    );
    writeFileSync(join(tmp.dir(), 'inputs.jsonl'), '"one"\n"two"\n');
    const run = await storedRun(file);
    expect((run.config as { document: { inputs?: unknown } }).document.inputs).toBeUndefined(); // stored apart, once
    rmSync(file);
    rmSync(join(tmp.dir(), 'inputs.jsonl'));
    const ctx = await runContext(run, localLimiters());
    try {
      expect(ctx.validators.map((v) => v.name)).toEqual(['few', 'short']);
      expect(ctx.experiment.inputs).toEqual(['one', 'two']);
      expect(ctx.experiment.samples).toBe(4);
      expect(await ctx.validators[0].predicate("It's", 'one')).toBe(false);
      expect(await ctx.validators[0].predicate('It is', 'one')).toBe(true);
      expect((await ctx.system.generate('one', { signal: new AbortController().signal, sample: 0, inputIndex: 0 })).text).toMatch(/^(It's fine\.|Fine\.)$/);
    } finally {
      await ctx.dispose();
    }
  });

  it('a TypeScript config holds functions: its document is not stored, the worker loads the same path, or says why it cannot', async () => {
    const file = join(tmp.dir(), 'assay.config.ts');
    copyFileSync(resolve('examples/assay.config.ts'), file);
    writeFileSync(file, readFileSync(file, 'utf8').replace("'../src/config/index.js'", JSON.stringify(resolve('src/config/index.ts'))));
    const run = await storedRun(file);
    expect((run.config as { document?: unknown }).document).toBeUndefined();
    const ctx = await runContext(run, localLimiters());
    expect(ctx.validators.map((v) => v.name)).toEqual(['contraction_validator']);
    expect(await ctx.validators[0].predicate("It's", 'x')).toBe(true);
    await ctx.dispose();
    rmSync(file);
    await expect(runContext(run, localLimiters())).rejects.toThrow(
      /is a TypeScript or JavaScript module, whose functions cannot be stored with the run, so workers load that same file, and this machine has no file at that path/,
    );
  });

  it('a file that no longer matches the run is refused, naming the difference', async () => {
    const file = tmp.config(
      'changed.yaml',
      `system: { simulated: { outputs: ["x"] } }\ninputs: ["a"]\nvalidators:\n  - { name: v, predicate: "o => true", minSuccess: 0.5 }\n`,
    );
    const run = await storedRun(file);
    const edited = { ...run, config: { ...(run.config as object), document: undefined }, validators: [{ ...run.validators[0], name: 'renamed' }] };
    await expect(runContext(edited, localLimiters())).rejects.toThrow(
      /no longer matches the stored run \(validators: the run has \[renamed\], the file gives \[v\]/,
    );
  });
});

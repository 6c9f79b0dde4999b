import { describe, expect, it } from 'vitest';
import { experimentFromDocument } from '../config/load.js';
import { functionSystem } from '../providers/function-system.js';
import { assembleRun } from './assemble.js';

// The per-call limit given to the assembly (assay/vitest's default) is the one the runner uses and the run stores.
const doc = (extra: Record<string, unknown> = {}) => ({
  name: 'x',
  system: { function: 'f' },
  inputs: ['a'],
  validators: [{ name: 'v', check: { type: 'words', max: 4 }, minSuccess: 0.5 }],
  ...extra,
});
const origin = { file: 'x.yaml', configPath: 'x.yaml', baseDir: process.cwd() };
const system = functionSystem(async () => 'ok');

describe('assembleRun: timeoutMs', () => {
  it("replaces the experiment's per-call limit, in its stored config too", async () => {
    await using run = await assembleRun(await experimentFromDocument(doc(), origin), { system, timeoutMs: 1234 });
    expect(run.experiment.timeoutMs).toBe(1234);
    expect((run.experiment.serialisable as { timeoutMs: number }).timeoutMs).toBe(1234);
  });

  it("keeps the experiment's own without it", async () => {
    await using run = await assembleRun(await experimentFromDocument(doc({ timeoutMs: 777 }), origin), { system });
    expect(run.experiment.timeoutMs).toBe(777);
    expect((run.experiment.serialisable as { timeoutMs: number }).timeoutMs).toBe(777);
  });
});

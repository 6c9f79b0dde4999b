import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExperiment } from '../config/load.js';
import { toolCallsOf } from '../core/trajectory.js';
import { startMock } from '../mock/index.js';
import { mockResponder } from '../mock/rules.js';
import type { MockServer } from '../mock/types.js';
import { assembleRun } from './assemble.js';

/** An agent assembled as every run assembles it: its tool schemas compiled by the validators' own compiler. */

let server: MockServer;
const dir = mkdtempSync(join(tmpdir(), 'assay-agent-assemble-'));
beforeAll(async () => {
  // The model sends an argument built to make a backtracking engine run for minutes against the schema's pattern.
  server = await startMock('openai', {
    chat: mockResponder({ rules: [{ afterTool: '*', reply: '{{result}}' }, { call: { name: 'find', arguments: { q: `${'a'.repeat(40)}!` } } }] }),
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('assembleRun: an agent', () => {
  it("checks the model's arguments against the tool's schema on the linear-time engine: a pathological pattern answers at once", async () => {
    const file = join(dir, 'agent.yaml');
    writeFileSync(
      file,
      `system:
  openai:
    model: m
    baseURL: "${server.baseURL}"
    tools:
      - { name: find, parameters: { type: object, properties: { q: { type: string, pattern: "^(a+)+$" } } }, result: found }
inputs: [go]
validators:
  - { name: v, check: { type: no-tool-errors }, minSuccess: 0.5 }
`,
    );
    const x = await loadExperiment(file);
    await using run = await assembleRun(x);
    const g = await run.system.generate('go', { signal: new AbortController().signal, sample: 0, inputIndex: 0 });
    expect(toolCallsOf(g.trajectory)[0].error).toMatch(/^the arguments do not fit the tool's schema: q must match pattern/);
  }, 20_000);
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadExperiment } from '../config/load.js';
import { Outcome } from '../core/outcome.js';
import { agentResult } from '../core/testing/ai-sdk-result.js';
import type { Validator } from '../core/validator.js';
import { STORED_RESULT_MAX_CHARS } from '../core/trajectory-text.js';
import { functionSystem } from '../providers/function-system.js';
import { MemoryStore } from '../store/memory.js';
import { builtinValidator } from '../validators/builtin.js';
import { assembleRun } from './assemble.js';
import { runExperiment, type RunPlan } from './runner.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-trajectory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const plan = (validators: Validator[], inputs = ['refund A1', 'where is A2']): RunPlan => ({ name: 'agent', inputs, samples: 2, validators, serialisable: {} });

/** A support agent: it looks the order up, and refunds when asked to (the input says "refund"). */
const agent = functionSystem(async (input) => {
  const q = String(input);
  const id = q.split(' ').pop()!;
  return agentResult(
    [
      { name: 'lookup_order', input: { orderId: id }, output: { status: 'shipped' } },
      ...(q.startsWith('refund') ? [{ name: 'refund', input: { orderId: id }, output: 'ok' }] : []),
    ],
    `Order ${id} has shipped.`,
  );
});

describe("a sample can be a trajectory: the runner keeps an agent's steps", () => {
  it('stores the steps with the final answer, sums tokens over steps, and hands the steps to built-in checks and predicates', async () => {
    const store = new MemoryStore();
    const seen: unknown[] = [];
    const validators: Validator[] = [
      builtinValidator({ name: 'looks up', minSuccess: 0.9 }, { type: 'tool-called', name: 'lookup_order' }),
      builtinValidator({ name: 'no refund', minSuccess: 0.9 }, { type: 'tool-not-called', name: 'refund' }),
      builtinValidator({ name: 'says shipped', minSuccess: 0.9 }, { type: 'contains', value: 'shipped' }),
      {
        name: 'predicate',
        message: 'm',
        minSuccess: 0.9,
        predicate: (o, _i, t) => {
          seen.push(t?.steps.length);
          return t !== undefined && o.endsWith('shipped.');
        },
      },
    ];
    const res = await runExperiment({ experiment: plan(validators), system: agent, store });
    const t = res.tensor;
    // Input 0 asks for a refund (no refund FAILS there), input 1 does not.
    expect([0, 1].map((i) => [0, 1, 2, 3].map((k) => t.get(i, 0, k)))).toEqual([
      [Outcome.PASS, Outcome.FAIL, Outcome.PASS, Outcome.PASS],
      [Outcome.PASS, Outcome.PASS, Outcome.PASS, Outcome.PASS],
    ]);
    expect(seen.sort()).toEqual([2, 2, 3, 3]);
    const s = (await store.samples.get(res.run.id, 0, 1))!;
    expect(s.output).toBe('Order A1 has shipped.');
    expect(s.trajectory!.steps.flatMap((x) => x.toolCalls.map((c) => c.name))).toEqual(['lookup_order', 'refund']);
    // Three steps at 10 in, 5 out each.
    expect(s.usage).toEqual({ promptTokens: 30, completionTokens: 15 });
  });

  it('a trajectory check of a text answer is an error outcome saying why, never a FAIL', async () => {
    const store = new MemoryStore();
    const text = functionSystem(async () => 'just text');
    const v = builtinValidator({ name: 'looks up', minSuccess: 0.9, onError: 'fail' } as never, { type: 'tool-called', name: 'lookup_order' });
    const res = await runExperiment({ experiment: plan([{ ...v, onError: 'fail' }], ['q']), system: text, store });
    expect(res.tensor.get(0, 0, 0)).toBe(Outcome.ERROR);
    const s = (await store.samples.get(res.run.id, 0, 0))!;
    expect(s.errors![0]).toMatch(/tool-called needs the agent's steps, and this output has none/);
  });

  it('a tool result of megabytes is stored cut at the limit and marked; the checks read all of it', async () => {
    const store = new MemoryStore();
    const huge = 'x'.repeat(STORED_RESULT_MAX_CHARS + 10);
    let checked = 0;
    const system = functionSystem(async () => agentResult([{ name: 'fetch', input: {}, output: huge }], 'done'));
    const v: Validator = {
      name: 'reads all',
      message: 'm',
      minSuccess: 0.5,
      predicate: (_o, _i, t) => (checked = String(t!.steps[0].toolCalls[0].result).length) > 0,
    };
    const res = await runExperiment({ experiment: { ...plan([v], ['q']), samples: 1 }, system, store });
    expect(checked).toBe(huge.length);
    const call = (await store.samples.get(res.run.id, 0, 0))!.trajectory!.steps[0].toolCalls[0];
    expect(call).toMatchObject({ truncated: true });
    expect((call.result as string).length).toBe(STORED_RESULT_MAX_CHARS);
  });

  it("a TypeScript config's system may be a function returning the AI SDK's result", async () => {
    const file = join(dir, 'agent.config.ts');
    writeFileSync(
      file,
      `export default {
  name: 'ts agent',
  system: async (input: string) => ({ output: 'done ' + input, steps: [{ toolCalls: [{ name: 'search', arguments: { q: input }, result: ['hit'] }] }] }),
  inputs: ['a', 'b'],
  validators: [
    { name: 'searched', minSuccess: 0.5, check: { type: 'tool-called', name: 'search', arguments: { q: 'a' } } },
    { name: 'sees steps', minSuccess: 0.5, predicate: (o: string, input: string, t?: { steps: unknown[] }) => t?.steps.length === 1 },
  ],
};
`,
    );
    const x = await loadExperiment(file);
    await using assembled = await assembleRun(x);
    expect(assembled.system.id).toBe('function:system');
    const store = new MemoryStore();
    const res = await runExperiment({ ...assembled, store });
    expect([0, 1].map((i) => [res.tensor.get(i, 0, 0), res.tensor.get(i, 0, 1)])).toEqual([
      [Outcome.PASS, Outcome.PASS],
      [Outcome.FAIL, Outcome.PASS],
    ]);
    expect((await store.samples.get(res.run.id, 1, 0))!.trajectory!.steps[0].toolCalls[0].arguments).toEqual({ q: 'b' });
  });
});

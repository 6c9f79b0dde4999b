import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadExperiment } from '../config/load.js';
import type { ToolCallRecord, Trajectory } from '../core/trajectory.js';
import { createSandbox } from '../sandbox/index.js';
import { builtinValidator, checkSchema, type CheckSpec } from './builtin.js';
import { evaluateValidator } from './evaluate.js';
import { sandboxedValidator } from './sandboxed.js';
import { partialMatch } from './trajectory-checks.js';

const call = (name: string, args: unknown = {}, extra: Partial<ToolCallRecord> = {}): ToolCallRecord => ({ name, arguments: args, result: 'ok', ...extra });
const trajectory = (...calls: ToolCallRecord[][]): Trajectory => ({ steps: calls.map((toolCalls) => ({ toolCalls })), ended: 'final' });

/** The check's outcome on a trajectory (or a text answer, when `t` is undefined), as a run records it. */
async function outcome(spec: unknown, t: Trajectory | undefined, onError?: 'fail') {
  const v = builtinValidator({ name: 'v', minSuccess: 0.9 }, checkSchema.parse(spec) as CheckSpec);
  return evaluateValidator({ ...v, ...(onError ? { onError } : {}) }, 'final answer', 'input', t ? { trajectory: t } : {});
}
const pass = { outcome: 'pass' };
const fail = { outcome: 'fail' };
const source = (spec: unknown) => builtinValidator({ name: 'v', minSuccess: 0.9 }, checkSchema.parse(spec) as CheckSpec).source;

const lookupThenRefund = trajectory(
  [call('lookup_order', { orderId: 'A1', opts: { deep: true, n: [1, 2] } })],
  [call('refund', { orderId: 'A1', amount: 20 })],
);

describe('trajectory checks', () => {
  it('tool-called: by name, arguments by partial match or JSON Schema, how many times', async () => {
    expect(await outcome({ type: 'tool-called', name: 'refund' }, lookupThenRefund)).toMatchObject(pass);
    expect(await outcome({ type: 'tool-called', name: 'cancel' }, lookupThenRefund)).toMatchObject(fail);
    expect(await outcome({ type: 'tool-called', name: 'lookup_order', arguments: { opts: { n: [1, 2] } } }, lookupThenRefund)).toMatchObject(pass);
    expect(await outcome({ type: 'tool-called', name: 'lookup_order', arguments: { opts: { n: [1] } } }, lookupThenRefund)).toMatchObject(fail);
    const schema = { type: 'object', properties: { amount: { type: 'number', maximum: 50 } }, required: ['amount'] };
    expect(await outcome({ type: 'tool-called', name: 'refund', argumentsSchema: schema }, lookupThenRefund)).toMatchObject(pass);
    expect(
      await outcome({ type: 'tool-called', name: 'refund', argumentsSchema: { ...schema, properties: { amount: { maximum: 10 } } } }, lookupThenRefund),
    ).toMatchObject(fail);
    const twice = trajectory([call('search'), call('search')], [call('search', { q: 'x' })]);
    expect(await outcome({ type: 'tool-called', name: 'search', times: 3 }, twice)).toMatchObject(pass);
    expect(await outcome({ type: 'tool-called', name: 'search', times: 2 }, twice)).toMatchObject(fail);
    expect(await outcome({ type: 'tool-called', name: 'search', max: 2 }, twice)).toMatchObject(fail);
    expect(await outcome({ type: 'tool-called', name: 'search', min: 1, max: 1, arguments: { q: 'x' } }, twice)).toMatchObject(pass);
    expect(await outcome({ type: 'tool-called', name: 'cancel', max: 0 }, twice)).toMatchObject(pass);
    expect(source({ type: 'tool-called', name: 'refund', arguments: { orderId: 'A1' }, max: 1 })).toBe(
      'calls the tool "refund" with arguments including {"orderId":"A1"} at most 1 time',
    );
  });

  it('tool-not-called: one tool or any of a list', async () => {
    expect(await outcome({ type: 'tool-not-called', name: 'refund' }, lookupThenRefund)).toMatchObject(fail);
    expect(await outcome({ type: 'tool-not-called', name: ['cancel', 'delete'] }, lookupThenRefund)).toMatchObject(pass);
    expect(source({ type: 'tool-not-called', name: ['cancel', 'delete'] })).toBe('never calls any of the tools "cancel", "delete"');
  });

  it('tool-order: exact, in order (others between), any order (each as often as listed)', async () => {
    const t = trajectory([call('a'), call('x')], [call('b'), call('c')]);
    expect(await outcome({ type: 'tool-order', sequence: ['a', 'b', 'c'] }, t)).toMatchObject(pass);
    expect(await outcome({ type: 'tool-order', sequence: ['b', 'a'] }, t)).toMatchObject(fail);
    expect(await outcome({ type: 'tool-order', sequence: ['a', 'b', 'c'], mode: 'exact' }, t)).toMatchObject(fail);
    expect(await outcome({ type: 'tool-order', sequence: ['a', 'x', 'b', 'c'], mode: 'exact' }, t)).toMatchObject(pass);
    expect(await outcome({ type: 'tool-order', sequence: ['c', 'a'], mode: 'any-order' }, t)).toMatchObject(pass);
    expect(await outcome({ type: 'tool-order', sequence: ['a', 'a'], mode: 'any-order' }, t)).toMatchObject(fail);
  });

  it('max-steps: the count of steps, and a run the step limit cut is a failure whatever its count', async () => {
    const t = trajectory([call('a')], [call('b')], []);
    expect(await outcome({ type: 'max-steps', max: 3 }, t)).toMatchObject(pass);
    expect(await outcome({ type: 'max-steps', max: 2 }, t)).toMatchObject(fail);
    expect(await outcome({ type: 'max-steps', max: 10 }, { ...t, ended: 'max-steps' })).toMatchObject(fail);
    // A conversation its turn limit ended before its stop condition did not finish either.
    expect(await outcome({ type: 'max-steps', max: 10 }, { ...t, ended: 'max-turns', turns: 2 })).toMatchObject(fail);
    expect(await outcome({ type: 'max-steps', max: 10 }, { ...t, ended: 'final', turns: 2 })).toMatchObject(pass);
  });

  it('tool-args-valid: an undeclared tool or arguments that are not JSON or break the schema fail; declarations from the trajectory or the check', async () => {
    const tools = [
      { name: 'refund', parameters: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] } },
      { name: 'lookup_order' },
    ];
    expect(await outcome({ type: 'tool-args-valid' }, { ...lookupThenRefund, tools })).toMatchObject(pass);
    const bad = trajectory([call('refund', { amount: 'twenty' })]);
    expect(await outcome({ type: 'tool-args-valid' }, { ...bad, tools })).toMatchObject(fail);
    expect(await outcome({ type: 'tool-args-valid' }, { ...trajectory([call('drop_tables')]), tools })).toMatchObject(fail);
    const notJson = trajectory([call('refund', undefined, { argumentsText: '{amount: 2', error: 'arguments are not JSON' })]);
    expect(await outcome({ type: 'tool-args-valid' }, { ...notJson, tools })).toMatchObject(fail);
    // The check's own schemas, without declarations in the trajectory.
    expect(await outcome({ type: 'tool-args-valid', tools: { refund: { type: 'object', required: ['amount'] } } }, bad)).toMatchObject(pass);
    // Nothing declared anywhere: nothing to check against, an error that says so.
    expect(await outcome({ type: 'tool-args-valid' }, bad)).toMatchObject({
      outcome: 'error',
      error: expect.stringMatching(/no schema to check arguments against/),
    });
  });

  it('no-tool-errors: any call that ended in an error (a tool that threw, timed out, an undeclared tool) fails', async () => {
    expect(await outcome({ type: 'no-tool-errors' }, lookupThenRefund)).toMatchObject(pass);
    const broken = trajectory([call('lookup_order')], [call('refund', {}, { result: undefined, error: 'timed out after 5000 ms' })]);
    expect(await outcome({ type: 'no-tool-errors' }, broken)).toMatchObject(fail);
  });

  it('on a text answer (no steps) each is an error that says why, never a FAIL, even with onError: fail', async () => {
    for (const spec of [
      { type: 'tool-called', name: 'a' },
      { type: 'tool-not-called', name: 'a' },
      { type: 'tool-order', sequence: ['a'] },
      { type: 'max-steps', max: 1 },
      { type: 'tool-args-valid' },
      { type: 'no-tool-errors' },
    ]) {
      const r = await outcome(spec, undefined, 'fail');
      expect(r.outcome).toBe('error');
      expect(r.error).toMatch(new RegExp(`${spec.type} needs the agent's steps, and this output has none`));
    }
    // A text check reads the final answer, with or without steps.
    expect(await outcome({ type: 'contains', value: 'final' }, lookupThenRefund)).toMatchObject(pass);
  });

  it('partialMatch: objects key by key, arrays whole, values equal', () => {
    expect(partialMatch({ a: 1, b: { c: 2, d: 3 } }, { b: { c: 2 } })).toBe(true);
    expect(partialMatch({ a: [1, 2] }, { a: [1] })).toBe(false);
    expect(partialMatch({ a: [{ x: 1, y: 2 }] }, { a: [{ x: 1 }] })).toBe(true);
    expect(partialMatch({ a: '1' }, { a: 1 })).toBe(false);
    expect(partialMatch(undefined, {})).toBe(false);
    expect(partialMatch({ a: null }, { a: null })).toBe(true);
  });
});

describe('predicates receive the trajectory', () => {
  const sandbox = createSandbox();
  afterAll(() => sandbox.dispose());

  it('a sandboxed predicate string gets it as its third argument; (output, input) predicates work as they did', async () => {
    const v = await sandboxedValidator(
      { name: 'p', minSuccess: 0.9 },
      '(o, input, t) => t.steps.length === 2 && t.steps[1].toolCalls[0].name === "refund"',
      sandbox,
    );
    expect(await evaluateValidator(v, 'x', 'q', { trajectory: lookupThenRefund })).toMatchObject(pass);
    const two = await sandboxedValidator({ name: 'p', minSuccess: 0.9 }, '(o, input) => o === "x" && input === "q"', sandbox);
    expect(await evaluateValidator(two, 'x', 'q', { trajectory: lookupThenRefund })).toMatchObject(pass);
    expect(await evaluateValidator(two, 'x', 'q')).toMatchObject(pass);
    // A text answer: the third argument is undefined, as a predicate that checks for it can see.
    const careful = await sandboxedValidator({ name: 'p', minSuccess: 0.9 }, '(o, i, t) => t === undefined', sandbox);
    expect(await evaluateValidator(careful, 'x', 'q')).toMatchObject(pass);
  });
});

describe('config errors of trajectory checks name the field (exit 2 at load, never a per-cell failure)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-tcheck-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const loadError = async (check: string) => {
    const file = join(dir, 'c.yaml');
    writeFileSync(file, `system: { simulated: { rates: [0.9] } }\ninputs: [a]\nvalidators:\n  - name: v\n    minSuccess: 0.5\n    check: ${check}\n`);
    return loadExperiment(file).then(
      () => 'loaded',
      (e: Error) => e.message.replace(`${file}: `, ''),
    );
  };

  it('a missing name, both times and min, an unknown mode, a misspelt key, a schema that does not compile', async () => {
    expect(await loadError('{ type: tool-called }')).toBe('validators[0].check.name: expected a tool name, found nothing (line 6)');
    expect(await loadError('{ type: tool-called, name: x, times: 2, min: 1 }')).toMatch(/^validators\[0\]\.check: expected times, or min and max, not both/);
    expect(await loadError('{ type: tool-order, sequence: [a], mode: sideways }')).toBe(
      'validators[0].check.mode: expected one of exact, in-order, any-order, found "sideways" (line 6)',
    );
    expect(await loadError('{ type: tool-not-called, nam: x }')).toMatch(/check\.nam: unknown key \(expected one of: type, name\); did you mean "name"\?/);
    expect(await loadError('{ type: tool-called, name: x, argumentsSchema: { type: 12 } }')).toMatch(
      /^validators\[0\]\.check\.argumentsSchema: expected a valid JSON Schema, found one that does not compile/,
    );
    expect(await loadError('{ type: max-steps, max: 0 }')).toBe('validators[0].check.max: expected a whole number of steps ≥ 1, found 0 (line 6)');
  });
});

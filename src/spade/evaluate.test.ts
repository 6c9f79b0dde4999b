import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadExperiment } from '../config/index.js';
import { Outcome } from '../core/outcome.js';
import { createSandbox } from '../sandbox/index.js';
import type { Sandbox } from '../sandbox/types.js';
import { startMockOpenAI, type ChatRequestBody, type MockOpenAI } from '../mock/openai.js';
import { evaluateCandidates } from './evaluate.js';
import { assertionReports, selectionToConfig } from './export.js';
import { matrixToJson, readMatrix } from './io.js';
import { select } from './select.js';
import { judgeReply } from '../mock/judge.js';
import type { CandidateAssertion, LabelledExample } from './types.js';
import { PROMPTLY_MS } from '../testing/time.js';

const examples: LabelledExample[] = [
  { id: 'g1', output: '- a\n- b', label: 'good' },
  { id: 'g2', output: '- only one point', label: 'good' },
  { id: 'b1', output: '- a\n- b\n- c\n- d', label: 'bad' },
  { id: 'b2', output: 'PRICE: $10', label: 'bad' },
];

let sandbox: Sandbox;
let mock: MockOpenAI | undefined;
beforeAll(() => {
  sandbox = createSandbox();
});
afterAll(() => sandbox.dispose());
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const cell = (m: { assertions: string[]; cells: Uint8Array }, e: number, id: string) => m.cells[e * m.assertions.length + m.assertions.indexOf(id)];

describe('evaluateCandidates', () => {
  it('builds the assertion × example matrix for check, js and llm forms', async () => {
    mock = await startMockOpenAI({
      chat: (b: ChatRequestBody) => {
        const text = JSON.stringify(b.messages);
        return { content: judgeReply(b, text.includes('PRICE') ? 'FAIL' : 'PASS', ['scripted']) };
      },
    });
    const candidates: CandidateAssertion[] = [
      { id: 'max3', description: 'at most 3 bullets', form: { kind: 'check', check: { type: 'max-count', pattern: '^- ', flags: 'm', max: 3 } } },
      { id: 'has_bullet', description: 'starts with a bullet', form: { kind: 'js', source: "o => o.startsWith('- ')" } },
      { id: 'no_prices', description: 'no prices', form: { kind: 'llm', question: 'Does the output avoid mentioning prices?' } },
    ];
    const m = await evaluateCandidates(candidates, examples, { sandbox, judge: { model: 'judge', baseURL: mock.baseURL } });
    expect(m.assertions).toEqual(['max3', 'has_bullet', 'no_prices']);
    expect([0, 1, 2, 3].map((e) => cell(m, e, 'max3'))).toEqual([Outcome.PASS, Outcome.PASS, Outcome.FAIL, Outcome.PASS]);
    expect([0, 1, 2, 3].map((e) => cell(m, e, 'has_bullet'))).toEqual([Outcome.PASS, Outcome.PASS, Outcome.PASS, Outcome.FAIL]);
    expect([0, 1, 2, 3].map((e) => cell(m, e, 'no_prices'))).toEqual([Outcome.PASS, Outcome.PASS, Outcome.PASS, Outcome.FAIL]);
    expect(m.errors).toEqual({});
  });

  it('a judge that fails (HTTP 500) gives ERROR cells, never FAIL', async () => {
    mock = await startMockOpenAI({ chat: () => ({ status: 500 }) });
    const c: CandidateAssertion[] = [{ id: 'q', description: 'q', form: { kind: 'llm', question: 'Is it good?' } }];
    const m = await evaluateCandidates(c, examples.slice(0, 2), { judge: { model: 'j', baseURL: mock.baseURL, timeoutMs: 2000 } });
    expect([...m.cells]).toEqual([Outcome.ERROR, Outcome.ERROR]);
    expect(Object.values(m.errors ?? {})[0]).toMatch(/500/);
  });

  it('without a judge or sandbox, those forms are ERROR with a reason', async () => {
    const c: CandidateAssertion[] = [
      { id: 'q', description: 'q', form: { kind: 'llm', question: 'Is it good?' } },
      { id: 'j', description: 'j', form: { kind: 'js', source: 'o => true' } },
    ];
    const m = await evaluateCandidates(c, examples.slice(0, 1));
    expect([...m.cells]).toEqual([Outcome.ERROR, Outcome.ERROR]);
    expect(Object.values(m.errors ?? {})).toEqual(['no judge configured for llm assertions', 'no sandbox to run JavaScript assertions']);
  });

  it('contains sandbox escape attempts: each is an ERROR cell and the host and sandbox stay healthy', async () => {
    const attempts: Record<string, string> = {
      require: "o => require('fs').existsSync('/')",
      process: 'o => process.exit(1) || true',
      import: "async o => !!(await import('fs'))",
      constructorChain: "o => (function(){}).constructor('return process')().exit(1) || true",
      globalThisProcess: 'o => typeof globalThis.process.env === "object"',
      infiniteLoop: 'o => { while (true) {} }',
      hugeArrayBuffer: 'o => new ArrayBuffer(1e9).byteLength > 0',
      hugeString: "o => 'x'.repeat(2 ** 28).length > 0",
      hugeArray: 'o => new Array(1e8).fill(0).length > 0',
      growingHeap: 'o => { const a = []; for (;;) a.push({ o, n: a.length }); }',
      deepRecursion: 'o => { const f = (n) => f(n + 1) + 1; return f(0) > 0; }',
      nonBoolean: 'o => o.length',
      healthy: 'o => o.length > 0',
    };
    const c: CandidateAssertion[] = Object.entries(attempts).map(([id, source]) => ({ id, description: id, form: { kind: 'js', source } }));
    const t0 = Date.now();
    const m = await evaluateCandidates(c, examples.slice(0, 1), { sandbox, sandboxLimits: { timeoutMs: 300, memoryBytes: 16 * 1024 * 1024 } });
    expect(Date.now() - t0).toBeLessThan(PROMPTLY_MS);
    for (const id of Object.keys(attempts).filter((k) => k !== 'healthy')) expect(cell(m, 0, id), id).toBe(Outcome.ERROR);
    expect(cell(m, 0, 'healthy')).toBe(Outcome.PASS);
    expect(typeof process.exit).toBe('function');
    // the matrix file names the example and assertion of each error, and reads back to the same matrix
    const file = join(tmpdir(), `spade-matrix-${process.pid}.json`);
    writeFileSync(file, JSON.stringify(matrixToJson(m)));
    const back = (await readMatrix(file)).matrix;
    rmSync(file);
    expect((matrixToJson(m).errors as { example: string; assertion: string }[]).find((x) => x.assertion === 'infiniteLoop')).toMatchObject({ example: 'g1' });
    expect([...back.cells]).toEqual([...m.cells]);
    expect(back.errors).toEqual(m.errors);
    // still usable afterwards
    const again = await evaluateCandidates([c[c.length - 1]], examples, { sandbox });
    expect([...again.cells]).toEqual([Outcome.PASS, Outcome.PASS, Outcome.PASS, Outcome.PASS]);
  });
});

describe('export', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spade-export-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a config with FFR/coverage and Wilson intervals that the config loader accepts and runs', async () => {
    const candidates: CandidateAssertion[] = [
      { id: 'max3', description: 'At most 3 bullets', form: { kind: 'check', check: { type: 'max-count', pattern: '^- ', flags: 'm', max: 3 } } },
      { id: 'no_price', description: 'No prices', form: { kind: 'js', source: "o => !o.includes('PRICE')" } },
      { id: 'tone', description: 'Friendly', form: { kind: 'llm', question: 'Is the tone friendly?' } },
    ];
    const m = await evaluateCandidates(candidates.slice(0, 2), examples, { sandbox });
    const sel = await select(m, { method: 'cov', alpha: 1, tau: 0 });
    expect(sel.selected).toEqual(['max3', 'no_price']);
    const reports = assertionReports(candidates.slice(0, 2), m);
    expect(reports[0]).toMatchObject({ id: 'max3', ffr: { value: 0, failed: 0, n: 2 }, coverage: { value: 0.5, caught: 1, n: 2 } });
    // Wilson 95% for 1/2: [0.095, 0.905]
    expect(reports[0].coverage.ci95).toEqual([0.095, 0.905]);
    const { yaml, replay } = selectionToConfig(sel, candidates, m, { examples });
    expect(yaml).toMatch(/# FFR 0 \(0\/2 good flagged; 95% Wilson \[0, 0\.658\]\), coverage 0\.5/);
    const parsed = parseYaml(yaml);
    expect(parsed.validators.map((v: { name: string }) => v.name)).toEqual(['max3', 'no_price']);
    // The self-check: each good output once, by input index, with the input it was evaluated with ('' for none).
    expect(parsed.system).toEqual({ replay: { file: 'spade-replay.jsonl' } });
    expect(parsed.inputs).toEqual(['', '']);
    expect(parsed.samples).toBe(1);
    expect(replay!.file).toBe('spade-replay.jsonl');
    expect(
      replay!.jsonl
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { i: 0, j: 0, id: 'g1', input: '', output: '- a\n- b' },
      { i: 1, j: 0, id: 'g2', input: '', output: '- only one point' },
    ]);
    const file = join(dir, 'selected.yaml');
    writeFileSync(file, yaml);
    writeFileSync(join(dir, replay!.file), replay!.jsonl);
    const exp = await loadExperiment(file, {}, { sandbox });
    try {
      expect(exp.validators.map((v) => v.name)).toEqual(['max3', 'no_price']);
      expect(await exp.validators[1].predicate('PRICE: 1', '')).toBe(false);
      expect(await exp.validators[0].predicate('- a', '')).toBe(true);
    } finally {
      exp.dispose();
    }
  });

  it('llm assertions become verifiers with the given judge; without one, export refuses', async () => {
    const cands: CandidateAssertion[] = [{ id: 'tone', description: 'Friendly', form: { kind: 'llm', question: 'Is the tone friendly?' } }];
    const m = { assertions: ['tone'], examples: [{ id: 'g', label: 'good' as const }], cells: Uint8Array.of(Outcome.PASS) };
    const sel = await select(m, { method: 'base', alpha: 0, tau: 0 });
    expect(() => selectionToConfig(sel, cands, m, { examples: examples.slice(0, 1) })).toThrow(/judge model/);
    const { config } = selectionToConfig(sel, cands, m, { examples: examples.slice(0, 1), judge: { model: 'gpt-4o-mini' } });
    expect(config.verifiers).toEqual([
      {
        name: 'tone',
        message: 'Friendly',
        minSuccess: 0.9,
        instructions: 'Answer this yes/no question about the output; "yes" means PASS: Is the tone friendly?',
        judge: { openai: { model: 'gpt-4o-mini' } },
      },
    ]);
  });
});

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadExperiment } from '../config/index.js';
import { startMockOpenAI, type ChatRequestBody, type MockOpenAI } from '../testing/mock-openai.js';
import { main } from './main.js';

const dir = mkdtempSync(join(tmpdir(), 'spade-cli-'));
const BENCH = join(process.cwd(), '..', 'shared', 'benchmarks', 'spade');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let stdout = '';
let stderr = '';
const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL, model: process.env.ASSAY_SPADE_MODEL };
beforeEach(() => {
  stdout = '';
  stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
  delete process.env.OPENAI_API_KEY;
  delete process.env.OPENAI_BASE_URL;
  delete process.env.ASSAY_SPADE_MODEL;
  process.exitCode = undefined;
});
afterEach(() => {
  vi.restoreAllMocks();
  for (const [k, v] of [['OPENAI_API_KEY', saved.key], ['OPENAI_BASE_URL', saved.url], ['ASSAY_SPADE_MODEL', saved.model]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  process.exitCode = undefined;
});

const file = (name: string, content: unknown) => {
  const f = join(dir, name);
  writeFileSync(f, typeof content === 'string' ? content : JSON.stringify(content));
  return f;
};

describe('assay spade (CLI)', () => {
  it('deltas prints + and − lines per consecutive pair', async () => {
    const f = file('v.json', ['Summarise. Be polite.', 'Summarise. Be polite.', 'Summarise. Be concise.']);
    expect(await main(['spade', 'deltas', f])).toBe(0);
    expect(stdout).toContain('(no change)');
    expect(stdout).toContain('- Be polite.');
    expect(stdout).toContain('+ Be concise.');
  });

  it('taxonomy without an LLM gives a clear usage message (exit 2)', async () => {
    const f = file('v2.json', ['A.', 'A. B.']);
    expect(await main(['spade', 'taxonomy', f])).toBe(2);
    expect(stderr).toMatch(/no LLM configured/);
  });

  it('bad --alpha and --method are usage errors naming the flag', async () => {
    expect(await main(['spade', 'select', '--matrix', 'x.json', '--alpha', '1.5'])).toBe(2);
    expect(stderr).toMatch(/--alpha: expected a number between 0 and 1, found "1.5"/);
    expect(await main(['spade', 'select', '--method', 'greedy'])).toBe(2);
    expect(stderr).toMatch(/--method/);
  });

  it('select on a benchmark pipeline file: base reproduces the paper, sub runs, infeasible exits 1', async () => {
    const f = join(BENCH, 'statsbot.json');
    if (!existsSync(f)) throw new Error(`benchmark file missing: ${f}`);
    expect(await main(['spade', 'select', '--matrix', f, '--method', 'base', '--alpha', '0.6', '--tau', '0.25'])).toBe(0);
    expect(stdout).toMatch(/base: 7 of 15 selected; FFR 0\.000 ✓/);
    stdout = '';
    const json = join(dir, 'sub.json');
    expect(await main(['spade', 'select', '--matrix', f, '--method', 'sub', '--objective', 'code', '--prune', '--json', json])).toBe(0);
    expect(stdout).toMatch(/subsumption pairs: 8 → /);
    expect(JSON.parse(readFileSync(json, 'utf8')).status).toBe('ok');
    // a catches the bad example only together with a good one: α = 1 and τ = 0 cannot both hold
    const small = file('m.json', { assertions: ['a', 'b'], examples: [{ id: 'g', label: 'good' }, { id: 'x', label: 'bad' }, { id: 'y', label: 'bad' }], results: { a: [false, false, true], b: [true, true, false] } });
    expect(await main(['spade', 'select', '--matrix', small, '--method', 'cov', '--alpha', '1', '--tau', '0'])).toBe(1);
    expect(stdout).toMatch(/infeasible: coverage ≥ 1 and FFR ≤ 0 cannot both be met: with FFR ≤ 0 the best coverage is 0\.500; reaching coverage 1 needs FFR ≥ 1\.000/);
    stdout = '';
    expect(await main(['spade', 'select', '--matrix', f, '--method', 'roots'])).toBe(0);
    expect(stdout).toMatch(/roots of the subsumption DAG: \d+ of 15/);
  });

  describe('with a mock LLM', () => {
    let mock: MockOpenAI;
    afterEach(async () => mock?.close());

    it('taxonomy --eval reports agreement with the human tags', async () => {
      mock = await startMockOpenAI({ chat: () => ({ content: JSON.stringify({ sentences: [{ index: 0, categories: ['Qualitative Criteria'] }] }) }) });
      process.env.OPENAI_BASE_URL = mock.baseURL;
      const f = join(BENCH, 'taxonomy_prompt_deltas.json');
      expect(await main(['spade', 'taxonomy', '--eval', f, '--limit', '3', '--model', 'm'])).toBe(0);
      expect(stdout).toMatch(/taxonomy agreement with human tags \(m\): 3 deltas, 0 errors/);
      expect(stdout).toMatch(/micro precision/);
    });

    it('synthesize → evaluate → select → export runs end to end, and assay can load the export', async () => {
      mock = await startMockOpenAI({
        chat: (b: ChatRequestBody) => {
          const fmt = JSON.stringify(b.response_format ?? '');
          if (fmt.includes('"criteria"')) return { content: JSON.stringify({ criteria: [{ criterion: 'at most 3 bullets', category: 'Quantity Instruction', vague: false }, { criterion: 'no prices', category: 'Exclusion', vague: false }] }) };
          const u = JSON.stringify(b.messages);
          if (u.includes('no prices')) return { content: JSON.stringify({ assertions: [{ name: 'no_prices', description: 'No prices', kind: 'js', check: null, question: null, source: "o => !/\\$\\d/.test(o)" }] }) };
          return { content: JSON.stringify({ assertions: [{ name: 'max3', description: 'At most 3 bullets', kind: 'check', check: JSON.stringify({ type: 'max-count', pattern: '^- ', flags: 'm', max: 3 }), question: null, source: null }] }) };
        },
      });
      process.env.OPENAI_BASE_URL = mock.baseURL;
      const versions = file('h.yaml', 'versions:\n  - Summarise the call.\n  - Summarise the call. Use at most 3 bullets. Never mention prices.\n');
      const cands = join(dir, 'cands.json');
      expect(await main(['spade', 'synthesize', versions, '--out', cands, '--model', 'm'])).toBe(0);
      expect(stdout).toMatch(/2 criteria, 2 candidates, 0 rejected/);
      const examples = file('ex.jsonl', ['{"output":"- a\\n- b","label":"good"}', '{"output":"- a","label":1}', '{"output":"- a\\n- b\\n- c\\n- d","label":"bad"}', '{"output":"costs $5","label":0}'].join('\n'));
      const matrix = join(dir, 'matrix.json');
      expect(await main(['spade', 'evaluate', '--candidates', cands, '--examples', examples, '--out', matrix])).toBe(0);
      expect(JSON.parse(readFileSync(matrix, 'utf8')).results).toEqual({ max3: [true, true, false, true], no_prices: [true, true, true, false] });
      const exported = join(dir, 'selected.yaml');
      expect(await main(['spade', 'select', '--matrix', matrix, '--method', 'cov', '--alpha', '1', '--tau', '0', '--candidates', cands, '--examples', examples, '--export', exported])).toBe(0);
      expect(stdout).toMatch(/cov: 2 of 2 selected/);
      const yaml = readFileSync(exported, 'utf8');
      expect(yaml).toMatch(/# FFR 0 \(0\/2 good flagged/);
      const exp = await loadExperiment(exported);
      try {
        expect(exp.validators.map((v) => v.name)).toEqual(['max3', 'no_prices']);
      } finally {
        exp.dispose();
      }
    });
  });
});

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startMockAnthropic } from '../mock/anthropic.js';
import { startMockOpenAI, type ChatRequestBody, type MockOpenAI } from '../mock/openai.js';
import type { MockChatView } from '../mock/types.js';
import { judgeReply } from '../mock/judge.js';
import { skipWithoutData, spadeFile } from '../spade/testing/benchmark-data.js';
import { main } from './main.js';

const dir = mkdtempSync(join(tmpdir(), 'spade-cli-'));
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
  for (const [k, v] of [
    ['OPENAI_API_KEY', saved.key],
    ['OPENAI_BASE_URL', saved.url],
    ['ASSAY_SPADE_MODEL', saved.model],
  ] as const) {
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
  it('deltas prints + and − lines per consecutive pair, starting from the empty version 0', async () => {
    const f = file('v.json', ['Summarise. Be polite.', 'Summarise. Be polite.', 'Summarise. Be concise.']);
    expect(await main(['spade', 'deltas', f])).toBe(0);
    expect(stdout).toMatch(/# \(empty\) → v0\n\+ Summarise\.\n\+ Be polite\./);
    expect(stdout).toContain('(no change)');
    expect(stdout).toContain('- Be polite.');
    expect(stdout).toContain('+ Be concise.');
    stdout = '';
    expect(await main(['spade', 'deltas', f, '--no-initial'])).toBe(0);
    expect(stdout).not.toContain('(empty)');
    expect(await main(['spade', 'deltas', file('none.json', [])])).toBe(2);
    expect(stderr).toMatch(/none\.json: expected at least one prompt version, found none/);
  });

  it('taxonomy without an LLM gives a clear usage message (exit 2); a bad --limit names the flag', async () => {
    const f = file('v2.json', ['A.', 'A. B.']);
    expect(await main(['spade', 'taxonomy', f])).toBe(2);
    expect(stderr).toMatch(/no LLM configured/);
    const ev = file('tax.json', { rows: [{ id: 1, diff: '+ A.', ground_truth_tags: ['Content/Inclusion'] }] });
    expect(await main(['spade', 'taxonomy', '--eval', ev, '--limit', 'abc'])).toBe(2);
    expect(stderr).toMatch(/--limit: expected a whole number ≥ 1, found "abc"/);
    expect(await main(['spade', 'taxonomy', '--eval', file('tax2.json', { rows: [{ id: 1, diff: '+ A.', ground_truth_tags: 'Content/Inclusion' }] })])).toBe(2);
    expect(stderr).toMatch(/tax2\.json: rows\[0\]: expected a string "diff" and a list "ground_truth_tags"/);
  });

  it('bad --alpha, --method and an example-free matrix are usage errors naming what is wrong', async () => {
    expect(await main(['spade', 'select', '--matrix', 'x.json', '--alpha', '1.5'])).toBe(2);
    expect(stderr).toMatch(/--alpha: expected a number from 0 to 1, found "1.5"/);
    expect(await main(['spade', 'select', '--method', 'greedy'])).toBe(2);
    expect(stderr).toMatch(/--method/);
    const empty = file('empty.json', { assertions: ['a'], examples: [], results: { a: [] } });
    expect(await main(['spade', 'select', '--matrix', empty, '--method', 'cov'])).toBe(2);
    expect(stderr).toMatch(/empty\.json: the matrix has no labelled examples.*--method roots/);
    expect(await main(['spade', 'select', '--matrix', file('other.json', { foo: 1 })])).toBe(2);
    expect(stderr).toMatch(/other\.json: expected a matrix written by assay spade evaluate/);
    expect(
      await main(['spade', 'select', '--matrix', file('dup.json', { assertions: ['a', 'a'], examples: [{ id: 'g', label: 'good' }], results: { a: [true] } })]),
    ).toBe(2);
    expect(stderr).toMatch(/dup\.json: assertions: expected unique names, found "a" twice/);
  });

  it('select on a pipeline file: base, sub with pruning and JSON, an infeasible target exits 1 naming the constraint, roots', async () => {
    // A small pipeline of the benchmark format (see src/spade/benchmark.test.ts); d repeats a. base = {a, b, d};
    // d ⊒ a holds, a ⊒ b is refuted by b2 (b fails it, a passes it); the DAG's roots are c and d.
    const f = file('tiny.json', {
      pipeline: 'tiny',
      prompt_versions: ['v1', 'v2'],
      examples: [
        { id: 'g1', label: 'good' },
        { id: 'g2', label: 'good' },
        { id: 'b1', label: 'bad' },
        { id: 'b2', label: 'bad' },
      ],
      assertions: ['a', 'b', 'c', 'd'].map((id) => ({ id, description: `assertion ${id}`, llm_questions: null })),
      results: { a: [true, true, false, true], b: [true, true, true, false], c: [false, true, false, false], d: [true, true, false, true] },
      subsumes: [
        { subsumer: 'd', subsumed: 'a' },
        { subsumer: 'a', subsumed: 'b' },
      ],
    });
    expect(await main(['spade', 'select', '--matrix', f, '--method', 'base', '--alpha', '0.6', '--tau', '0.25'])).toBe(0);
    expect(stdout).toMatch(/base: 3 of 4 selected; FFR 0\.000 ✓/);
    stdout = '';
    const json = join(dir, 'sub.json');
    expect(await main(['spade', 'select', '--matrix', f, '--method', 'sub', '--objective', 'code', '--prune', '--json', json])).toBe(0);
    expect(stdout).toMatch(/subsumption pairs: 2 → 1 \(refuted by a counterexample 1, skipped by FFR 0/);
    expect(JSON.parse(readFileSync(json, 'utf8')).status).toBe('ok');
    // a catches the bad example only together with a good one: α = 1 and τ = 0 cannot both hold
    const small = file('m.json', {
      assertions: ['a', 'b'],
      examples: [
        { id: 'g', label: 'good' },
        { id: 'x', label: 'bad' },
        { id: 'y', label: 'bad' },
      ],
      results: { a: [false, false, true], b: [true, true, false] },
    });
    expect(
      await main([
        'spade',
        'select',
        '--matrix',
        small,
        '--method',
        'cov',
        '--alpha',
        '1',
        '--tau',
        '0',
        '--candidates',
        file('c.json', []),
        '--export',
        join(dir, 'never.yaml'),
      ]),
    ).toBe(1);
    expect(stdout).toMatch(
      /infeasible: coverage ≥ 1 and FFR ≤ 0 cannot both be met: with FFR ≤ 0 the best achievable coverage is 0\.500; reaching coverage 1 needs FFR ≥ 1\.000/,
    );
    expect(stdout).toMatch(/no config written/);
    expect(existsSync(join(dir, 'never.yaml'))).toBe(false);
    stdout = '';
    expect(await main(['spade', 'select', '--matrix', f, '--method', 'roots'])).toBe(0);
    expect(stdout).toMatch(/roots of the subsumption DAG: 2 of 4\n {2}c\n {2}d\n/);
  });

  it.skipIf(skipWithoutData)('select on a benchmark pipeline file reproduces the paper (statsbot: base 7 of 15)', async () => {
    const f = spadeFile('statsbot.json');
    expect(await main(['spade', 'select', '--matrix', f, '--method', 'base', '--alpha', '0.6', '--tau', '0.25'])).toBe(0);
    expect(stdout).toMatch(/base: 7 of 15 selected; FFR 0\.000 ✓/);
    stdout = '';
    expect(await main(['spade', 'select', '--matrix', f, '--method', 'sub', '--objective', 'code', '--prune'])).toBe(0);
    expect(stdout).toMatch(/subsumption pairs: 8 → /);
  });

  describe('with a mock LLM', () => {
    let mock: MockOpenAI;
    afterEach(async () => mock?.close());

    it('taxonomy --eval reports agreement with the human tags', async () => {
      mock = await startMockOpenAI({ chat: () => ({ content: JSON.stringify({ sentences: [{ index: 0, categories: ['Qualitative Criteria'] }] }) }) });
      process.env.OPENAI_BASE_URL = mock.baseURL;
      const rows = ['+ Keep it short.', '+ Never mention prices.', '+ Be friendly.', '+ Not read.'].map((diff, id) => ({
        id,
        diff,
        ground_truth_tags: ['Qualitative Criteria'],
      }));
      const f = file('taxonomy.json', { rows });
      expect(await main(['spade', 'taxonomy', '--eval', f, '--limit', '3', '--model', 'm'])).toBe(0);
      expect(stdout).toMatch(/taxonomy agreement with human tags \(openai:m\): 3 deltas, 0 errors/);
      expect(stdout).toMatch(/micro precision/);
    });

    it('git history → deltas → taxonomy → synthesize → evaluate → select → export → assay run, files passed between steps', async () => {
      // The prompt's history, committed as a user would (with a rename on the way).
      const repo = join(dir, 'repo');
      mkdirSync(join(repo, 'prompts'), { recursive: true });
      const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo, stdio: 'pipe' });
      git('init', '-q');
      const prompt = join(repo, 'prompts', 'summary.txt');
      writeFileSync(prompt, 'Summarise the call. Use at most 3 bullets.\n');
      git('add', '.');
      git('commit', '-qm', 'v1');
      writeFileSync(prompt, 'Summarise the call. Use at most 3 bullets. Never mention prices.\n');
      git('commit', '-qam', 'v2');
      const user = (b: ChatRequestBody) => String(b.messages.at(-1)?.content);
      mock = await startMockOpenAI({
        chat: (b: ChatRequestBody) => {
          const fmt = JSON.stringify(b.response_format ?? '');
          const u = user(b);
          if (fmt.includes('"taxonomy"'))
            return {
              content: JSON.stringify({
                sentences: u.includes('0. Never') ? [{ index: 0, categories: ['Exclusion'] }] : [{ index: 1, categories: ['Quantity Instruction'] }],
              }),
            };
          if (fmt.includes('"criteria"')) {
            const criteria = [];
            if (u.includes('+ Use at most 3 bullets.')) criteria.push({ criterion: 'at most 3 bullets', category: 'Quantity Instruction', vague: false });
            if (u.includes('+ Never mention prices.')) criteria.push({ criterion: 'no prices', category: 'Exclusion', vague: false });
            return { content: JSON.stringify({ criteria }) };
          }
          if (fmt.includes('"assertions"')) {
            if (u.includes('no prices')) {
              return {
                content: JSON.stringify({
                  assertions: [
                    { name: 'no_prices', description: 'No prices', kind: 'js', check: null, question: null, source: 'o => !/\\$\\d/.test(o)' },
                    { name: 'price_free', description: 'Judge: no prices', kind: 'llm', check: null, question: 'Is the summary free of prices?', source: null },
                    { name: 'spin', description: 'never returns', kind: 'js', check: null, question: null, source: 'o => { while (true) {} }' },
                  ],
                }),
              };
            }
            return {
              content: JSON.stringify({
                assertions: [
                  {
                    name: 'max3',
                    description: 'At most 3 bullets',
                    kind: 'check',
                    check: JSON.stringify({ type: 'max-count', pattern: '^- ', flags: 'm', max: 3 }),
                    question: null,
                    source: null,
                  },
                ],
              }),
            };
          }
          if (fmt.includes('"subsumptions"'))
            return {
              content: JSON.stringify({
                pairs: [
                  { subsumer: 'price_free', subsumed: 'no_prices' },
                  { subsumer: 'max3', subsumed: 'no_prices' },
                ],
              }),
            };
          if (!b.response_format && !b.tools) return { content: 'price_free subsumes no_prices.' };
          // The judge of llm assertions: FAIL when the output mentions a price.
          return { content: /\$\d/.test(u) ? judgeReply(b, 'FAIL', ['mentions a price']) : judgeReply(b, 'PASS') };
        },
      });
      process.env.OPENAI_BASE_URL = mock.baseURL;
      process.env.ASSAY_SPADE_MODEL = 'm';

      expect(await main(['spade', 'deltas', '--git', prompt])).toBe(0);
      expect(stdout).toMatch(
        /# \(empty\) → [0-9a-f]{12}\n\+ Summarise the call\.\n\+ Use at most 3 bullets\.\n\n# [0-9a-f]{12} → [0-9a-f]{12}\n\+ Never mention prices\./,
      );
      stdout = '';
      expect(await main(['spade', 'taxonomy', '--git', prompt])).toBe(0);
      expect(stdout).toMatch(/\+ Use at most 3 bullets\. {2}\[Quantity Instruction\]/);
      expect(stdout).toMatch(/\+ Never mention prices\. {2}\[Exclusion\]/);

      const cands = join(dir, 'cands.json');
      expect(await main(['spade', 'synthesize', '--git', prompt, '--out', cands, '--subsumptions'])).toBe(0);
      // The first criterion comes from the initial delta (version 0 is the empty prompt).
      expect(stdout).toMatch(/2 criteria, 4 candidates, 0 rejected, 2 subsumption pairs/);

      const examples = file(
        'ex.jsonl',
        [
          '{"id":"g1","output":"- a\\n- b","label":"good"}',
          '{"id":"g2","output":"- a","label":1}',
          '{"id":"b1","output":"- a\\n- b\\n- c\\n- d","label":"bad"}',
          '{"id":"b2","output":"costs $5","label":0}',
        ].join('\n'),
      );
      const matrix = join(dir, 'matrix.json');
      stdout = '';
      expect(
        await main(['spade', 'evaluate', '--candidates', cands, '--examples', examples, '--out', matrix, '--judge-model', 'judge', '--js-timeout-ms', '200']),
      ).toBe(0);
      expect(stdout).toMatch(/4 error cells, not counted as failures/);
      expect(stdout).toMatch(/spin: 4\/4 ERROR \(timed out after 200 ms\)/);
      const m = JSON.parse(readFileSync(matrix, 'utf8'));
      expect(m.results).toEqual({
        max3: [true, true, false, true],
        no_prices: [true, true, true, false],
        price_free: [true, true, true, false],
        spin: [null, null, null, null],
      });
      expect(m.errors[0]).toMatchObject({ example: 'g1', assertion: 'spin' });

      const exported = join(dir, 'selected.yaml');
      stdout = '';
      expect(
        await main([
          'spade',
          'select',
          '--matrix',
          matrix,
          '--method',
          'sub',
          '--prune',
          '--alpha',
          '1',
          '--tau',
          '0',
          '--candidates',
          cands,
          '--examples',
          examples,
          '--judge-model',
          'judge',
          '--export',
          exported,
        ]),
      ).toBe(0);
      // max3 passes "costs $5", which no_prices fails: that pair is refuted. The assertion that never ran is never chosen.
      expect(stdout).toMatch(/subsumption pairs: 2 → 1 \(refuted by a counterexample 1,/);
      expect(stdout).toMatch(/sub \(paper\): 2 of 4 selected; FFR 0\.000 ✓ \(τ 0\), coverage 1\.000 ✓ \(α 1\); excluded and not subsumed 0/);
      expect(stdout).toMatch(/not evaluated \(every cell ERROR, never selected\): spin/);
      const yaml = readFileSync(exported, 'utf8');
      expect(yaml).toMatch(/# FFR 0 \(0\/2 good flagged/);
      expect(yaml).toMatch(/instructions: 'Answer this yes\/no question about the output; "yes" means PASS: Is the summary free of prices\?'/);
      // The judge's endpoint is written in (assay run's judge needs a key or a baseURL).
      expect(yaml).toContain(`baseURL: ${mock.baseURL}`);

      // The exported config runs with assay run: the replayed good outputs pass every assertion.
      const report = join(dir, 'run.json');
      stdout = '';
      const code = await main(['run', exported, '--store', join(dir, 'runs.db'), '--json', report, '--no-progress']);
      expect(stderr).toContain(`wrote ${report}`);
      expect(code).toBe(0);
      const r = JSON.parse(readFileSync(report, 'utf8')) as { validators: { name: string; counts: { pass: number; fail: number; error: number } }[] };
      expect(r.validators.map((v) => [v.name, v.counts.fail, v.counts.error])).toEqual([
        ['max3', 0, 0],
        ['price_free', 0, 0],
      ]);
      expect(r.validators.every((v) => v.counts.pass > 0)).toBe(true);
    }, 360_000); // eight commands in a row: 7 s idle, 31 s beside six busy processes, past 120 s beside two suites (a hang still fails)
  });

  describe('with --judge <file> on an Anthropic-wire mock', () => {
    // The judge fails an output for the question it is asked: a price for "free of prices", "rude" for "friendly".
    const judgeAnswer = (r: MockChatView) => {
      const output = /<output-\w+>\n([\s\S]*?)\n<\/output-/.exec(r.messages.at(-1)?.content ?? '')?.[1] ?? '';
      const fail = r.system?.includes('free of prices') ? /\$\d/.test(output) : r.system?.includes('friendly') ? output.includes('rude') : true;
      return { content: fail ? judgeReply(r, 'FAIL', ['scripted']) : judgeReply(r, 'PASS') };
    };
    const candidates = [
      { id: 'max3', description: 'At most 3 bullets', form: { kind: 'check', check: { type: 'max-count', pattern: '^- ', flags: 'm', max: 3 } } },
      { id: 'price_free', description: 'No prices', form: { kind: 'llm', question: 'Is the output free of prices?' } },
      { id: 'friendly', description: 'Friendly', form: { kind: 'llm', question: 'Is the tone friendly?' } },
    ];
    const examples = [
      { id: 'g1', output: '- a\n- b', label: 'good' },
      { id: 'g2', output: '- thanks, a', label: 'good' },
      { id: 'b1', output: 'costs $5', label: 'bad' },
      { id: 'b2', output: '- rude reply', label: 'bad' },
    ];
    afterEach(() => {
      delete process.env.ASSAY_TEST_JUDGE_KEY;
    });

    it('evaluate judges llm assertions through the file; select --export writes that judge; the config runs with assay run', async () => {
      const anthropic = await startMockAnthropic({ apiKey: 'sk-judge-test', chat: judgeAnswer });
      try {
        process.env.ASSAY_TEST_JUDGE_KEY = 'sk-judge-test';
        const judge = file(
          'judge.yaml',
          `anthropic:\n  model: claude-3-5-haiku-20241022\n  baseURL: "${anthropic.baseURL}"\n  apiKeyEnv: ASSAY_TEST_JUDGE_KEY\n`,
        );
        const cands = file('judge-cands.json', { candidates });
        const ex = file('judge-ex.json', examples);
        const matrix = join(dir, 'judge-matrix.json');
        expect(await main(['spade', 'evaluate', '--candidates', cands, '--examples', ex, '--out', matrix, '--judge', judge])).toBe(0);
        expect(stdout).toMatch(/3 candidates × 4 examples → /);
        expect(JSON.parse(readFileSync(matrix, 'utf8')).results).toEqual({
          max3: [true, true, true, true],
          price_free: [true, true, false, true],
          friendly: [true, true, true, false],
        });
        // One judgement per llm cell, on Anthropic's wire with the key from apiKeyEnv.
        expect(anthropic.requests).toHaveLength(8);
        expect(anthropic.requests.every((r) => r.path === '/v1/messages' && r.headers['x-api-key'] === 'sk-judge-test')).toBe(true);

        const exported = join(dir, 'judge-selected.yaml');
        stdout = '';
        const select = ['spade', 'select', '--matrix', matrix, '--alpha', '1', '--tau', '0', '--candidates', cands, '--examples', ex];
        expect(await main([...select, '--judge', judge, '--export', exported])).toBe(0);
        expect(stdout).toMatch(/cov: 2 of 3 selected/);
        const yaml = readFileSync(exported, 'utf8');
        expect(yaml).not.toMatch(/[&*]a\d/); // each verifier its own judge object, no YAML aliases
        const config = parseYaml(yaml) as { verifiers: { name: string; judge: unknown }[] };
        expect(config.verifiers.map((v) => [v.name, v.judge])).toEqual(
          ['price_free', 'friendly'].map((name) => [
            name,
            { anthropic: { model: 'claude-3-5-haiku-20241022', baseURL: anthropic.baseURL, apiKeyEnv: 'ASSAY_TEST_JUDGE_KEY' } },
          ]),
        );

        const report = join(dir, 'judge-run.json');
        stdout = '';
        const code = await main(['run', exported, '--store', join(dir, 'judge-runs.db'), '--json', report, '--no-progress']);
        expect(stderr).toContain(`wrote ${report}`);
        expect(code).toBe(0);
        const r = JSON.parse(readFileSync(report, 'utf8')) as { validators: { name: string; counts: { pass: number; fail: number; error: number } }[] };
        expect(r.validators.map((v) => [v.name, v.counts])).toEqual([
          ['price_free', { pass: 2, fail: 0, error: 0, pending: 0 }],
          ['friendly', { pass: 2, fail: 0, error: 0, pending: 0 }],
        ]);
        expect(anthropic.requests.length).toBe(12); // the run's four judgements went to the same judge
      } finally {
        await anthropic.close();
      }
    });

    it('--judge errors: with --judge-model, an unreadable or bad file, an unknown provider, a bad field (exit 2, naming flag and file)', async () => {
      const cands = file('judge-cands2.json', { candidates });
      const ex = file('judge-ex2.json', examples);
      const ok = file('judge-ok.yaml', 'anthropic:\n  model: m\n  baseURL: "http://127.0.0.1:9"\n');
      const evaluate = ['spade', 'evaluate', '--candidates', cands, '--examples', ex, '--out', join(dir, 'never.json')];
      const select = [
        'spade',
        'select',
        '--matrix',
        file('judge-m.json', { assertions: ['friendly'], examples: [{ id: 'g', label: 'good' }], results: { friendly: [true] } }),
      ];
      const cases: [string[], RegExp][] = [
        [[...evaluate, '--judge', ok, '--judge-model', 'm'], /--judge .*judge-ok\.yaml and --judge-model: expected one of them/],
        [[...evaluate, '--judge', ok, '--judge-base-url', 'http://x'], /--judge .*judge-ok\.yaml and --judge-base-url: expected one of them/],
        [[...evaluate, '--judge', join(dir, 'absent.yaml')], /--judge: cannot read .*absent\.yaml/],
        [[...evaluate, '--judge', file('judge-bad.yaml', 'anthropic: [x\n')], /--judge: .*judge-bad\.yaml is not valid YAML/],
        [
          [...evaluate, '--judge', file('judge-gpt.yaml', 'gpt:\n  model: x\n')],
          /judge-gpt\.yaml: --judge: expected exactly one of openai, anthropic.*found "gpt"/,
        ],
        [
          [...evaluate, '--judge', file('judge-sys.yaml', 'ollama:\n  model: x\n  system: hi\n')],
          /judge-sys\.yaml: --judge\.ollama\.system: unknown key \(expected one of: model, .*, attemptTimeoutMs\)$/m,
        ],
        [
          [...evaluate, '--judge', file('judge-nokey.yaml', 'mistral:\n  model: x\n')],
          /judge-nokey\.yaml: --judge\.mistral: expected an API key in MISTRAL_API_KEY/,
        ],
        [[...select, '--judge', ok, '--judge-model', 'm'], /--judge .*judge-ok\.yaml and --judge-model: expected one of them/],
        [[...select, '--judge', join(dir, 'judge-gpt.yaml')], /judge-gpt\.yaml: --judge: expected exactly one of/],
      ];
      for (const [args, message] of cases) {
        stderr = '';
        expect(await main(args), args.join(' ')).toBe(2);
        expect(stderr, args.join(' ')).toMatch(message);
      }
      expect(existsSync(join(dir, 'never.json'))).toBe(false);
    });
  });
});

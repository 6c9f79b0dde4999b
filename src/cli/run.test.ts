import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { JsonReport } from '../report/json.js';
import { openSqliteStore } from '../store/sqlite.js';
import { startMockOpenAI } from '../mock/openai.js';
import { judgeReply } from '../mock/judge.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

const addFormats = addFormatsModule as unknown as (a: Ajv) => Ajv;
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
addFormats(ajv);
const validateReport = ajv.compile(JSON.parse(readFileSync(new URL('../../schemas/report.schema.json', import.meta.url), 'utf8')) as object);

const tmp = useConfigDir('assay-cli-run-');
const config = tmp.config;

const cli = (...args: string[]) => captureCli(args);

/** A simulated system whose answers always pass the contraction rule. */
const simulated = `
system:
  simulated:
    seed: 7
    outputs:
      - { text: "plain answer", weight: 1 }
inputs: ["a", "b", "c"]
`;

describe('assay run', () => {
  it('runs examples/contractions.yaml end to end (N=4, M=50): rate near 0.9, confident FAIL → exit 1, reports valid', async () => {
    const store = join(tmp.dir(), 'example.db');
    const json = join(tmp.dir(), 'example.json');
    const junit = join(tmp.dir(), 'example.xml');
    const md = join(tmp.dir(), 'example.md');
    const html = join(tmp.dir(), 'example.html');
    const r = await cli(
      'run',
      'examples/contractions.yaml',
      '--store',
      store,
      '--json',
      json,
      '--junit',
      junit,
      '--markdown',
      md,
      '--html',
      html,
      '--no-progress',
    );
    expect(r.err).toMatch(/run \S+: 4 inputs × 50 samples × 1 validators on simulated/);
    expect(r.code).toBe(1);
    const report = JSON.parse(readFileSync(json, 'utf8')) as JsonReport;
    expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
    expect(report.design).toEqual({ N: 4, M: 50, K: 1 });
    const v = report.validators[0];
    expect(v.counts.pass + v.counts.fail).toBe(200);
    expect(v.counts.error).toBe(0);
    expect(v.rate!).toBeGreaterThan(0.84);
    expect(v.rate!).toBeLessThan(0.96);
    expect(v.ci!.low).toBeLessThan(0.9);
    expect(v.ci!.high).toBeGreaterThan(0.9);
    // True rate 0.9 < minSuccess 0.95: with 200 samples the upper bound falls below 0.95.
    expect(v.verdict).toBe('fail');
    expect(r.out).toContain('contraction_validator');
    expect(r.out).toMatch(/FAIL: 1 failed of 1 validator/);
    expect(readFileSync(junit, 'utf8')).toContain('<failure type="below-min-success"');
    expect(readFileSync(md, 'utf8')).toMatch(/^## ❌ assay: contractions: FAIL/);
    expect(readFileSync(html, 'utf8')).toContain(report.runId);

    // The stored run reads back to the same report.
    const shown = join(tmp.dir(), 'shown.json');
    const s = await cli('show', report.runId, '--store', store, '--json', shown);
    expect(s.code).toBe(1); // as the run exited: its verdict failed
    const again = JSON.parse(readFileSync(shown, 'utf8')) as JsonReport;
    expect(again.validators).toEqual(report.validators);
    expect(again.stats).toEqual(report.stats);
    const listed = await cli('runs', '--store', store, '--json');
    expect(JSON.parse(listed.out)).toMatchObject([{ id: report.runId, name: 'contractions', status: 'complete', done: 200, verdict: 'fail' }]);
  });

  it('exit 0 when every validator passes', async () => {
    const file = config(
      'pass.yaml',
      // 36 outputs that all pass show 0.9 at 95% (lower bound 90.3%): a confident pass.
      `name: passing${simulated}samples: 12
validators:
  - { name: few, predicate: "o => (o.match(/'/g) ?? []).length <= 3", minSuccess: 0.9 }
`,
    );
    const r = await cli('run', file, '--store', join(tmp.dir(), 'pass.db'));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/PASS: 1 validator\(s\) meet/);
  });

  it('inconclusive in confident mode exits 1, or 0 with --allow-inconclusive; --samples overrides the config', async () => {
    const file = config(
      'inc.yaml',
      `name: inconclusive${simulated}samples: 100
verdict: confident
validators:
  - { name: few, predicate: "o => (o.match(/'/g) ?? []).length <= 3", minSuccess: 0.95 }
`,
    );
    // 15 straight passes cannot show 0.95 with 95% confidence (it takes 59).
    const strict = await cli('run', file, '--samples', '5', '--store', join(tmp.dir(), 'inc.db'));
    expect(strict.code).toBe(1);
    expect(strict.out).toMatch(/N=3 inputs × M=5 samples/);
    expect(strict.out).toMatch(/INCONCLUSIVE/);
    const lenient = await cli('run', file, '--samples', '5', '--store', join(tmp.dir(), 'inc.db'), '--allow-inconclusive');
    expect(lenient.code).toBe(0);
  });

  it('exit 2 for a bad config (naming file and field) and bad flags', async () => {
    const bad = config(
      'bad.yaml',
      `name: bad${simulated}samples: many
validators:
  - { name: few, predicate: "o => true", minSuccess: 0.9 }
`,
    );
    const r = await cli('run', bad, '--store', join(tmp.dir(), 'bad-store.db'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/bad\.yaml.*samples/);
    expect(existsSync(join(tmp.dir(), 'bad-store.db'))).toBe(false); // a config that does not load leaves no store behind
    const flags = await cli('run', 'examples/contractions.yaml', '--concurrency', 'lots', '--store', join(tmp.dir(), 'bad.db'));
    expect(flags.code).toBe(2);
    expect(flags.err).toContain('--concurrency: expected a whole number ≥ 1, found "lots"');
    expect((await cli('run', '--store', join(tmp.dir(), 'bad.db'))).code).toBe(2);
    const resume = await cli('run', 'examples/contractions.yaml', '--resume', 'no-such-run', '--store', join(tmp.dir(), 'bad.db'));
    expect(resume.code).toBe(2);
    expect(resume.err).toContain('no run with id "no-such-run"');
    const missing = await cli('run', join(tmp.dir(), 'nope.yaml'), '--store', join(tmp.dir(), 'bad.db'));
    expect(missing.code).toBe(2);
  });

  it('an unreachable system makes ERROR cells, never FAIL (exit 1: nothing decided, an error verdict)', async () => {
    const mock = await startMockOpenAI({ chat: () => ({ status: 400 }) });
    try {
      const file = config(
        'broken.yaml',
        `name: broken
system: { openai: { baseURL: "${mock.baseURL}", model: m } }
inputs: ["a", "b"]
samples: 3
validators:
  - { name: any, predicate: "o => o.length > 0", minSuccess: 0.5 }
`,
      );
      const json = join(tmp.dir(), 'broken.json');
      const junit = join(tmp.dir(), 'broken.xml');
      const md = join(tmp.dir(), 'broken.md');
      const db = join(tmp.dir(), 'broken.db');
      // Fail-fast off (it would stop this run after 5 identical failures: src/cli/run-fail-fast.test.ts).
      const r = await cli('run', file, '--store', db, '--json', json, '--junit', junit, '--markdown', md, '--max-errors', '0');
      expect(r.code).toBe(1);
      const report = JSON.parse(readFileSync(json, 'utf8')) as JsonReport;
      expect(validateReport(report)).toBe(true);
      expect(report.validators[0].counts).toEqual({ pass: 0, fail: 0, error: 6, pending: 0 });
      expect(report.validators[0]).toMatchObject({ verdict: 'error', errorShare: 1, reason: 'every checked cell is an error (6)' });
      expect(report.stats?.generationErrors).toBe(6);
      // Why: the provider's message, counted, in every report.
      expect(report.stats?.topErrors).toEqual([{ count: 6, variants: 1, message: expect.stringMatching(/HTTP 400/) as unknown as string }]);
      expect(r.out).toMatch(/error ×6: generation failed after 1 attempt\(s\): openai:m: HTTP 400/);
      expect(r.out).toMatch(/\bany\b.*ERROR\s+0\s+0\s+6/);
      const xml = readFileSync(junit, 'utf8');
      expect(xml).toMatch(/failures="0" errors="1"/);
      expect(xml).not.toMatch(/<failure/);
      const markdown = readFileSync(md, 'utf8');
      expect(markdown).toMatch(
        /\| 🛑 \| any \|( – \|)+ 100\.0% \| 50\.0% \| error \| every checked cell is an error \(6\); error causes: ×6 .generation failed after 1 attempt\(s\): openai:m: HTTP 400[^|]*\| 0 \| 0 \| 6 \|/,
      );
      expect(markdown).toMatch(/- ×6: `generation failed after 1 attempt\(s\): openai:m: HTTP 400/);
      // And read back from the store, the same.
      const shown = await cli('show', report.runId, '--store', db);
      expect(shown.out).toMatch(/error ×6: generation failed/);
      expect(shown.out).toMatch(/ERROR\s+0\s+0\s+6/);
    } finally {
      await mock.close();
    }
  });
  it('verifiers are tensor columns after the validators; their reasons are stored', async () => {
    // One server plays both the system (model "sut") and the judge (model "judge").
    const mock = await startMockOpenAI({
      chat: (b) => {
        const usage = b.model === 'sut' ? { prompt_tokens: 10, completion_tokens: 5 } : { prompt_tokens: 100, completion_tokens: 7 };
        if (b.model === 'sut') return { content: String(b.messages.at(-1)?.content) === 'rude' ? 'Go away.' : 'Hello, happy to help!', usage };
        const text = JSON.stringify(b.messages);
        return {
          content: text.includes('Go away') ? judgeReply(b, 'FAIL', ['dismissive']) : judgeReply(b, 'PASS', ['friendly']),
          usage,
        };
      },
    });
    try {
      const file = config(
        'verifier.yaml',
        `name: verified
system: { openai: { baseURL: "${mock.baseURL}", model: sut } }
inputs: ["nice", "rude"]
samples: 3
validators:
  - { name: nonempty, predicate: "o => o.length > 0", minSuccess: 0.9 }
verifiers:
  - name: polite
    instructions: The answer must be polite.
    minSuccess: 0.9
    judge: { openai: { baseURL: "${mock.baseURL}", model: judge } }
`,
      );
      const store = join(tmp.dir(), 'verifier.db');
      const json = join(tmp.dir(), 'verifier.json');
      const r = await cli('run', file, '--store', store, '--json', json);
      expect(r.code).toBe(1);
      const report = JSON.parse(readFileSync(json, 'utf8')) as JsonReport;
      expect(report.validators.map((v) => [v.name, v.kind, v.counts.pass, v.counts.fail])).toEqual([
        ['nonempty', 'validator', 6, 0],
        ['polite', 'verifier', 3, 3],
      ]);
      const s = openSqliteStore(store, { readonly: true });
      const sample = await s.samples.get(report.runId, 1, 0);
      await s.close();
      expect(sample?.reasons?.[1]).toEqual(['dismissive']);
      // a sample's tokens are its generation's plus its verifier's
      expect(sample?.usage).toEqual({ promptTokens: 110, completionTokens: 12 });
    } finally {
      await mock.close();
    }
  });
});

describe('assay runs / show', () => {
  it('runs: no store yet is a usage error naming the path; show: unknown id is exit 2', async () => {
    const r = await cli('runs', '--store', join(tmp.dir(), 'absent.db'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('absent.db');
    const file = config(
      'tiny.yaml',
      `name: tiny${simulated}samples: 1
validators:
  - { name: any, predicate: "o => true", minSuccess: 0.5 }
`,
    );
    const store = join(tmp.dir(), 'tiny.db');
    await cli('run', file, '--store', store);
    await cli('run', file, '--store', store);
    const table = await cli('runs', '--store', store, '--name', 'tiny');
    expect(table.out.trim().split('\n')).toHaveLength(3);
    expect(table.out).toMatch(/tiny\s+complete/);
    expect((await cli('runs', '--store', store, '--name', 'other')).out).toContain('no runs named "other"');
    expect((await cli('show', 'nope', '--store', store)).code).toBe(2);
  });
});

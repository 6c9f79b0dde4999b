import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJudge } from '../judge/judge.js';
import { startMockAnthropic } from '../mock/anthropic.js';
import { startMockOpenAI, type ChatRequestBody, type MockOpenAI } from '../mock/openai.js';
import type { MockServer } from '../mock/types.js';
import { OpenAIChatModel } from '../providers/openai.js';
import type { JsonReport } from '../report/json.js';
import { openSqliteStore } from '../store/sqlite.js';
import { captureCli } from './testing/capture.js';
import { judgeReply } from '../mock/judge.js';
import { useConfigDir } from './testing/config-dir.js';
import { cliCommand } from './testing/process.js';

/** The model layer end to end through `assay run`: providers, the response cache, prices and --max-cost. */

const tmp = useConfigDir('assay-cli-models-');
const cli = (...args: string[]) => captureCli(args);
const report = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as JsonReport;

let mock: MockOpenAI;
let calls = 0;
beforeAll(async () => {
  // The system answers differently on every call (so cached answers are recognisable); the judge passes.
  mock = await startMockOpenAI({
    chat: (b: ChatRequestBody) => {
      if (b.model === 'judge') return { content: judgeReply(b, 'PASS'), usage: { prompt_tokens: 200, completion_tokens: 10 } };
      return { content: `answer ${++calls} to ${String(b.messages.at(-1)?.content)}`, usage: { prompt_tokens: 100, completion_tokens: 20 } };
    },
  });
});
afterAll(() => mock.close());

const PRICES = `prices:
  sut: { inputPerMTok: 1, outputPerMTok: 5 }
  judge: { inputPerMTok: 2, outputPerMTok: 10 }
`;
// Per call: system (100·1 + 20·5)/1e6 = 0.0002 USD; judge (200·2 + 10·10)/1e6 = 0.0005 USD.
const SYSTEM_USD = 0.0002;
const JUDGE_USD = 0.0005;

// These runs are about cost and the cache: four outputs, decided by the point rule (explicitly: a confident verdict
// would need more outputs, and more calls, than the figures below count).
function experiment(extra = ''): string {
  return `name: models
system:
  openai: { model: sut, baseURL: "${mock.baseURL}" }
inputs: ["alpha", "beta"]
samples: 2
verdict: point
validators:
  - { name: short, check: { type: words, max: 20 }, minSuccess: 0.5 }
verifiers:
  - name: polite
    minSuccess: 0.5
    instructions: Be polite.
    judge: { openai: { model: judge, baseURL: "${mock.baseURL}" } }
${PRICES}${extra}`;
}

async function outputs(store: string, runId: string): Promise<string[]> {
  await using s = openSqliteStore(store, { readonly: true });
  return (await s.samples.list(runId)).map((x) => `${x.i},${x.j}: ${x.output}`);
}

describe('assay run: cost and the response cache', () => {
  it('prices every call, splits the cost by verifier, and a second identical run makes no calls and rebuilds the same tensor', async () => {
    const store = join(tmp.dir(), 'cache.db');
    const file = tmp.config('cache.yaml', experiment('cache: true\n'));
    const first = join(tmp.dir(), 'first.json');
    const before = mock.requests.length;
    let r = await cli('run', file, '--store', store, '--json', first, '--no-progress');
    expect(r.code).toBe(0);
    expect(mock.requests.length - before).toBe(8); // 4 generations + 4 judgements
    const a = report(first);
    expect(a.stats!.costUsd).toBeCloseTo(4 * SYSTEM_USD + 4 * JUDGE_USD, 12);
    expect(a.stats!.checkCostUsd).toEqual([0, expect.closeTo(4 * JUDGE_USD, 12)]);
    expect(a.validators[1].costUsd).toBeCloseTo(4 * JUDGE_USD, 12);
    expect(a.validators[0]).not.toHaveProperty('costUsd');
    expect(a.stats!.cachedSamples).toBe(0);
    expect(r.out).toMatch(/cost \$0\.0028 \(system \$0\.0008 · polite \$0\.002\)/);
    // The same line in every report written later from the store.
    const md = join(tmp.dir(), 'first.md');
    const html = join(tmp.dir(), 'first.html');
    const shown = await cli('show', a.runId, '--store', store, '--markdown', md, '--html', html);
    expect(shown.out).toContain('cost $0.0028 (system $0.0008 · polite $0.002)');
    expect(readFileSync(md, 'utf8')).toContain('cost $0.0028 (system $0.0008 · polite $0.002)');
    expect(readFileSync(html, 'utf8')).toMatch(/data-testid="spend">tokens 1200 in \/ 120 out · cost \$0\.0028/);

    const second = join(tmp.dir(), 'second.json');
    const mid = mock.requests.length;
    r = await cli('run', file, '--store', store, '--json', second, '--no-progress');
    expect(r.code).toBe(0);
    expect(mock.requests.length).toBe(mid); // no call at all
    const b = report(second);
    expect(b.stats!.cachedSamples).toBe(4);
    expect(b.stats!.costUsd).toBe(0);
    expect(b.stats!.promptTokens).toBe(0);
    expect(r.out).toContain('4 of 4 samples from the cache (8 cells)');
    expect(b.validators.map((v) => v.counts)).toEqual(a.validators.map((v) => v.counts));
    const [o1, o2] = [await outputs(store, a.runId), await outputs(store, b.runId)];
    expect(o2).toEqual(o1);
    // Sample j of an input is its own draw: the two samples of "alpha" kept their different answers.
    expect(new Set(o1.filter((o) => o.startsWith('0,')).map((o) => o.replace(/^\d+,\d+: /, ''))).size).toBe(2);

    // --no-cache calls again; --cache-ttl ignores entries older than it; `assay cache clear` forgets them.
    r = await cli('run', file, '--store', store, '--no-cache', '--no-progress');
    expect(mock.requests.length - mid).toBe(8);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const beforeTtl = mock.requests.length;
    r = await cli('run', file, '--store', store, '--cache-ttl', '5ms', '--no-progress');
    expect(r.code).toBe(0);
    expect(mock.requests.length - beforeTtl).toBe(8);
    r = await cli('cache', 'clear', '--store', store);
    expect(r.code).toBe(0);
    // 4 system answers (the TTL run replaced them) and 4 + 4 verdicts (the TTL run's new outputs were judged anew).
    expect(r.out).toMatch(/removed 12 cached answers from .*cache\.db/);
    r = await cli('cache', 'clear', '--store', store);
    expect(r.out).toMatch(/removed 0 cached answers/);
  });

  it('--max-cost stops the run cleanly (exit 130, samples kept) and --resume with a larger budget finishes it', async () => {
    const store = join(tmp.dir(), 'budget.db');
    const file = tmp.config(
      'budget.yaml',
      `name: budget
system:
  openai: { model: sut, baseURL: "${mock.baseURL}" }
inputs: ["a", "b", "c", "d", "e"]
samples: 4
validators:
  - { name: short, check: { type: words, max: 20 }, minSuccess: 0.5 }
${PRICES}`,
    );
    const before = mock.requests.length;
    let r = await cli('run', file, '--store', store, '--max-cost', '0.001', '--concurrency', '1', '--no-progress');
    expect(r.code).toBe(130);
    expect(r.err).toMatch(/assay: stopped at the budget: the run has cost \$0\.001, reaching its budget of \$0\.001 /);
    const id = /assay run --resume (\S+)/.exec(r.out)![1];
    expect(mock.requests.length - before).toBe(5); // 5 × 0.0002 reaches 0.001
    expect(r.out).toMatch(/INTERRUPTED: partial results, 15 of 20 samples not run/);
    r = await cli('run', '--resume', id, '--store', store, '--max-cost', '1', '--no-progress');
    expect(r.code).toBe(0);
    expect(mock.requests.length - before).toBe(20);
    expect(r.out).toMatch(/cost \$0\.004\b/);
    expect((await cli('run', file, '--max-cost', 'lots')).err).toMatch(/--max-cost: expected an amount of USD > 0 such as 5 or 0\.50, found "lots"/);
    expect((await cli('run', file, '--cache-ttl', 'soon')).err).toMatch(/--cache-ttl: expected a duration such as 90s, 30m, 12h or 7d/);
  });

  it('reports a model without a price as unpriced, never guessing', async () => {
    const store = join(tmp.dir(), 'unpriced.db');
    const file = tmp.config(
      'unpriced.yaml',
      `system:\n  openai: { model: sut, baseURL: "${mock.baseURL}" }\ninputs: ["a"]\nverdict: point\nvalidators:\n  - { name: short, check: { type: words, max: 20 }, minSuccess: 0.5 }\n`,
    );
    const json = join(tmp.dir(), 'unpriced.json');
    const r = await cli('run', file, '--store', store, '--json', json, '--no-progress');
    expect(r.code).toBe(0);
    expect(report(json).stats).toMatchObject({ costUsd: 0, unpricedCalls: 1 });
    expect(r.out).toContain('1 calls of models without a price, not counted (add them under prices:)');
  });
});

describe("assay run: the issue's Anthropic config, as written", () => {
  let anthropic: MockServer;
  const saved = process.env.ANTHROPIC_API_KEY;
  beforeAll(async () => {
    delete process.env.ANTHROPIC_API_KEY; // a local server needs no key
    anthropic = await startMockAnthropic({
      chat: (v) => ({ content: `Claude says: ${v.messages.at(-1)?.content}`, usage: { prompt_tokens: 1000, completion_tokens: 100 } }),
    });
  });
  afterAll(async () => {
    if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    await anthropic.close();
  });

  it('runs against a local server speaking the Messages API, priced from prices:', async () => {
    const port = new URL(anthropic.url).port;
    const file = tmp.config(
      'anthropic.yaml',
      `name: anthropic-example
system:
  anthropic: { model: claude-test, baseURL: "http://127.0.0.1:${port}/v1" }
prices:
  claude-test: { inputPerMTok: 3, outputPerMTok: 15 }
inputs: ["Say hello.", "Describe the weather."]
samples: 3
validators:
  - { name: says_claude, check: { type: contains, value: "Claude says" }, minSuccess: 1 }
`,
    );
    const json = join(tmp.dir(), 'anthropic.json');
    const r = await cli('run', file, '--store', join(tmp.dir(), 'anthropic.db'), '--json', json, '--no-progress');
    expect(r.err).toMatch(/on anthropic:claude-test/);
    // Every output passes, but no number of outputs shows minSuccess 1 with confidence: inconclusive, exit 1.
    expect(r.code).toBe(1);
    const rep = report(json);
    expect(rep.validators[0]).toMatchObject({ verdict: 'inconclusive', counts: { pass: 6, fail: 0, error: 0 } });
    expect(rep.stats!.costUsd).toBeCloseTo(6 * ((1000 * 3 + 100 * 15) / 1e6), 12);
    expect(anthropic.requests).toHaveLength(6);
    expect(anthropic.requests[0].path).toBe('/v1/messages');
    expect(anthropic.requests[0].headers['anthropic-version']).toBeDefined();
  });

  it('says once what the provider library did not apply (a temperature for a model id it takes to reject it), not per call', async () => {
    const port = new URL(anthropic.url).port;
    const file = tmp.config(
      'anthropic-temp.yaml',
      `system:\n  anthropic: { model: claude-test, baseURL: "http://127.0.0.1:${port}/v1", temperature: 0.3, maxTokens: 200 }\ninputs: ["a", "b"]\nsamples: 3\nverdict: point\nvalidators:\n  - { name: any, check: { type: contains, value: "Claude" }, minSuccess: 1 }\n`,
    );
    const r = await cli('run', file, '--store', join(tmp.dir(), 'anthropic-temp.db'), '--no-progress');
    expect(r.code).toBe(0);
    const notes = r.err.split('\n').filter((l) => l.startsWith('assay: warning: anthropic:claude-test:'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/temperature.*(not supported|ignored)/);
  });
});

describe('assay mock', () => {
  it('serves echo answers and rules over the OpenAI protocol until Ctrl-C', async () => {
    const rules = tmp.config('rules.yaml', '- { match: weather, reply: "Sunny, 21 °C." }\n- { match: broken, status: 503 }\n');
    const child = spawn(process.execPath, [...cliCommand(), 'mock', '--port', '0', '--rules', rules], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += String(c)));
    const baseURL = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', () => {
        const m = /mock server at (\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`assay mock exited ${code}: ${out}`)));
    });
    const ask = async (content: string) => {
      const res = await fetch(`${baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock', messages: [{ role: 'user', content }] }),
      });
      return { status: res.status, body: (await res.json()) as { choices?: { message: { content: string } }[] } };
    };
    expect((await ask('What is the weather?')).body.choices![0].message.content).toBe('Sunny, 21 °C.');
    expect((await ask('Say hello.')).body.choices![0].message.content).toBe('Say hello.');
    expect((await ask('broken please')).status).toBe(503);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(out).toMatch(/stopped after 3 requests/);
  });

  it('--judge answers the judge requests the rules leave, bound to their nonce; the echo answers the rest', async () => {
    const rules = tmp.config('judge-rules.yaml', '- { match: "Go away", judge: fail, reasons: ["Dismissive."] }\n');
    const child = spawn(process.execPath, [...cliCommand(), 'mock', '--port', '0', '--rules', rules, '--judge', 'pass'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += String(c)));
    const baseURL = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', () => {
        const m = /mock server at (\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`assay mock exited ${code}: ${out}`)));
    });
    try {
      expect(out).toMatch(/\(1 rule from \S+judge-rules\.yaml, else echo; judges: PASS;/);
      const judge = createJudge({ model: new OpenAIChatModel({ model: 'j', baseURL }), instructions: ['Be polite.'], mode: 'text', retry: { retries: 0 } });
      expect(await judge.verify('Greet me.', 'Go away.')).toMatchObject({ outcome: 'fail', reasons: ['Dismissive.'] });
      expect(await judge.verify('Greet me.', 'Hello!')).toMatchObject({ outcome: 'pass' });
    } finally {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGINT');
      await exited;
    }
    const bad = await cli('mock', '--judge', 'maybe', '--port', '0');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--judge: expected pass or fail, found "maybe"');
  });

  it('names a bad rules file and line', async () => {
    const bad = tmp.config('bad.jsonl', '{"match":"a","reply":"b"}\n{"match":"a","replyy":"b"}\n');
    const r = await cli('mock', '--rules', bad, '--port', '0');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/bad\.jsonl: replyy: unknown key .*; did you mean "reply"\? \(line 2\)/);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createJudge } from '../judge/judge.js';
import { startMock, type MockProvider } from '../mock/index.js';
import { OpenAIChatModel } from '../providers/openai.js';
import { loadMockRules, mockResponder } from '../mock/rules.js';
import type { MockServer } from '../mock/types.js';
import type { JsonReport } from '../report/json.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

/**
 * A new user's first hour, as the docs tell it: the README's "your own config, offline" steps and the runnable
 * config of every provider page, run as written against `assay mock` (a free port in place of the docs' 8080).
 */

const tmp = useConfigDir('assay-docs-examples-');
const cli = (...args: string[]) => captureCli(args);
const read = (file: string) => readFileSync(file, 'utf8');
const report = (file: string) => JSON.parse(read(file)) as JsonReport;

/** The fenced blocks of a Markdown text in a language, with the text before each (where the docs say how to run it). */
function blocks(md: string, lang: string): { body: string; before: string }[] {
  const out: { body: string; before: string }[] = [];
  const re = new RegExp('```' + lang + '\\n([\\s\\S]*?)\\n```', 'g');
  let last = 0;
  for (let m = re.exec(md); m; m = re.exec(md)) {
    out.push({ body: m[1] + '\n', before: md.slice(last, m.index) });
    last = m.index + m[0].length;
  }
  return out;
}

const servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function mock(provider: MockProvider, options: Parameters<typeof startMock>[1] = {}): Promise<MockServer> {
  const s = await startMock(provider, options);
  servers.push(s);
  return s;
}

describe("README: 'Next: your own config, offline'", () => {
  const readme = read('README.md');
  const section = readme.slice(readme.indexOf('### Next: your own config, offline'), readme.indexOf('## Use it in your project'));

  it('the sh block runs as written: assay mock, then assay run try.yaml', async () => {
    const sh = blocks(section, 'sh')[0].body;
    expect(sh).toMatch(/^npx assay mock --port 8080 &/m);
    expect(sh).toMatch(/^npx assay run try\.yaml$/m);
    const yaml = /<<'YAML'\n([\s\S]*?)\nYAML\n/.exec(sh)![1] + '\n';
    const server = await mock('openai', { chat: mockResponder() });
    const file = tmp.config('try.yaml', yaml.replaceAll('http://127.0.0.1:8080', server.url));
    const json = join(tmp.dir(), 'try.json');
    const r = await cli('run', file, '--store', join(tmp.dir(), 'readme.db'), '--json', json, '--no-progress');
    expect(r.code).toBe(0);
    expect(report(json).validators[0]).toMatchObject({ verdict: 'pass', verdictMode: 'confident', counts: { pass: 40, fail: 0, error: 0 } });
    expect(server.requests).toHaveLength(40);
  });

  it('the rules.yaml block loads and answers as its comment says; stopping the mock is shown', async () => {
    const rules = loadMockRules(tmp.config('rules.yaml', blocks(section, 'yaml')[0].body));
    const server = await mock('openai', { chat: mockResponder({ rules }) });
    const ask = async (content: string) => {
      const res = await fetch(`${server.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content }] }),
      });
      const body = (await res.json()) as { choices?: { message: { content: string } }[] };
      return { status: res.status, retryAfter: res.headers.get('retry-after'), text: body.choices?.[0].message.content };
    };
    expect(await ask('Describe the weather.')).toMatchObject({ status: 200, text: 'Sunny, 21 °C.' });
    expect(await ask('Can I get a refund?')).toMatchObject({ status: 200, text: 'You can return it within 30 days.' });
    expect(await ask('overload now')).toMatchObject({ status: 429, retryAfter: '1' });
    expect(await ask('Say hello.')).toMatchObject({ status: 200, text: 'Say hello.' });
    // Its judge rules answer a verifier's judge, bound to each call's nonce, in every mode.
    for (const mode of ['json_schema', 'text'] as const) {
      const judge = createJudge({
        model: new OpenAIChatModel({ model: 'j', baseURL: server.baseURL }),
        instructions: ['Be polite.'],
        mode,
        retry: { retries: 0 },
      });
      expect(await judge.verify('Can I get a refund?', 'Go away.'), mode).toMatchObject({ outcome: 'fail', reasons: ['Dismissive.'] });
      expect(await judge.verify('Describe the weather.', 'Sunny, 21 °C.'), mode).toMatchObject({ outcome: 'pass' });
    }
    expect(section).toMatch(/kill %1/); // a mock started with & is stopped again
  });
});

const PAGES: MockProvider[] = ['openai', 'anthropic', 'google', 'bedrock', 'azure', 'mistral', 'ollama'];

describe('docs/providers/*.md: every runnable config runs against assay mock --provider <name>', () => {
  for (const provider of PAGES) {
    it(`${provider}.md`, async () => {
      const page = read(join('docs', 'providers', `${provider}.md`));
      const configs = blocks(page, 'yaml').filter((b) => /^system:/m.test(b.body));
      expect(configs.length).toBeGreaterThan(0);
      for (const [n, { body, before }] of configs.entries()) {
        // The page says which mock to start, in the block's first comment or in the paragraph before it.
        const how = /assay\s+mock(?:\s+--provider\s+(\w+))?\s+--port\s+(\d+)(?:\s+--judge\s+(pass|fail))?/.exec(
          body.split('\n')[0] + '\n' + before.split('\n\n').at(-1),
        );
        expect(how, `${provider}.md block ${n + 1}: how to start the mock`).not.toBeNull();
        expect(how![1] ?? 'openai').toBe(provider);
        // Ollama's config has no baseURL: the mock takes Ollama's own port, as the page says.
        const port = Number(how![2]);
        // `--judge pass` as `assay mock` takes it: a last rule answering every judge request, bound to its nonce.
        const judge = how![3] as 'pass' | 'fail' | undefined;
        // A config with verifiers needs a judge that answers: the echo is no judge's verdict.
        if (/^verifiers:/m.test(body)) expect(judge, `${provider}.md block ${n + 1}: its verifiers need the mock started with --judge`).toBeDefined();
        const server = await mock(provider, { chat: mockResponder({ rules: judge ? [{ judge }] : [] }), ...(provider === 'ollama' ? { port } : {}) });
        const config = body.replaceAll(`http://127.0.0.1:${port}`, server.url);
        expect(provider === 'ollama' || config !== body, `${provider}.md block ${n + 1} names the mock's port`).toBe(true);
        const file = tmp.config(`${provider}-${n}.yaml`, config);
        const json = join(tmp.dir(), `${provider}-${n}.json`);
        const r = await cli('run', file, '--store', join(tmp.dir(), `${provider}.db`), '--json', json, '--no-progress');
        expect(r.code, r.out + r.err).toBe(0);
        const rep = report(json);
        expect(rep.verdict).toBe('pass');
        expect(rep.stats!.generationErrors).toBe(0);
        for (const v of rep.validators) expect(v.counts.error, v.name).toBe(0);
        expect(server.requests.length).toBeGreaterThanOrEqual(rep.stats!.samples);
        // A config with prices: is priced.
        if (/^prices:/m.test(body)) expect(rep.stats!.costUsd).toBeGreaterThan(0);
      }
    });
  }

  it('each page of a provider from an optional package says how to install it', () => {
    const packages: Partial<Record<MockProvider, string>> = {
      anthropic: '@ai-sdk/anthropic',
      google: '@ai-sdk/google',
      bedrock: '@ai-sdk/amazon-bedrock',
      azure: '@ai-sdk/azure',
      mistral: '@ai-sdk/mistral',
    };
    for (const [provider, pkg] of Object.entries(packages)) expect(read(join('docs', 'providers', `${provider}.md`))).toContain(`npm install ${pkg}`);
  });
});

describe('errors from assay mock read as they would from the real API', () => {
  it('an http system with a wrong outputPath: one group of errors whatever the response ids, and the run stops early (exit 3)', async () => {
    const server = await mock('openai', { chat: mockResponder() });
    const file = tmp.config(
      'wrong-path.yaml',
      `system:
  http:
    url: ${server.baseURL}/chat/completions
    body: { model: m, messages: [{ role: user, content: "{{input}}" }] }
    outputPath: choices.0.text
inputs: ["Say hello."]
samples: 20
concurrency: 1
validators:
  - { name: short, check: { type: words, max: 20 }, minSuccess: 0.9 }
`,
    );
    const json = join(tmp.dir(), 'wrong-path.json');
    const r = await cli('run', file, '--store', join(tmp.dir(), 'wrong-path.db'), '--json', json, '--no-progress');
    expect(r.err).toMatch(/stopped early: 5 samples in a row failed the same way \(invalid_response\)/);
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/error ×5 \(5 variants: ids or quoted answers differ\): .*outputPath choices\.0\.text is not in the answer/);
    expect(report(json).stats!.distinctErrors).toBe(1);
  });
});

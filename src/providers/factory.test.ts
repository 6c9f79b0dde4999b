import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { UsageError } from '../errors.js';
import { startMockOpenAI } from '../mock/openai.js';
import { CommandSystem } from './command.js';
import { createSystem, parseSystemConfig } from './factory.js';
import { HttpSystem } from './http.js';
import { ChatSystem } from './chat-system.js';
import { ReplaySystem } from './replay.js';
import { systemSchema } from './schemas.js';
import { SimulatedSystem } from './simulated.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-factory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ctx = { file: 'assay.yaml', baseDir: dir };
const signal = () => new AbortController().signal;

function usage(raw: unknown, c: Parameters<typeof createSystem>[1] = ctx): UsageError {
  try {
    createSystem(raw, c);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('expected a UsageError');
}

const ISSUE_EXAMPLE = `
system:
  simulated:
    seed: 42
    latencyMs: 5
    outputs:
      - { text: "It is a fine day and I am glad to see it.", weight: 9 }
      - { text: "It's fine, isn't it? Don't worry, I can't complain.", weight: 1 }
`;

describe('createSystem', () => {
  it('builds the simulated system of the issue example from YAML', async () => {
    const raw = (parseYaml(ISSUE_EXAMPLE) as { system: unknown }).system;
    const s = createSystem(raw, ctx);
    expect(s).toBeInstanceOf(SimulatedSystem);
    const g = await s.generate('Say hello.', { signal: signal(), inputIndex: 0, sample: 0 });
    expect(['It is a fine day and I am glad to see it.', "It's fine, isn't it? Don't worry, I can't complain."]).toContain(g.text);
  });

  it('names file, field path, what was expected and what was found', () => {
    const e = usage({ openai: { model: 42, baseURL: 'http://localhost:1/v1' } });
    expect(e.message).toBe('assay.yaml: system.openai.model: expected a string, found 42');
    expect(e.where).toEqual({ file: 'assay.yaml', path: 'system.openai.model' });
    expect(usage({ simulated: { outputs: [{ text: 'a' }, { text: 'b', weight: -1 }] } }).message).toBe(
      'assay.yaml: system.simulated.outputs[1].weight: expected a number > 0, found -1',
    );
    expect(usage({ simulated: { outputs: [], sed: 1 } }).message).toMatch(
      /system\.simulated\.outputs: expected at least 1 item\(s\), found \[\]\n.*system\.simulated\.sed: unknown key \(expected one of: seed, .*\); did you mean "seed"\?$/,
    );
    expect(usage({ simulated: { outputs: ['a'], errorKind: 'fatal' } }).message).toContain(
      'system.simulated.errorKind: expected one of server, rate_limit, timeout, connection, found "fatal"',
    );
    expect(usage({ simulated: { outputs: ['a'], latencyMs: 'fast' } }).message).toContain(
      'system.simulated.latencyMs: expected a number of ms or { mean, jitter }, found "fast"',
    );
    expect(usage({ simulated: { outputs: ['a'], seed: 1.5 } }).message).toContain('system.simulated.seed: expected an integer, found 1.5');
    expect(usage({ http: { url: 'ftp://x' } }).message).toContain('system.http.url: expected an http:// or https:// URL, found "ftp://x"');
    expect(usage({ http: { url: 'http://x', outputPath: 'a..b' } }).message).toContain(
      'system.http.outputPath: expected a JSON path such as data.choices[0].text',
    );
    expect(usage({ command: {} }).message).toBe('assay.yaml: system.command.command: expected a string, found nothing');
  });

  it('requires exactly one provider', () => {
    const one = 'expected exactly one of openai, anthropic, google, bedrock, azure, mistral, ollama, http, command, replay, simulated';
    expect(usage({}).message).toBe(`assay.yaml: system: ${one}, found no key`);
    expect(usage({ openai: {}, simulated: {} }).message).toBe(`assay.yaml: system: ${one}, found "openai", "simulated"`);
    expect(usage({ gpt4: {} }).message).toBe(`assay.yaml: system: ${one}, found "gpt4"`);
    expect(usage('simulated').message).toBe(`assay.yaml: system: ${one}, found "simulated"`);
    expect(usage(undefined).message).toBe(`assay.yaml: system: ${one}, found nothing`);
  });

  it('openai: takes the key from apiKeyEnv; an unset variable or no key for OpenAI itself is a usage error', async () => {
    const mock = await startMockOpenAI({ apiKey: 'sk-env', chat: () => ({ content: 'authorised' }) });
    try {
      const s = createSystem({ openai: { baseURL: mock.baseURL, model: 'm', apiKeyEnv: 'MY_KEY' } }, { ...ctx, env: { MY_KEY: 'sk-env' } });
      expect(s).toBeInstanceOf(ChatSystem);
      expect((await s.generate('x', { signal: signal(), inputIndex: 0, sample: 0 })).text).toBe('authorised');
    } finally {
      await mock.close();
    }
    expect(usage({ openai: { baseURL: 'http://localhost:1/v1', model: 'm', apiKeyEnv: 'MY_KEY' } }, { ...ctx, env: {} }).message).toMatch(
      /system\.openai\.apiKeyEnv: expected the environment variable MY_KEY to hold the API key, found it unset/,
    );
    expect(usage({ openai: { model: 'gpt-4o-mini' } }, { ...ctx, env: {} }).message).toMatch(/system\.openai: expected an API key in OPENAI_API_KEY/);
    // A local server needs no key.
    expect(createSystem({ openai: { baseURL: 'http://localhost:11434/v1', model: 'llama3' } }, { ...ctx, env: {} }).id).toBe('openai:llama3');
  });

  it('http: expands ${VAR} in headers and names the header when a variable is unset', () => {
    const s = createSystem(
      { http: { url: 'http://127.0.0.1:9/app', headers: { Authorization: 'Bearer ${API_TOKEN}' } } },
      { ...ctx, env: { API_TOKEN: 's3cret' } },
    );
    expect(s).toBeInstanceOf(HttpSystem);
    const req = (s as HttpSystem).request('hi');
    expect(new Headers(req.init.headers).get('authorization')).toBe('Bearer s3cret');
    expect(JSON.parse(String(req.init.body))).toEqual({ input: 'hi' });
    expect(usage({ http: { url: 'http://x', headers: { Authorization: 'Bearer ${API_TOKEN}' } } }, { ...ctx, env: {} }).message).toBe(
      'assay.yaml: system.http.headers.Authorization: expected the environment variable API_TOKEN (referenced as ${API_TOKEN}) to be set, found it unset',
    );
  });

  it('command: cwd resolves against the config folder, which is also the default', async () => {
    mkdirSync(join(dir, 'app'), { recursive: true });
    const pwd = ['-e', 'process.stdout.write(process.cwd())'];
    const inSub = createSystem({ command: { command: process.execPath, args: pwd, cwd: 'app' } }, ctx);
    expect(inSub).toBeInstanceOf(CommandSystem);
    expect((await inSub.generate('', { signal: signal(), inputIndex: 0, sample: 0 })).text).toBe(join(dir, 'app'));
    const atBase = createSystem({ command: { command: process.execPath, args: pwd, env: { N: 1 } } }, ctx);
    expect((await atBase.generate('', { signal: signal(), inputIndex: 0, sample: 0 })).text).toBe(dir);
  });

  it('replay: the file resolves against the config folder and is checked against the inputs', async () => {
    writeFileSync(join(dir, 'log.jsonl'), '{"input":"a","output":"A"}\n');
    writeFileSync(join(dir, 'idx.jsonl'), '{"i":0,"output":"A"}\n{"i":4,"output":"E"}\n');
    const s = createSystem({ replay: { file: 'log.jsonl' } }, { ...ctx, inputs: ['a', 'b'] });
    expect(s).toBeInstanceOf(ReplaySystem);
    expect((await s.generate('a', { signal: signal(), inputIndex: 0, sample: 0 })).text).toBe('A');
    expect(usage({ replay: { file: 'log.jsonl' } }, { ...ctx, inputs: ['x', 'y'] }).message).toMatch(
      /system\.replay\.file: expected recordings for the experiment's inputs, found none of its 2 inputs in .*log\.jsonl/,
    );
    expect(usage({ replay: { file: 'idx.jsonl' } }, { ...ctx, inputs: ['a', 'b'] }).message).toMatch(
      /idx\.jsonl:2: "i": expected an input index below 2 .* found 4/,
    );
    expect(usage({ replay: { file: 'missing.jsonl' } }).message).toMatch(/missing\.jsonl: cannot read the replay file/);
  });

  it('replay: refuses an empty file, and a row whose "i" and "input" disagree, naming the line', () => {
    writeFileSync(join(dir, 'empty.jsonl'), '\n\n');
    expect(usage({ replay: { file: 'empty.jsonl' } }, { ...ctx, inputs: ['a', 'b'] }).message).toMatch(
      /^assay\.yaml: system\.replay\.file: expected a replay file with at least one recorded row, found none in .*empty\.jsonl$/,
    );
    const inputs = ['Describe the weather.', 'Say hello.'];
    writeFileSync(
      join(dir, 'contra.jsonl'),
      '{"i":1,"input":"Say hello.","output":"ok"}\n{"i":0,"input":"Say hello.","output":"x"}\n{"i":0,"input":"Other","output":"y"}\n',
    );
    expect(usage({ replay: { file: 'contra.jsonl' } }, { ...ctx, inputs }).message).toMatch(
      /contra\.jsonl:2: "input": expected the input of "i": 0 \("Describe the weather\."\), found "Say hello\.", which is the input of "i": 1$/,
    );
    writeFileSync(join(dir, 'agree.jsonl'), '{"i":1,"input":"Say hello.","output":"ok"}\n');
    expect(createSystem({ replay: { file: 'agree.jsonl' } }, { ...ctx, inputs })).toBeInstanceOf(ReplaySystem);
  });

  it('http: an unset ${VAR} in url is named as such; a url that expands to no http URL is refused', () => {
    expect(usage({ http: { url: '${APP_URL}/chat' } }, { ...ctx, env: {} }).message).toBe(
      'assay.yaml: system.http.url: expected the environment variable APP_URL (referenced as ${APP_URL}) to be set, found it unset',
    );
    expect(createSystem({ http: { url: '${APP_URL}/chat' } }, { ...ctx, env: { APP_URL: 'http://127.0.0.1:9' } })).toBeInstanceOf(HttpSystem);
    expect(usage({ http: { url: '${APP_URL}/chat' } }, { ...ctx, env: { APP_URL: 'ftp://x' } }).message).toMatch(
      /system\.http\.url: expected an http:\/\/ or https:\/\/ URL, found "ftp:\/\/x\/chat"/,
    );
  });

  it('parseSystemConfig normalises shorthand; systemSchema yields a JSON Schema', () => {
    expect(parseSystemConfig({ simulated: { outputs: ['a'] } })).toEqual({ simulated: { outputs: [{ text: 'a', weight: 1 }] } });
    expect(parseSystemConfig({ http: { url: 'http://x', method: 'put' } })).toEqual({ http: { url: 'http://x', method: 'PUT' } });
    const schema = z.toJSONSchema(systemSchema, { io: 'input', unrepresentable: 'any' }) as { anyOf?: unknown[] };
    expect(schema.anyOf).toHaveLength(11);
  });
});

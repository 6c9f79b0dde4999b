import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { verifierFromConfig } from '../judge/config.js';
import { startMockBedrock } from '../mock/bedrock.js';
import { startMockGemini } from '../mock/gemini.js';
import { chatModelFromConfig, DEFAULT_KEY_ENV } from './chat-factory.js';
import { ChatSystem } from './chat-system.js';
import { judgeReply } from '../mock/judge.js';
import { createSystem } from './factory.js';

/** Every provider from config: keys from the environment variable it names (or its default), errors naming file and field. */
const ctx = { file: 'assay.yaml', baseDir: '.' };
function usage(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('chat providers from config', () => {
  it('builds each provider as a ChatSystem, a local baseURL needing no key', () => {
    for (const [name, extra] of [
      ['openai', {}],
      ['anthropic', {}],
      ['google', {}],
      ['mistral', {}],
      ['ollama', {}],
      ['azure', {}],
      ['bedrock', {}],
    ] as const) {
      const s = createSystem({ [name]: { model: 'm', baseURL: 'http://127.0.0.1:9/v1', ...extra } }, { ...ctx, env: {} });
      expect(s).toBeInstanceOf(ChatSystem);
      expect(s.id).toBe(`${name}:m`);
    }
    // Ollama's own service is local: no key and no baseURL needed.
    expect(createSystem({ ollama: { model: 'llama3.1' } }, { ...ctx, env: {} }).id).toBe('ollama:llama3.1');
  });

  it('names the missing key, variable, region or resource', () => {
    expect(usage(() => createSystem({ anthropic: { model: 'claude-x' } }, { ...ctx, env: {} }))).toBe(
      'assay.yaml: system.anthropic: expected an API key in ANTHROPIC_API_KEY (or set apiKeyEnv), or a baseURL of a local server; found neither',
    );
    expect(usage(() => createSystem({ google: { model: 'g' } }, { ...ctx, env: {} }))).toMatch(
      /system\.google: expected an API key in GOOGLE_GENERATIVE_AI_API_KEY/,
    );
    expect(usage(() => createSystem({ mistral: { model: 'g', apiKeyEnv: 'MY_MISTRAL' } }, { ...ctx, env: {} }))).toMatch(
      /system\.mistral\.apiKeyEnv: expected the environment variable MY_MISTRAL to hold the API key, found it unset/,
    );
    expect(usage(() => createSystem({ azure: { model: 'dep' } }, { ...ctx, env: { AZURE_API_KEY: 'k' } }))).toMatch(
      /system\.azure: expected resourceName .* or a baseURL, found neither/,
    );
    expect(createSystem({ azure: { model: 'dep', resourceName: 'res' } }, { ...ctx, env: { AZURE_API_KEY: 'k' } }).id).toBe('azure:dep');
    expect(usage(() => createSystem({ bedrock: { model: 'anthropic.claude-3-haiku' } }, { ...ctx, env: {} }))).toMatch(
      /system\.bedrock\.region: expected an AWS region/,
    );
    expect(usage(() => createSystem({ bedrock: { model: 'x', region: 'us-east-1' } }, { ...ctx, env: {} }))).toMatch(
      /system\.bedrock: expected AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/,
    );
    expect(createSystem({ bedrock: { model: 'x' } }, { ...ctx, env: { AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' } }).id).toBe(
      'bedrock:x',
    );
    expect(usage(() => createSystem({ bedrock: { model: 'x', region: 'mars' } }, ctx))).toMatch(
      /system\.bedrock\.region: expected an AWS region such as us-east-1/,
    );
    expect(usage(() => createSystem({ anthropic: { model: 'x', temprature: 1 } }, ctx))).toMatch(
      /system\.anthropic\.temprature: unknown key \(expected one of: model, .*\); did you mean "temperature"\?$/,
    );
    expect(usage(() => createSystem({ anthropic: { model: 'x', baseURL: 'http://x', headers: { 'x-team': '${TEAM}' } } }, { ...ctx, env: {} }))).toMatch(
      /system\.anthropic\.headers\.x-team: expected the environment variable TEAM/,
    );
    expect(DEFAULT_KEY_ENV.azure).toBe('AZURE_API_KEY');
  });

  it('signs Bedrock requests with the credentials from the environment', async () => {
    const mock = await startMockBedrock({ apiKey: 'AKIAEXAMPLE', chat: () => ({ content: 'signed' }) });
    try {
      const { model } = chatModelFromConfig({ bedrock: { model: 'amazon.nova-lite-v1:0', baseURL: mock.baseURL, region: 'us-west-2' } }, 'system', {
        env: { AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' },
      });
      expect((await model.generate({ messages: [{ role: 'user', content: 'hi' }] }, { signal: new AbortController().signal })).text).toBe('signed');
      expect(String(mock.requests[0].headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE\/\d{8}\/us-west-2\/bedrock\/aws4_request/);
    } finally {
      await mock.close();
    }
  });

  it('judges on any provider from a verifier config; a mode the provider cannot do is a usage error', async () => {
    const mock = await startMockGemini({ apiKey: 'gk', chat: (view) => ({ content: judgeReply(view, 'FAIL', ['Too long.']) }) });
    try {
      const v = verifierFromConfig(
        { name: 'brief', minSuccess: 0.9, instructions: 'Be brief.', judge: { google: { model: 'gemini-2.5-flash', baseURL: mock.baseURL, temperature: 0 } } },
        { env: { GOOGLE_GENERATIVE_AI_API_KEY: 'gk' } },
      );
      expect(v.judge.id).toBe(`google:gemini-2.5-flash@${mock.baseURL}`);
      const r = await v.evaluate!('A long answer.', 'q', new AbortController().signal);
      expect(r).toMatchObject({ outcome: 'fail', reasons: ['Too long.'] });
      expect(r.costUsd).toBeGreaterThan(0); // gemini-2.5-flash is in the price table
    } finally {
      await mock.close();
    }
    const base = { name: 'v', minSuccess: 0.9, instructions: 'x' };
    expect(
      usage(() => verifierFromConfig({ ...base, judge: { ollama: { model: 'llama3.1', mode: 'tool' } } }, { file: 'exp.yaml', path: 'verifiers[0]' })),
    ).toMatch(/exp\.yaml: verifiers\[0\]\.judge\.ollama\.mode: expected json_schema, json_object or text \(ollama cannot be forced to call a tool\)/);
    expect(
      usage(() => verifierFromConfig({ ...base, judge: { anthropic: { model: 'c', system: 'x' } } }, { file: 'exp.yaml', path: 'verifiers.0', env: {} })),
    ).toMatch(/verifiers\.0\.judge\.anthropic\.system: unknown key \(expected one of: model, baseURL, .*, mode, retries, attemptTimeoutMs\)$/);
    expect(usage(() => verifierFromConfig({ ...base, judge: { gpt: { model: 'c' } } }, { file: 'exp.yaml', path: 'verifiers.0' }))).toMatch(
      /verifiers\.0\.judge: expected exactly one of openai, anthropic, google/,
    );
  });
});

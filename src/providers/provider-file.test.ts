import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { startMockAnthropic } from '../mock/anthropic.js';
import type { MockServer } from '../mock/types.js';
import { chatModelFromFile, readProviderFile } from './provider-file.js';

/** A provider object in a file named by a flag (--llm, --judge): read, parsed, built; every problem names the flag and the file. */
const dir = mkdtempSync(join(tmpdir(), 'assay-provider-file-'));
let anthropic: MockServer;
beforeAll(async () => {
  anthropic = await startMockAnthropic({ chat: (r) => ({ content: `you said: ${r.messages.at(-1)?.content}` }) });
});
afterAll(async () => {
  await anthropic.close();
  rmSync(dir, { recursive: true, force: true });
});

const file = (name: string, text: string) => {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
};

async function usageError(p: Promise<unknown>): Promise<UsageError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UsageError);
  return err as UsageError;
}

describe('provider files', () => {
  it('YAML and JSON files become a ChatModel that talks to the provider named in them', async () => {
    const yaml = file('a.yaml', `anthropic:\n  model: claude-3-5-haiku-20241022\n  baseURL: "${anthropic.baseURL}"\n  maxTokens: 64\n`);
    const { model, name, options } = await chatModelFromFile(yaml, '--llm', { env: {} });
    expect([model.id, name, options.maxTokens]).toEqual(['anthropic:claude-3-5-haiku-20241022', 'anthropic', 64]);
    const r = await model.generate({ messages: [{ role: 'user', content: 'hello' }] }, { signal: new AbortController().signal });
    expect(r.text).toBe('you said: hello');
    expect(anthropic.requests.at(-1)?.path).toBe('/v1/messages');
    const json = file('a.json', JSON.stringify({ anthropic: { model: 'claude-x', baseURL: anthropic.baseURL } }));
    expect((await chatModelFromFile(json, '--judge', { env: {} })).model.id).toBe('anthropic:claude-x');
  });

  it('an unreadable file, bad YAML or JSON, an unknown provider or a bad field is a usage error naming the flag and the file', async () => {
    const missing = join(dir, 'missing.yaml');
    let e = await usageError(readProviderFile(missing, '--llm'));
    expect(e.message).toMatch(/^--llm: cannot read .*missing\.yaml: ENOENT/);
    expect(e.where).toEqual({ file: missing, path: '--llm' });
    const badYaml = file('bad.yaml', 'anthropic:\n  model: [unclosed\n');
    e = await usageError(readProviderFile(badYaml, '--judge'));
    expect(e.message).toMatch(/^--judge: .*bad\.yaml is not valid YAML: /);
    e = await usageError(readProviderFile(file('bad.json', '{"openai": '), '--llm'));
    expect(e.message).toMatch(/^--llm: .*bad\.json is not valid JSON: /);
    const unknown = file('gpt.yaml', 'gpt:\n  model: x\n');
    e = await usageError(chatModelFromFile(unknown, '--llm', { env: {} }));
    expect(e.message).toMatch(/gpt\.yaml: --llm: expected exactly one of openai, anthropic, .*found "gpt"/);
    e = await usageError(chatModelFromFile(file('url.yaml', 'anthropic:\n  model: x\n  baseURL: nowhere\n'), '--llm', { env: {} }));
    expect(e.message).toMatch(/url\.yaml: --llm\.anthropic\.baseURL: expected a URL/);
    e = await usageError(chatModelFromFile(file('nokey.yaml', 'anthropic:\n  model: x\n'), '--llm', { env: {} }));
    expect(e.message).toMatch(/nokey\.yaml: --llm\.anthropic: expected an API key in ANTHROPIC_API_KEY/);
  });
});

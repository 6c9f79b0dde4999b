import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { startMockAnthropic } from '../mock/anthropic.js';
import { startMockOllama } from '../mock/ollama.js';
import type { MockReply, MockServer } from '../mock/types.js';
import { UsageError } from '../errors.js';
import { llmFromOptions, usageLine } from './llm.js';

/** SPADE's LLM on any provider: chosen by --llm (a provider file) or --provider, retried in one place, its spend added up. */
const dir = mkdtempSync(join(tmpdir(), 'assay-spade-llm-'));
let anthropic: MockServer;
const replies: MockReply[] = [];
beforeAll(async () => {
  anthropic = await startMockAnthropic({
    chat: () => replies.shift() ?? { content: '{"items":["a","b"]}', usage: { prompt_tokens: 1000, completion_tokens: 200 } },
  });
});
afterAll(async () => {
  await anthropic.close();
  rmSync(dir, { recursive: true, force: true });
});

const items = z.object({ items: z.array(z.string()) });

describe('SPADE LLM on any provider', () => {
  it('--llm: a provider file as under system:, structured output, usage and cost added up, transient errors retried', async () => {
    const file = join(dir, 'llm.yaml');
    writeFileSync(file, `anthropic:\n  model: claude-3-5-haiku-20241022\n  baseURL: "${anthropic.baseURL}"\n`);
    const llm = (await llmFromOptions({ config: file }, {}))!;
    expect(llm.model).toBe('anthropic:claude-3-5-haiku-20241022');
    replies.push({ status: 529 });
    expect(await llm.json('items', items, 'List.', 'Two letters.')).toEqual({ items: ['a', 'b'] });
    // The failed attempt reported no tokens; the answer did, priced at the table's claude-3-5-haiku ($0.80 / $4).
    expect(llm.usage).toEqual({ calls: 1, promptTokens: 1000, completionTokens: 200, costUsd: (1000 * 0.8 + 200 * 4) / 1e6, unpricedCalls: 0 });
    expect(usageLine(llm)).toBe('LLM usage (anthropic:claude-3-5-haiku-20241022): 1 calls, 1000 prompt / 200 completion tokens, $0.0016');
    replies.push({ content: '{"items": 3}' });
    await expect(llm.json('items', items, 'List.', 'x')).rejects.toMatchObject({ kind: 'invalid_response' });
  });

  it("--llm: the file's temperature and maxTokens reach every call, as they would under system:", async () => {
    const file = join(dir, 'llm-tuned.yaml');
    // A model the AI SDK knows to take sampling parameters (it drops them for unknown claude-* ids).
    writeFileSync(file, `anthropic:\n  model: claude-sonnet-4-5\n  baseURL: "${anthropic.baseURL}"\n  temperature: 0.1\n  maxTokens: 321\n`);
    const llm = (await llmFromOptions({ config: file }, {}))!;
    const before = anthropic.requests.length;
    await llm.json('items', items, 'List.', 'Two letters.');
    const body = anthropic.requests[before].body as { temperature?: number; max_tokens?: number };
    expect(body.temperature).toBe(0.1);
    expect(body.max_tokens).toBe(321);
  });

  it('--provider with --model and --base-url; unknown providers and missing models are usage errors', async () => {
    const ollama = await startMockOllama({ chat: () => ({ content: 'plain words' }) });
    try {
      const llm = (await llmFromOptions({ provider: 'ollama', model: 'llama3.1', baseURL: ollama.baseURL }, {}))!;
      expect(await llm.text('Be brief.', 'Hi')).toBe('plain words');
      expect(llm.usage.costUsd).toBe(0); // a local model
    } finally {
      await ollama.close();
    }
    await expect(llmFromOptions({ provider: 'gpt', model: 'x' }, {})).rejects.toThrow(/--provider: expected one of openai, anthropic/);
    await expect(llmFromOptions({ provider: 'anthropic' }, {})).rejects.toThrow(/expected a model/);
    await expect(llmFromOptions({ provider: 'anthropic', model: 'claude-x' }, {})).rejects.toThrow(/expected an API key in ANTHROPIC_API_KEY/);
    await expect(llmFromOptions({ config: join(dir, 'missing.yaml') }, {})).rejects.toBeInstanceOf(UsageError);
    expect(await llmFromOptions({}, {})).toBeNull();
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startMock, type MockProvider } from '../mock/index.js';
import { loadMockRules, mockResponder } from '../mock/rules.js';
import type { JsonReport } from '../report/json.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

/**
 * examples/agent/agent.yaml as written, run by `assay run` against `assay mock` with the example's rules, in each of
 * the seven wire formats: the same support agent, the same tool calls, the same verdicts. Only the provider key and
 * the mock's address change.
 */

const tmp = useConfigDir('assay-agent-example-');
const EXAMPLE = 'examples/agent/agent.yaml';
const RULES = loadMockRules('examples/agent/mock-rules.yaml');
const PROVIDERS: MockProvider[] = ['openai', 'anthropic', 'google', 'bedrock', 'azure', 'mistral', 'ollama'];

function configFor(provider: MockProvider, baseURL: string): string {
  const doc = parse(readFileSync(EXAMPLE, 'utf8')) as { system: { openai: Record<string, unknown> } };
  const options = { ...doc.system.openai, baseURL };
  return stringify({ ...doc, system: { [provider]: options } });
}

describe('examples/agent/agent.yaml with assay run against assay mock', () => {
  it.each(PROVIDERS)('%s: the agent looks orders up, refunds the undelivered A3 (the bug), and the run fails on that rule alone', async (provider) => {
    const server = await startMock(provider, { chat: mockResponder({ rules: RULES }) });
    try {
      const file = tmp.config(`${provider}.yaml`, configFor(provider, server.baseURL));
      const json = join(tmp.dir(), `${provider}.json`);
      const r = await captureCli(['run', file, '--store', join(tmp.dir(), `${provider}.db`), '--json', json, '--no-progress']);
      expect(r.code, r.err).toBe(1);
      const report = JSON.parse(readFileSync(json, 'utf8')) as JsonReport;
      const byName = Object.fromEntries(report.validators.map((v) => [v.name, v]));
      // 3 inputs × 20 samples: every rule decided, only the refund rule failing (A3 is refunded every time).
      expect(byName['refunds only delivered orders']).toMatchObject({ verdict: 'fail', counts: { pass: 40, fail: 20, error: 0 } });
      for (const name of ['looks the order up', 'never closes accounts', 'valid tool arguments', 'finishes in 4 steps'])
        expect(byName[name], name).toMatchObject({ verdict: 'pass', counts: { pass: 60, fail: 0, error: 0 } });
      expect(report.stats!.agent).toMatchObject({ toolCalls: 100 });
      expect(r.out).toContain('agent: 60 runs with steps · steps mean 2.7, max 3 · 100 tool calls (lookup_order 60, issue_refund 40)');
    } finally {
      await server.close();
    }
  });
});

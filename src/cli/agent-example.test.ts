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

/** The example with its provider keys (the agent's, and the simulated user's) and the mock's address swapped. */
function configFor(provider: MockProvider, baseURL: string, example = EXAMPLE): string {
  const doc = parse(readFileSync(example, 'utf8')) as { system: { openai: Record<string, unknown> & { conversation?: { user?: { model: unknown } } } } };
  const options = { ...doc.system.openai, baseURL };
  const user = options.conversation?.user;
  if (user) {
    const model = (user.model as { openai: Record<string, unknown> }).openai;
    options.conversation = { ...options.conversation, user: { ...user, model: { [provider]: { ...model, baseURL } } } };
  }
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
      // docs/agents.md shows this run's table and summary lines as the terminal prints them.
      const doc = readFileSync('docs/agents.md', 'utf8');
      const shown = doc.slice(doc.indexOf('validator                        rate'), doc.indexOf('FAIL: 1 failed of 5 validator(s)')).split('\n');
      for (const line of shown.filter((l) => l && l !== '…')) expect(r.out).toContain(line);
    } finally {
      await server.close();
    }
  });
});

describe('examples/agent/conversation.yaml: the agent and a simulated customer, both played by assay mock', () => {
  it.each(PROVIDERS)('%s: the customer gives the order number when asked and stops once answered; every rule passes', async (provider) => {
    const server = await startMock(provider, { chat: mockResponder({ rules: RULES }) });
    try {
      const file = tmp.config(`${provider}-conversation.yaml`, configFor(provider, server.baseURL, 'examples/agent/conversation.yaml'));
      const json = join(tmp.dir(), `${provider}-conversation.json`);
      const store = join(tmp.dir(), `${provider}-conversation.db`);
      const r = await captureCli(['run', file, '--store', store, '--json', json, '--no-progress']);
      expect(r.code, r.out + r.err).toBe(0);
      const report = JSON.parse(readFileSync(json, 'utf8')) as JsonReport;
      for (const v of report.validators) expect(v, v.name).toMatchObject({ verdict: 'pass', counts: { pass: 40, fail: 0, error: 0 } });
      expect(report.stats!.agent!.turns).toEqual({ conversations: 40, mean: 1.5, max: 2, cutByLimit: 0 });
      expect(r.out).toContain('agent: 40 runs with steps · 40 conversations, turns mean 1.5, max 2 · steps mean 2.5, max 3');
      // The first input needs two turns (the customer is asked for the number), the second one.
      const shown = await captureCli(['show', 'latest', '--store', store, '--sample', '1,1']);
      // Each step's finish reason is the provider's own words (stop, end_turn, STOP, …).
      expect(shown.out).toMatch(
        /step 1 \([^)]*\):\n {2}user: Hi, my parcel never came\.\n {2}text: Which order is it about\? Please give me its number \(such as A1\)\./,
      );
      expect(shown.out).toContain('  user: It is order A1.\n  call lookup_order({"orderId":"A1"}) → shipped, arriving tomorrow');
      expect(shown.out).toContain('final answer: Your order is shipped, arriving tomorrow.');
    } finally {
      await server.close();
    }
  });
});

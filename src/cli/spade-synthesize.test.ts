import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMock } from '../mock/index.js';
import { mockResponder, type MockRule } from '../mock/rules.js';
import type { MockServer } from '../mock/types.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

/** `assay spade synthesize` that produces no candidate says why and what to try, and exits 1 (issue 16, item 5). */

const tmp = useConfigDir('assay-spade-synth-');
const ENV = ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'ASSAY_SPADE_MODEL'] as const;
const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
let server: MockServer | undefined;
beforeEach(() => {
  for (const k of ENV) delete process.env[k];
});
afterEach(async () => {
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  await server?.close();
  server = undefined;
});

async function mockWith(rules: MockRule[] = []): Promise<MockServer> {
  server = await startMock('openai', { chat: mockResponder({ rules }) });
  return server;
}

const versions = () => tmp.config('versions.json', JSON.stringify(['Summarise the call.', 'Summarise the call. Use at most 3 bullets.']));
const criteria = {
  match: '+ Use at most 3 bullets.',
  reply: JSON.stringify({ criteria: [{ criterion: 'at most 3 bullets', category: 'Quantity Instruction', vague: false }] }),
};
const assertion = (a: Record<string, unknown>) => ({
  match: 'Criterion (',
  reply: JSON.stringify({ assertions: [{ name: 'a', description: 'd', kind: 'check', check: null, question: null, source: null, ...a }] }),
});

async function synthesize(name: string, ...extra: string[]) {
  const out = join(tmp.dir(), `${name}.json`);
  const r = await captureCli(['spade', 'synthesize', versions(), '--out', out, '--base-url', server!.baseURL, '--model', 'mock', ...extra]);
  return { ...r, file: out };
}

describe('spade synthesize without a candidate', () => {
  it('assay mock without rules: no criteria for any delta → says so, points to --rules, writes the empty file, exit 1', async () => {
    await mockWith();
    const r = await synthesize('no-rules');
    expect(r.code, r.out + r.err).toBe(1);
    expect(r.out).toMatch(/0 criteria, 0 candidates, 0 rejected → /);
    expect(r.out).toMatch(
      /no candidate assertions: the LLM listed no criteria for any of the 2 deltas; try a stronger model \(--model, --llm\); with assay mock.*--rules/,
    );
    expect(r.out).toMatch(/docs\/spade\.md, "Offline with assay mock"/);
    expect(JSON.parse(readFileSync(r.file, 'utf8'))).toMatchObject({ criteria: [], candidates: [], rejected: [], errors: [] });
  });

  it('criteria, but every assertion rejected: the reasons, then why, exit 1', async () => {
    await mockWith([criteria, assertion({ kind: 'js', source: 'o => {' })]);
    const r = await synthesize('rejected');
    expect(r.code, r.out + r.err).toBe(1);
    expect(r.out).toMatch(/1 criteria, 0 candidates, 1 rejected/);
    expect(r.out).toMatch(/rejected a: JavaScript does not compile in the sandbox/);
    expect(r.out).toMatch(
      /no candidate assertions: the LLM listed 1 criteria, but all 1 assertions it wrote were rejected \(reasons above\); try a stronger model/,
    );
  });

  it('criteria, but no assertion written for any: exit 1', async () => {
    await mockWith([criteria, { match: 'Criterion (', reply: '{"assertions": []}' }]);
    const r = await synthesize('none-written');
    expect(r.code, r.out + r.err).toBe(1);
    expect(r.out).toMatch(/no candidate assertions: the LLM listed 1 criteria but wrote no assertion for any of them; try/);
  });

  it('a candidate: exit 0 and no such message; failed calls: exit 3, the errors first', async () => {
    await mockWith([criteria, assertion({ check: JSON.stringify({ type: 'words', max: 50 }) })]);
    const ok = await synthesize('one');
    expect(ok.code, ok.out + ok.err).toBe(0);
    expect(ok.out).toMatch(/1 criteria, 1 candidates, 0 rejected/);
    expect(ok.out).not.toMatch(/no candidate/);
    await server!.close();
    await mockWith([{ match: 'New prompt version', status: 400 }]);
    const failed = await synthesize('failed');
    expect(failed.code, failed.out + failed.err).toBe(3);
    expect(failed.out).toMatch(/error \(criteria, delta 0\)/);
    expect(failed.out).toMatch(/no candidate assertions: the LLM calls failed \(2 errors above\)/);
  });

  it('a history with no delta that adds or removes a sentence is refused before any LLM call (exit 2, naming the file and --no-initial)', async () => {
    const s = await mockWith();
    const one = tmp.config('one.json', JSON.stringify(['Summarise the call.']));
    const r = await captureCli(['spade', 'synthesize', one, '--no-initial', '--out', join(tmp.dir(), 'never.json'), '--base-url', s.baseURL, '--model', 'm']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /one\.json: expected a prompt delta that adds or removes a sentence, found no delta \(1 version, --no-initial\); leave out --no-initial/,
    );
    const same = tmp.config('same.json', JSON.stringify(['A. B.', 'B. A.']));
    const r2 = await captureCli(['spade', 'synthesize', same, '--no-initial', '--out', join(tmp.dir(), 'never.json'), '--base-url', s.baseURL, '--model', 'm']);
    expect(r2.code).toBe(2);
    expect(r2.err).toMatch(
      /same\.json: expected a prompt delta that adds or removes a sentence, found 1 delta, none adding or removing a sentence \(2 versions, --no-initial\)/,
    );
    expect(s.requests).toHaveLength(0);
  });
});

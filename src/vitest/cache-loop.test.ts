import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../mock/index.js';
import type { MockServer } from '../mock/types.js';
import { openSqliteStore } from '../store/sqlite.js';
import { fixtureProject, SRC, type FixtureProject } from './testing/project.js';

// The test-driven loop with the cache on (issue 26, item 1): edit the system file, re-run, and the block judges
// the code as it is now. The cache keeps what is deterministic given its key — the request sent to a model —
// never a function's outputs (unless the user names a key they control); a replay says so and is not stored.

const TEST = `import { describeReliability } from '${SRC.vitest}';
import { bot } from './bot.js';

describeReliability('bot', {
  inputs: ['Is it raining?', 'Is it sunny?'],
  samples: 20,
  cache: true,
  system: bot,
  validators: [{ name: 'no-hedging', check: { type: 'max-count', pattern: 'maybe|perhaps', flags: 'i', max: 0 }, minSuccess: 0.8 }],
});
`;

/** A plain function: its answer is its code. */
const plainBot = (answer: string) => `export async function bot(_q: unknown): Promise<string> {
  return ${JSON.stringify(answer)};
}
`;

/** A function calling a model through the AI SDK, wrapped with assay's cache. */
const modelBot = (system: string, mockURL: string) => `import { createOpenAI } from '@ai-sdk/openai';
import { withAssayCache } from '${SRC.vitest}';

const model = withAssayCache(createOpenAI({ baseURL: ${JSON.stringify(mockURL)}, apiKey: 'test-key' }).chat('bot'));

export async function bot(q: unknown): Promise<string> {
  const r = await model.doGenerate({
    prompt: [
      { role: 'system', content: ${JSON.stringify(system)} },
      { role: 'user', content: [{ type: 'text', text: String(q) }] },
    ],
  });
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}
`;

let project: FixtureProject;
let mock: MockServer;
let calls = 0;

beforeAll(async () => {
  mock = await startMock('openai', {
    chat: (req) => {
      calls++;
      // Each call its own answer (a counter), so replayed samples are told apart from one answer repeated.
      return { content: (req.system ?? '').includes('Be direct') ? `Yes (${calls}).` : `Maybe (${calls}).` };
    },
  });
  project = fixtureProject('assay-cache-loop-');
  project.write('bot.test.ts', TEST);
});
afterAll(async () => {
  project?.remove();
  await mock?.close();
});

const env = () => ({ ASSAY_STORE: join(project.dir, 'runs.db') });
const verdict = (r: Awaited<ReturnType<FixtureProject['run']>>) => r.tests.get('bot no-hedging');
async function runsStored(): Promise<number> {
  await using store = openSqliteStore(join(project.dir, 'runs.db'), { readonly: true });
  return (await store.runs.list()).length;
}

describe('the edit / re-run loop with the cache on', () => {
  it('judges a plain function as it is now after its file changes (its outputs are never replayed)', async () => {
    project.write('bot.ts', plainBot('Maybe, perhaps.'));
    const first = await project.run(['bot.test.ts'], env());
    expect(verdict(first)?.status, first.stdout + first.stderr).toBe('failed');
    project.write('bot.ts', plainBot('Yes.'));
    const second = await project.run(['bot.test.ts'], env());
    expect(verdict(second)?.status, second.stdout + second.stderr).toBe('passed');
    project.write('bot.ts', plainBot('Perhaps.'));
    const third = await project.run(['bot.test.ts'], env());
    expect(verdict(third)?.status, third.stdout).toBe('failed');
    expect(third.stdout).not.toMatch(/replayed from the cache/);
    expect(third.stdout).toContain('cache on: 0 call(s), 0 answer(s) from the cache; nothing cacheable was called');
  });

  it("caches the AI SDK model's requests: a re-run replays them (saying so, from when, not stored as a run); a changed prompt calls again", async () => {
    const before = await runsStored();
    project.write('bot.ts', modelBot('Answer the question.', mock.baseURL));
    const first = await project.run(['bot.test.ts'], env());
    expect(verdict(first)?.status, first.stdout + first.stderr).toBe('failed');
    // 2 inputs × 20 samples: 40 calls, none collapsed into another.
    expect(calls).toBe(40);
    expect(await runsStored()).toBe(before + 1);

    const replay = await project.run(['bot.test.ts'], env());
    expect(calls).toBe(40);
    expect(verdict(replay)?.status).toBe('failed');
    const message = verdict(replay)!.failureMessages[0];
    expect(message).toMatch(
      /\n {2}replayed from the cache: 40 of 40 answers, stored \d{4}-\d\d-\d\d \d\d:\d\d:\d\d.* UTC; no call made, so this replay is not stored as a new run/,
    );
    expect(replay.stdout).toMatch(/cache on: 0 call\(s\), 40 answer\(s\) from the cache \(stored \d{4}-/);
    expect(await runsStored()).toBe(before + 1);

    project.write('bot.ts', modelBot('Be direct: answer yes or no.', mock.baseURL));
    const fixed = await project.run(['bot.test.ts'], env());
    expect(verdict(fixed)?.status, fixed.stdout + fixed.stderr).toBe('passed');
    expect(calls).toBe(80);
    expect(await runsStored()).toBe(before + 2);
  });

  it("replays a function's outputs only under a key the user controls (cache: { key })", async () => {
    project.write('keyed.test.ts', TEST.replace("describeReliability('bot'", "describeReliability('keyed'").replace('cache: true', "cache: { key: 'bot v1' }"));
    project.write('bot.ts', plainBot('Yes.'));
    const first = await project.run(['keyed.test.ts'], env());
    expect(first.tests.get('keyed no-hedging')?.status, first.stdout + first.stderr).toBe('passed');
    project.write('bot.ts', plainBot('Maybe.'));
    // Same key: the user said the outputs still hold; they are replayed, and the message says so.
    const replay = await project.run(['keyed.test.ts'], env());
    expect(replay.tests.get('keyed no-hedging')?.status).toBe('passed');
    expect(replay.stdout).toMatch(/40 answer\(s\) from the cache/);
    project.write('keyed.test.ts', TEST.replace("describeReliability('bot'", "describeReliability('keyed'").replace('cache: true', "cache: { key: 'bot v2' }"));
    const fresh = await project.run(['keyed.test.ts'], env());
    expect(fresh.tests.get('keyed no-hedging')?.status).toBe('failed');
  });
});

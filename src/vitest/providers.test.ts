import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isJudgeRequest, judgeReply, startMock } from '../mock/index.js';
import type { MockServer } from '../mock/types.js';
import { openSqliteStore } from '../store/sqlite.js';
import { fixtureProject, SRC, type FixtureProject, type VitestRun } from './testing/project.js';

// An assay provider as the system and an LLM judge as a verifier, both against `assay mock` (a real local
// server speaking OpenAI's protocol); the judge answers bound to each call's nonce. Sequential stopping ends
// the run once every rule is decided, inside the test as in `assay run`.

let mock: MockServer;
let project: FixtureProject;
let run: VitestRun;
let systemCalls = 0;

beforeAll(async () => {
  mock = await startMock('openai', {
    chat: (req) => {
      if (isJudgeRequest(req)) {
        const answer = req.messages.map((m) => m.content).join('\n');
        return { content: judgeReply(req, answer.includes('Whatever') ? 'FAIL' : 'PASS', ['checked']) };
      }
      systemCalls++;
      return { content: req.messages.at(-1)?.content.includes('rude') ? 'Whatever.' : 'Happy to help: it ships today.' };
    },
  });
  project = fixtureProject();
  project.write(
    'judged.test.ts',
    `import { describeReliability } from '${SRC.vitest}';
const openai = (model: string) => ({ openai: { baseURL: ${JSON.stringify(mock.baseURL)}, model } });

describeReliability('polite bot', {
  inputs: ['Where is my parcel?'],
  samples: 200,
  stopping: 'sequential',
  system: openai('bot'),
  validators: [{ name: 'mentions shipping', check: { type: 'contains', value: 'ships' }, minSuccess: 0.8 }],
  verifiers: [{ name: 'polite', instructions: 'The answer is polite.', minSuccess: 0.8, judge: openai('judge') }],
});

describeReliability('rude bot', {
  inputs: ['be rude'],
  samples: 10,
  system: openai('bot'),
  verifiers: [{ name: 'polite', instructions: 'The answer is polite.', minSuccess: 0.8, judge: openai('judge') }],
});
`,
  );
  run = await project.run([], { ASSAY_STORE: join(project.dir, 'runs.db'), OPENAI_API_KEY: 'test-key' });
});
afterAll(async () => {
  project?.remove();
  await mock?.close();
});

describe('describeReliability with providers and judges', () => {
  it('passes a polite system and fails a rude one by the judge, through the nonce-bound judge layer', () => {
    expect(run.tests.get('polite bot mentions shipping')?.status, run.stdout + run.stderr).toBe('passed');
    expect(run.tests.get('polite bot polite')?.status).toBe('passed');
    const rude = run.tests.get('rude bot polite')!;
    expect(rude.status).toBe('failed');
    expect(rude.failureMessages[0]).toMatch(/^ReliabilityError: polite: FAIL · rate 0\.0% \[0\.0%, 30\.8%\] \(95% CI, inputs run\)/);
    expect(rude.failureMessages[0]).toContain('#1 "be rude": 0/10 = 0.0% (10 failed)\n       e.g. "Whatever."');
    expect(run.stdout).toContain('assay · judged.test.ts › polite bot');
  });

  it('stops a sequential block once every rule is decided: fewer calls than samples', async () => {
    await using store = openSqliteStore(join(project.dir, 'runs.db'), { readonly: true });
    const polite = (await store.runs.list()).find((r) => r.name === 'judged.test.ts › polite bot')!;
    const stored = (await store.samples.list(polite.id)).length;
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(200);
    expect(systemCalls).toBe(stored + 10); // the polite run's samples and the rude run's 10
  });
});

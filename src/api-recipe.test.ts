import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TSX } from './cli/testing/process.js';
import { isJudgeRequest, judgeReply, startMock } from './mock/index.js';
import type { MockServer } from './mock/types.js';

// docs/api.md's recipe, run as written (its import pointed at this checkout) against configs that use every
// config feature `assay run` accepts. Before the one assembly (issue 24) the recipe built verifiers with
// `verifierFromConfig(experiment.verifierConfigs[i])`, which threw `verifier.maxErrorShare: unknown option`
// for a verifier with maxErrorShare or under a run-level perInput, and dropped every rateLimit.

const ROOT = join(import.meta.dirname, '..');
const run = promisify(execFile);

function recipe(): string {
  const doc = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');
  const code = /```ts\n([\s\S]*?)\n```/.exec(doc)![1];
  expect(code).toContain("from 'assay'");
  return code.replace("from 'assay'", `from ${JSON.stringify(join(ROOT, 'src', 'index.ts'))}`);
}

/** What the recipe's variables hold at its end, printed by a line the test appends. */
interface Seen {
  status: string;
  code: number;
  rules: { name: string; verdict: string; perInput: boolean; sequential: boolean }[];
}
const REPORT = `
console.log('SEEN ' + JSON.stringify({
  status,
  code: process.exitCode,
  rules: summary.validators.map((v) => ({ name: v.name, verdict: v.verdict, perInput: v.perInput !== undefined, sequential: v.sequential !== undefined })),
}));`;

let mock: MockServer;
let dir: string;
let calls = { system: 0, judge: 0 };
beforeAll(async () => {
  mock = await startMock('openai', {
    chat: (req) => {
      if (isJudgeRequest(req)) {
        calls.judge++;
        return { content: judgeReply(req, 'PASS', ['polite']) };
      }
      calls.system++;
      return { content: 'Happy to help: it ships today.' };
    },
  });
  dir = mkdtempSync(join(tmpdir(), 'assay-api-recipe-'));
  writeFileSync(join(dir, 'recipe.mts'), recipe() + REPORT);
});
afterAll(async () => {
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the recipe in `dir` on `config` (as assay.yaml); what it ended with. */
async function runRecipe(config: string): Promise<Seen> {
  writeFileSync(join(dir, 'assay.yaml'), config);
  calls = { system: 0, judge: 0 };
  const r = await run(process.execPath, ['--import', TSX, 'recipe.mts'], { cwd: dir, env: { ...process.env, OPENAI_API_KEY: 'test' } }).catch(
    (err: { stdout?: string; stderr?: string; code?: number }) => err,
  );
  const line = (r.stdout ?? '').split('\n').find((l) => l.startsWith('SEEN '));
  if (!line) throw new Error(`the recipe printed no summary (exit ${(r as { code?: number }).code}): ${r.stderr}`);
  return JSON.parse(line.slice(5)) as Seen;
}

const system = (extra = '') => `system:
  openai: { model: bot, baseURL: "BASE" }${extra}
`;
const withBase = (yaml: string) => yaml.replaceAll('BASE', mock.baseURL);
const judge = (extra = '') => `{ openai: { model: judge, baseURL: "BASE" }${extra} }`;

describe("docs/api.md's recipe runs for every config feature the CLI accepts", () => {
  it('a verifier with maxErrorShare, rate limits on the system and the judge, prices', async () => {
    const seen = await runRecipe(
      withBase(`name: recipe-limits
${system('\n  rateLimit: { requestsPerMinute: 6000 }')}inputs: ["Where is my parcel?", "When does it ship?"]
samples: 3
prices: { bot: { inputPerMTok: 1, outputPerMTok: 2 } }
validators:
  - { name: ships, check: { type: contains, value: ships }, minSuccess: 0.5 }
verifiers:
  - name: polite
    instructions: The answer is polite.
    minSuccess: 0.5
    maxErrorShare: 0.2
    judge: ${judge(', rateLimit: { requestsPerMinute: 6000 }')}
`),
    );
    expect(seen.rules.map((r) => r.name)).toEqual(['ships', 'polite']);
    expect(seen.rules.map((r) => r.verdict)).toEqual(['pass', 'pass']);
    expect(calls).toEqual({ system: 6, judge: 6 });
    expect(seen.code).toBe(0);
  });

  it('a run-level perInput floor over a verifier and a validator', async () => {
    const seen = await runRecipe(
      withBase(`name: recipe-per-input
${system()}inputs: ["a", "b"]
samples: 8
perInput: { minSuccess: 0.5 }
validators:
  - { name: ships, check: { type: contains, value: ships }, minSuccess: 0.5 }
verifiers:
  - { name: polite, instructions: Polite., minSuccess: 0.5, judge: ${judge()} }
`),
    );
    expect(seen.rules).toEqual([
      { name: 'ships', verdict: 'pass', perInput: true, sequential: false },
      { name: 'polite', verdict: 'pass', perInput: true, sequential: false },
    ]);
  });

  it('stopping: sequential stops the run once every rule is decided', async () => {
    const seen = await runRecipe(
      withBase(`name: recipe-sequential
${system()}inputs: ["a"]
samples: 400
stopping: sequential
validators:
  - { name: ships, check: { type: contains, value: ships }, minSuccess: 0.8 }
verifiers:
  - { name: polite, instructions: Polite., minSuccess: 0.8, judge: ${judge()} }
`),
    );
    expect(seen.rules.map((r) => [r.verdict, r.sequential])).toEqual([
      ['pass', true],
      ['pass', true],
    ]);
    expect(seen.status).toBe('complete');
    expect(calls.system).toBeLessThan(400);
  });

  it('the cache serves a second run without a call; maxCostUsd stops a run at its budget', async () => {
    const cached = withBase(`name: recipe-cache
${system()}inputs: ["a", "b"]
samples: 2
cache: true
validators:
  - { name: ships, check: { type: contains, value: ships }, minSuccess: 0.5 }
`);
    await runRecipe(cached);
    expect(calls.system).toBe(4);
    await runRecipe(cached);
    expect(calls.system).toBe(0);

    const budget = await runRecipe(
      withBase(`name: recipe-budget
${system()}inputs: ["a"]
samples: 50
concurrency: 1
prices: { bot: { inputPerMTok: 1000, outputPerMTok: 1000 } }
maxCostUsd: 0.1
validators:
  - { name: ships, check: { type: contains, value: ships }, minSuccess: 0.5 }
`),
    );
    // Every call is priced (the mock reports its tokens): the budget ends the run long before its 50 samples.
    expect(budget.status).toBe('interrupted');
    expect(calls.system).toBeGreaterThan(0);
    expect(calls.system).toBeLessThan(50);
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite.js';
import { startMockOpenAI, type ChatRequestBody, type MockOpenAI } from '../mock/openai.js';
import { judgeReply } from '../mock/judge.js';
import { captureCli } from './testing/capture.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-guard-cli-'));
let judge: MockOpenAI;
const REASON = 'Address the customer by name.';

beforeAll(async () => {
  // The judge passes once its reason has been fed back into the input it is shown.
  judge = await startMockOpenAI({
    chat: (b: ChatRequestBody) => {
      const user = String(b.messages.find((m) => m.role === 'user')?.content ?? '');
      return { content: user.includes(REASON) ? judgeReply(b, 'PASS') : judgeReply(b, 'FAIL', [REASON]) };
    },
  });
  writeFileSync(
    join(dir, 'exp.yaml'),
    `name: greet
system:
  simulated:
    seed: 1
    outputs: ["Hello Ada, how can I help?"]
inputs: ["Greet Ada."]
validators:
  - name: short
    message: Keep it short
    predicate: "o => o.length < 100"
    minSuccess: 0.9
verifiers:
  - name: courteous
    minSuccess: 0.9
    instructions: ["The answer greets the customer by name."]
    judge: { openai: { baseURL: "${judge.baseURL}", model: judge } }
`,
  );
});
afterAll(async () => {
  await judge.close();
  rmSync(dir, { recursive: true, force: true });
});

const cli = captureCli;

describe('assay guard', () => {
  it("runs the config's system, validators and verifier, feeding the judge's reasons back", async () => {
    const store = join(dir, 'assay.db');
    const r = await cli(['guard', join(dir, 'exp.yaml'), '--input', 'Greet Ada.', '--max-attempts', '3', '--json', '--store', store]);
    expect(r.code, r.err).toBe(0);
    const res = JSON.parse(r.out);
    expect(res).toMatchObject({ accepted: true, reason: 'accepted', output: 'Hello Ada, how can I help?' });
    expect(res.attempts).toHaveLength(2);
    expect(res.attempts[0].verifier).toEqual({ outcome: 'fail', reasons: [REASON] });
    expect(res.attempts[1].input).toContain(REASON);
    await using log = openSqliteStore(store, { readonly: true });
    expect(await log.guard.getCall(res.callId)).toMatchObject({ accepted: true, attempts: 2 });
    expect((await log.guard.listAttempts(res.callId)).map((a) => a.status)).toEqual(['rejected', 'accepted']);
  });

  it('the same verifier is one more tensor column in `assay run`: reasons stored, then planned from', async () => {
    const store = join(dir, 'run.db');
    const json = join(dir, 'run.json');
    const run = await cli(['run', join(dir, 'exp.yaml'), '--samples', '3', '--store', store, '--json', json]);
    expect(run.code, run.err).toBe(1); // the judge fails every un-augmented answer
    const runId = JSON.parse(readFileSync(json, 'utf8')).runId as string;
    const s = openSqliteStore(store, { readonly: true });
    try {
      const sample = await s.samples.get(runId, 0, 2);
      expect(sample?.reasons).toEqual([undefined, [REASON]]);
      expect((await s.runs.get(runId))?.validators.map((v) => [v.name, v.kind])).toEqual([
        ['short', 'validator'],
        ['courteous', 'verifier'],
      ]);
    } finally {
      await s.close();
    }
    const plan = await cli(['plan', '--run', runId, '--store', store, '--json']);
    expect(plan.code, plan.err).toBe(0);
    const p = JSON.parse(plan.out);
    expect(p.validators.map((v: { name: string; rate: number }) => [v.name, v.rate])).toEqual([
      ['short', 1],
      ['courteous', 0],
    ]);
    expect(p).toMatchObject({ K: 2, p_pass: 0, m: null, per_input: { unreachable_inputs: 1 } });
  });

  it('exits 1 with no output when nothing passes, and prints a readable account', async () => {
    const r = await cli(['guard', join(dir, 'exp.yaml'), '--input-index', '1', '--max-attempts', '2', '--no-feedback', '--no-store']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^NO OUTPUT after 2 attempt\(s\): exhausted/);
    // The verifier is named, as in the config.
    expect(r.out).toMatch(/#1 rejected +\d+ ms {2}short=pass courteous \(verifier\)=fail/);
    expect(r.out).toContain(`- ${REASON}`);
  });

  it('exits 3, not 1, when the system cannot be called: an infrastructure error is no verdict on the outputs', async () => {
    const file = join(dir, 'refused.yaml');
    writeFileSync(
      file,
      `system:\n  openai: { model: m, baseURL: "http://127.0.0.1:9/v1" }\ninputs: ["Hi."]\ntimeoutMs: 2000\nvalidators:\n  - { name: short, check: { type: words, max: 20 }, minSuccess: 0.9 }\n`,
    );
    const r = await cli(['guard', file, '--input-index', '1', '--no-store']);
    expect(r.out).toMatch(/^NO OUTPUT after 1 attempt\(s\): error \(the system failed: .*ECONNREFUSED/);
    expect(r.code).toBe(3);
  });

  it('a store it cannot write: the answer stands, and stderr says the attempts were not logged', async () => {
    const r = await cli([
      'guard',
      join(dir, 'exp.yaml'),
      '--input-index',
      '1',
      '--max-attempts',
      '1',
      '--no-feedback',
      '--store',
      'postgres://a:secret@127.0.0.1:1/db',
    ]);
    expect(r.err).toMatch(/assay: warning: the guard's attempts were not logged to postgres:\/\/a:\*\*\*@127\.0\.0\.1:1\/db: .*127\.0\.0\.1:1/);
    expect(r.err).not.toContain('secret');
    expect(r.out).toMatch(/attempt/);
  });

  it('rejects bad usage with exit 2', async () => {
    const bad = await cli(['guard', join(dir, 'exp.yaml'), '--input', 'x', '--max-attempts', '0']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--max-attempts: expected a whole number ≥ 1, found "0"/);
    const none = await cli(['guard', join(dir, 'exp.yaml')]);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/--input <text> or --input-index <n>, found neither/);
    const huge = await cli(['guard', join(dir, 'exp.yaml'), '--input', 'x', '--timeout', '99999999999']);
    expect(huge.code).toBe(2);
    expect(huge.err).toMatch(/--timeout: expected a whole number of milliseconds from 1 to 2147483647, found "99999999999"/);
    // Counted from 1 as reports count inputs: 0 is out of range.
    for (const n of ['5', '0']) {
      const idx = await cli(['guard', join(dir, 'exp.yaml'), '--input-index', n]);
      expect(idx.code).toBe(2);
      expect(idx.err).toMatch(/--input-index: expected a whole number from 1 to 1 \(the config's inputs, counted from 1\)/);
    }
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAttemptLog } from '../guard/attempt-log.js';
import { startMockOpenAI, type ChatRequestBody, type MockOpenAI } from '../testing/mock-openai.js';
import { main } from './main.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-guard-cli-'));
let judge: MockOpenAI;
const REASON = 'Address the customer by name.';

beforeAll(async () => {
  // The judge passes once its reason has been fed back into the input it is shown.
  judge = await startMockOpenAI({
    chat: (b: ChatRequestBody) => {
      const user = String(b.messages.find((m) => m.role === 'user')?.content ?? '');
      return { content: JSON.stringify(user.includes(REASON) ? { verdict: 'PASS', reasons: [] } : { verdict: 'FAIL', reasons: [REASON] }) };
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

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const w1 = process.stdout.write.bind(process.stdout);
  const w2 = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string) => ((out += s), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => ((err += s), true)) as typeof process.stderr.write;
  const before = process.exitCode;
  try {
    return { code: await main(args), out, err };
  } finally {
    process.stdout.write = w1;
    process.stderr.write = w2;
    process.exitCode = before;
  }
}

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
    const log = openAttemptLog(store);
    try {
      expect(log.getCall(res.callId)).toMatchObject({ accepted: true, attempts: 2 });
      expect(log.listAttempts(res.callId).map((a) => a.status)).toEqual(['rejected', 'accepted']);
    } finally {
      log.close();
    }
  });

  it('exits 1 with no output when nothing passes, and prints a readable account', async () => {
    const r = await cli(['guard', join(dir, 'exp.yaml'), '--input-index', '0', '--max-attempts', '2', '--no-feedback', '--no-store']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^NO OUTPUT after 2 attempt\(s\): exhausted/);
    expect(r.out).toContain(`- ${REASON}`);
  });

  it('rejects bad usage with exit 2', async () => {
    const bad = await cli(['guard', join(dir, 'exp.yaml'), '--input', 'x', '--max-attempts', '0']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--max-attempts: expected a whole number ≥ 1, found "0"/);
    const none = await cli(['guard', join(dir, 'exp.yaml')]);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/--input <text> or --input-index <i>, found neither/);
    const idx = await cli(['guard', join(dir, 'exp.yaml'), '--input-index', '5']);
    expect(idx.err).toMatch(/--input-index: expected a whole number from 0 to 0/);
  });
});

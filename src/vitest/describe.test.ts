import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { openSqliteStore } from '../store/sqlite.js';
import { fixtureProject, SRC, type FixtureProject, type VitestRun } from './testing/project.js';

// describeReliability end to end: a real Vitest runs fixture test files in a child process; the verdicts,
// messages, stored runs, the reporter's table, the GitHub job summary and annotations are read back.

const SUPPORT = `import { describeReliability } from '${SRC.vitest}';

// Every third answer to a refund request apologises twice; everything else is short and polite.
const bot = async (input: string | Record<string, unknown>, { sample }: { sample: number }) =>
  input === 'I want a refund' && sample % 3 === 0 ? 'Sorry, sorry, we cannot refund that.' : 'Your parcel left today.';

describeReliability('support bot', {
  inputs: ['Where is my order?', 'I want a refund'],
  samples: 20,
  system: bot,
  validators: [
    { name: 'short', check: { type: 'words', max: 20 }, minSuccess: 0.8 },
    { name: 'no-apology-loop', check: { type: 'max-count', pattern: 'sorry', flags: 'i', max: 1 }, minSuccess: 0.95 },
  ],
});
`;

// 17 of 20 pass a floor of 0.8: the interval straddles it, so the verdict is inconclusive.
const borderline = (name: string, extra: string) => `
describeReliability('${name}', {
  inputs: ['q'],
  samples: 20,
  system: async (_i: unknown, { sample }: { sample: number }) => (sample < 17 ? 'fine' : 'bad'),
  validators: [{ name: 'fine', check: { type: 'contains', value: 'fine' }, minSuccess: 0.8 }],${extra}
});
`;
const EDGES = `import { describeReliability } from '${SRC.vitest}';
${borderline('borderline', '')}
${borderline('borderline skipped', "\n  onInconclusive: 'skip',")}
describeReliability('flaky backend', {
  inputs: ['a', 'b'],
  samples: 10,
  system: async (input: unknown) => { if (input === 'b') throw new Error('503 from the backend'); return 'ok'; },
  validators: [{ name: 'ok', check: { type: 'contains', value: 'ok' }, minSuccess: 0.5 }],
});
`;

const BAD = `import { describeReliability } from '${SRC.vitest}';

describeReliability('typo', {
  inputs: ['q'],
  system: async () => 'a',
  validators: [{ name: 'has-a', check: { type: 'contains', value: 'a' }, minSucess: 0.9 } as never],
});

const base = { inputs: ['q'], system: async () => 'a', validators: [{ name: 'has-a', check: { type: 'contains', value: 'a' } as const, minSuccess: 0.1 }] };
describeReliability('test-only typo', { ...base, sampels: 4 } as never);
describeReliability('no such folder', { ...base, store: '/nonexistent/dir/x.db' });
describeReliability('no rules', { inputs: ['q'], system: async () => 'a' });
describeReliability('no options', null as never);
`;

// Four inputs always answered well, one never: the aggregate clears 0.6, the per-input floor of 0.8 fails the one.
const FLOORS = `import { describeReliability } from '${SRC.vitest}';

describeReliability('floors', {
  inputs: ['a', 'b', 'c', 'd', 'refund'],
  samples: 30,
  system: async (input: unknown) => (input === 'refund' ? 'no' : 'yes'),
  validators: [{ name: 'says-yes', check: { type: 'contains', value: 'yes' }, minSuccess: 0.6 }],
  perInput: { minSuccess: 0.8 },
});
`;

// An agent (issue 25): its system returns the AI SDK's generateText result as it is. It always looks the order
// up; for a broken parcel it refunds on its own in 15 of 20 tries, which a tool-not-called rule fails.
const AGENT = `import { describeReliability } from '${SRC.vitest}';
import { agentResult } from '${SRC.aiSdkResult}';

const agent = async (input: string | Record<string, unknown>, { sample }: { sample: number }) => {
  const q = String(input);
  const orderId = /A\\d+/.exec(q)![0];
  const refunds = q.includes('broken') && sample % 4 !== 0;
  return agentResult(
    [
      { name: 'lookup_order', input: { orderId }, output: { status: q.includes('broken') ? 'delivered' : 'shipped' } },
      ...(refunds ? [{ name: 'refund', input: { orderId, amount: 20 }, output: 'refunded' }] : []),
    ],
    refunds ? 'I have refunded your order.' : 'Your order is on its way.',
  );
};

describeReliability('support agent', {
  inputs: ['Where is order A1?', 'My order A2 arrived broken', 'Cancel order A3'],
  samples: 20,
  system: agent,
  validators: [
    { name: 'looks the order up', check: { type: 'tool-called', name: 'lookup_order' }, minSuccess: 0.9 },
    { name: 'never refunds on its own', check: { type: 'tool-not-called', name: 'refund' }, minSuccess: 0.9 },
  ],
  passK: { k: 5 },
});
`;

let project: FixtureProject;
let run: VitestRun;
const summaryFile = () => join(project.dir, 'summary.md');

beforeAll(async () => {
  project = fixtureProject();
  project.write('support.test.ts', SUPPORT);
  project.write('edges.test.ts', EDGES);
  project.write('bad.test.ts', BAD);
  project.write('floors.test.ts', FLOORS);
  project.write('agent.test.ts', AGENT);
  run = await project.run([], { ASSAY_STORE: join(project.dir, 'runs.db'), GITHUB_STEP_SUMMARY: join(project.dir, 'summary.md') });
});
afterAll(() => project?.remove());

describe('describeReliability', () => {
  it('makes each rule a test that passes or fails by its verdict, and fails the Vitest run', () => {
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.tests.get('support bot short')?.status).toBe('passed');
    expect(run.tests.get('support bot no-apology-loop')?.status).toBe('failed');
  });

  it("fails a rule with assay's message: rate, interval, error share, reason, worst input and an output", () => {
    const [message] = run.tests.get('support bot no-apology-loop')!.failureMessages;
    // 7 of the refund's 20 answers (j = 0, 3, …, 18) apologise twice: 33 of 40 pass; Clopper–Pearson 95%.
    expect(message.split('\n').slice(0, 6).join('\n')).toBe(
      [
        'ReliabilityError: no-apology-loop: FAIL · rate 82.5% [67.2%, 92.7%] (95% CI, inputs run) · minSuccess 95.0% · errors 0.0% (33 pass, 7 fail, 0 error)',
        '  upper bound 92.7% < minSuccess 95.0%',
        // The other claim: two inputs say little about the inputs the bot will meet.
        '  input population 82.5% [8.4%, 100.0%] over 2 inputs (95% CI, inputs as the unit; design effect 8.3)',
        '  worst input:',
        '    #2 "I want a refund": 13/20 = 65.0% (7 failed)',
        '       e.g. "Sorry, sorry, we cannot refund that."',
      ].join('\n'),
    );
  });

  it('fails an inconclusive rule saying how many more samples decide it, or skips it when asked', () => {
    const failed = run.tests.get('borderline fine')!;
    expect(failed.status).toBe('failed');
    expect(failed.failureMessages[0]).toMatch(/^ReliabilityError: fine: INCONCLUSIVE · rate 85\.0% \[62\.1%, 96\.8%\] \(95% CI, inputs run\)/);
    expect(failed.failureMessages[0]).toMatch(/~\d+ more samples decide it with 80% probability if the rates hold/);
    expect(run.tests.get('borderline skipped fine')?.status).toBe('skipped');
  });

  it('keeps a throwing system an error, never a FAIL, and says so', () => {
    const t = run.tests.get('flaky backend ok')!;
    expect(t.status).toBe('failed');
    expect(t.failureMessages[0]).toMatch(/^ReliabilityError: ok: ERROR · rate 100\.0% .* errors 50\.0% \(10 pass, 0 fail, 10 error\)/);
  });

  it('fails a block with a mistake in its options as a config file would, naming the field, and stores nothing', () => {
    const t = run.tests.get('typo has-a')!;
    expect(t.status).toBe('failed');
    expect(t.failureMessages[0]).toMatch(/^UsageError: bad\.test\.ts › typo \(describeReliability\): validators\[0\]/);
    expect(t.failureMessages[0]).toMatch(/minSucess/);
    // The test-only options too: an unknown key with what was meant, a store folder named as the block's option.
    expect(run.tests.get('test-only typo has-a')!.failureMessages[0]).toMatch(
      /^UsageError: bad\.test\.ts › test-only typo \(describeReliability\): sampels: unknown key \(expected one of: .*\); did you mean "samples"\?/,
    );
    expect(run.tests.get('no such folder has-a')!.failureMessages[0]).toMatch(
      /^UsageError: bad\.test\.ts › no such folder \(describeReliability\): store: the folder \/nonexistent\/dir of the SQLite store/,
    );
    // A block with no rule still fails, in a test that stands in for its rules.
    expect(run.tests.get('no rules options')!.failureMessages[0]).toMatch(/^UsageError: .* validators: expected at least one validator/);
    expect(run.tests.get('no options options')!.failureMessages[0]).toMatch(
      /^UsageError: .*: expected options \{ inputs, system, validators, … \}, found null/,
    );
  });

  it('fails a rule whose aggregate passes when an input is below its per-input floor (perInput), naming the input', () => {
    const t = run.tests.get('floors says-yes')!;
    expect(t.status).toBe('failed');
    const lines = t.failureMessages[0].split('\n');
    expect(lines[0]).toMatch(
      /^ReliabilityError: says-yes: FAIL · rate 80\.0% \[\d+\.\d%, \d+\.\d%\] \(95% CI, inputs run\) · minSuccess 60\.0% · errors 0\.0% \(120 pass, 30 fail, 0 error\)$/,
    );
    expect(lines).toContain('  per input ≥ 80.0% (Holm, family-wise 95%): FAIL');
    expect(lines.find((l) => l.startsWith('    below its floor: #5 "refund" 0/30 = 0.0%'))).toBeDefined();
  });

  it("an agent returning the AI SDK's generateText result: tool-called passes, tool-not-called fails by the verdict, with rate, interval and pass^k", () => {
    expect(run.tests.get('support agent looks the order up')?.status).toBe('passed');
    const t = run.tests.get('support agent never refunds on its own')!;
    expect(t.status).toBe('failed');
    const lines = t.failureMessages[0].split('\n');
    // 45 of 60 tries pass (the broken parcel: 5 of 20); Clopper–Pearson 95%.
    expect(lines.slice(0, 2)).toEqual([
      'ReliabilityError: never refunds on its own: FAIL · rate 75.0% [62.1%, 85.3%] (95% CI, inputs run) · minSuccess 90.0% · errors 0.0% (45 pass, 15 fail, 0 error)',
      '  upper bound 85.3% < minSuccess 90.0%',
    ]);
    expect(lines).toContain('  worst input:');
    expect(lines).toContain('    #2 "My order A2 arrived broken": 5/20 = 25.0% (15 failed)');
    expect(lines).toContain('       e.g. "I have refunded your order."');
    expect(lines.find((l) => l.startsWith('  pass^5 66.7% [') && l.includes(' · pass@5 '))).toBeDefined();
    expect(lines.find((l) => l.startsWith('    lowest: #2 "My order A2 arrived broken" pass^5 0.0% ['))).toBeDefined();
  });

  it('stores each block as a run named by test file and describe name', async () => {
    const store = openSqliteStore(join(project.dir, 'runs.db'), { readonly: true });
    onTestFinished(() => store.close());
    const runs = await store.runs.list();
    expect(runs.map((r) => r.name).sort()).toEqual([
      'agent.test.ts › support agent',
      'edges.test.ts › borderline',
      'edges.test.ts › borderline skipped',
      'edges.test.ts › flaky backend',
      'floors.test.ts › floors',
      'support.test.ts › support bot',
    ]);
    const bot = runs.find((r) => r.name === 'support.test.ts › support bot')!;
    expect(bot.status).toBe('complete');
    expect((await store.samples.list(bot.id)).length).toBe(40);
    // The agent's samples keep its steps.
    const agent = runs.find((r) => r.name === 'agent.test.ts › support agent')!;
    const s = (await store.samples.get(agent.id, 1, 1))!;
    expect(s.trajectory!.steps.flatMap((x) => x.toolCalls.map((c) => c.name))).toEqual(['lookup_order', 'refund']);
  });

  it("prints each block's reliability table at the end (the reporter)", () => {
    expect(run.stdout).toMatch(/assay · support\.test\.ts › support bot · run \S+ · function:bot · complete/);
    expect(run.stdout).toMatch(/no-apology-loop\s+82\.5%\s+\[67\.2%, 92\.7%\]\s+0\.0%\s+95\.0%\s+FAIL\s+33\s+7\s+0/);
  });

  it('writes the GitHub job summary and an ::error annotation per failing rule', () => {
    const md = readFileSync(summaryFile(), 'utf8');
    for (const name of ['support.test.ts › support bot', 'edges.test.ts › borderline', 'edges.test.ts › flaky backend']) expect(md).toContain(name);
    expect(md).toMatch(/\| no-apology-loop \|/);
    const annotations = run.stdout.split('\n').filter((l) => l.startsWith('::error '));
    expect(annotations.length).toBe(5); // no-apology-loop, borderline (not the skipped one), flaky backend, floors, the agent's refunds
    expect(annotations.find((l) => l.includes('no-apology-loop'))).toMatch(
      /^::error file=support\.test\.ts,line=7,title=support\.test\.ts › support bot › no-apology-loop::no-apology-loop: FAIL · rate 82\.5%.*%0A/,
    );
  });
});

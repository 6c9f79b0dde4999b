import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureProject, SRC, type FixtureProject } from './testing/project.js';

// The reporter in a real Vitest run (child process) where its surroundings go wrong: a job summary it cannot
// write, a run that stopped early. Vitest's verdict and exit code must stay Vitest's.

const PASSING = `import { describeReliability } from '${SRC.vitest}';

describeReliability('always short', {
  inputs: ['a'],
  samples: 5,
  system: async () => 'ok',
  validators: [{ name: 'short', check: { type: 'words', max: 4 }, minSuccess: 0.1 }],
});
`;

const FAILING = `import { describeReliability } from '${SRC.vitest}';

describeReliability('never short', {
  inputs: ['a'],
  samples: 10,
  system: async () => 'one two three four five six',
  validators: [{ name: 'short', check: { type: 'words', max: 4 }, minSuccess: 0.5 }],
});
`;

// Every call returns a number: fail-fast stops the run after a few samples (stored as interrupted).
const STOPPED = `import { describeReliability } from '${SRC.vitest}';

describeReliability('number30', {
  inputs: ['a'],
  samples: 30,
  system: (async () => 42) as never,
  validators: [{ name: 'v2', check: { type: 'words', max: 4 }, minSuccess: 0.5 }],
});
`;

// Every call throws a plain 401 (no status to read): 40 error cells, an error verdict.
const UNAUTHORIZED = `import { describeReliability } from '${SRC.vitest}';

describeReliability('no key', {
  inputs: ['a', 'b'],
  samples: 20,
  system: async () => { throw new Error('401 Unauthorized: missing OPENAI_API_KEY'); },
  validators: [{ name: 'short', check: { type: 'words', max: 4 }, minSuccess: 0.5 }],
});
`;

const NOWHERE = '/nonexistent-assay-dir/s.md';
let project: FixtureProject;

beforeAll(() => {
  project = fixtureProject('assay-reporter-');
});
afterAll(() => project?.remove());

describe('the reporter when GITHUB_STEP_SUMMARY cannot be written', () => {
  it('warns once, naming the variable and the path, and leaves a passing run passing (exit 0)', async () => {
    project.write('passing.test.ts', PASSING);
    const r = await project.run(['passing.test.ts'], { ASSAY_STORE: join(project.dir, 'runs.db'), GITHUB_STEP_SUMMARY: NOWHERE });
    const out = r.stdout + r.stderr;
    expect(out).not.toMatch(/Unhandled Error/);
    expect(r.code, out).toBe(0);
    const warnings = out.split('\n').filter((l) => l.includes('GITHUB_STEP_SUMMARY'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`GITHUB_STEP_SUMMARY=${NOWHERE}`);
    expect(warnings[0]).toMatch(/ENOENT/);
  });

  it('still prints the ::error annotation of a failing rule, and the exit code is Vitest’s (1)', async () => {
    project.write('failing.test.ts', FAILING);
    const r = await project.run(['failing.test.ts'], { ASSAY_STORE: join(project.dir, 'runs.db'), GITHUB_STEP_SUMMARY: NOWHERE });
    const out = r.stdout + r.stderr;
    expect(out).not.toMatch(/Unhandled Error/);
    expect(r.code, out).toBe(1);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('::error '))).toHaveLength(1);
    expect(r.stdout).toMatch(/^::error file=failing\.test\.ts,line=3,title=failing\.test\.ts › never short › short::short: FAIL/m);
  });
});

describe('the reporter for a run that stopped early', () => {
  it('says to re-run the test file (assay run --resume cannot: the run has no config file)', async () => {
    project.write('stopped.test.ts', STOPPED);
    const r = await project.run(['stopped.test.ts'], { ASSAY_STORE: join(project.dir, 'runs.db') });
    expect(r.stdout).toMatch(/INTERRUPTED: partial results, \d+ of 30 samples not run/);
    expect(r.stdout).not.toContain('assay run --resume');
    expect(r.stdout).toMatch(/re-run the test file: npx vitest run stopped\.test\.ts \(with the cache on/);
  });

  it('says the cache serves the model calls already made when the block had it on', async () => {
    project.write('stopped.test.ts', STOPPED);
    const r = await project.run(['stopped.test.ts'], { ASSAY_STORE: join(project.dir, 'runs.db'), ASSAY_CACHE: '1' });
    expect(r.stdout).not.toContain('assay run --resume');
    expect(r.stdout).toMatch(/re-run the test file: npx vitest run stopped\.test\.ts \(the cache serves the model calls already made\)/);
  });
});

describe('an error verdict in a Vitest run', () => {
  it('names its cause (the largest error group, its count and message) in the test message, the ::error annotation and the job summary', async () => {
    project.write('unauthorized.test.ts', UNAUTHORIZED);
    const summary = join(project.dir, 'summary.md');
    const r = await project.run(['unauthorized.test.ts'], { ASSAY_STORE: join(project.dir, 'runs.db'), GITHUB_STEP_SUMMARY: summary });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const cause = 'error causes: ×40 "generation failed after 1 attempt(s): 401 Unauthorized: missing OPENAI_API_KEY"';
    const t = r.tests.get('no key short');
    expect(t?.failureMessages[0]).toContain(`every checked cell is an error (40); ${cause}`);
    const annotations = r.stdout.split('\n').filter((l) => l.startsWith('::error '));
    expect(annotations).toHaveLength(1);
    expect(annotations[0]).toContain(cause);
    expect(readFileSync(summary, 'utf8')).toContain(cause);
  });
});

// The reporter adds, never removes (issue 26, item 4): a config that names its reporters replaces Vitest's default
// set, which under GITHUB_ACTIONS=true includes `github-actions`; every failing test keeps one annotation.
describe('GitHub annotations with the documented reporter config', () => {
  const PLAIN = `import { expect, test } from 'vitest';

test('plain arithmetic', () => {
  expect(1 + 1).toBe(3);
});
`;
  const config = (reporters: string[]) => `import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { include: ['gh-*.test.ts'], reporters: ${JSON.stringify(reporters)} } });
`;
  const run = async (reporters: string[]) => {
    project.write('vitest.config.mts', config(reporters));
    project.write('gh-plain.test.ts', PLAIN);
    project.write('gh-rule.test.ts', FAILING);
    const r = await project.run(
      [],
      { ASSAY_STORE: join(project.dir, 'runs.db'), GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(project.dir, 'gh.md') },
      { configReporters: true },
    );
    return { r, annotations: r.stdout.split('\n').filter((l) => l.startsWith('::error ')) };
  };
  afterAll(() => project.write('vitest.config.mts', 'export default {};\n'));

  it("keeps Vitest's annotation of every failing test with reporters: ['default', 'assay/vitest/reporter']", async () => {
    const { r, annotations } = await run(['default', SRC.reporter]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(
      annotations.filter((l) => l.includes('plain arithmetic')),
      r.stdout,
    ).toHaveLength(1);
    expect(annotations.filter((l) => l.includes('never short'))).toHaveLength(1);
    expect(annotations).toHaveLength(2);
  });

  it("annotates no test twice with 'github-actions' listed too", async () => {
    const { annotations } = await run(['default', 'github-actions', SRC.reporter]);
    expect(annotations.filter((l) => l.includes('plain arithmetic'))).toHaveLength(1);
    expect(annotations.filter((l) => l.includes('never short'))).toHaveLength(1);
    expect(annotations).toHaveLength(2);
  });
});

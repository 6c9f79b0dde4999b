import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureProject, ROOT, SRC, type FixtureProject, type VitestRun } from './testing/project.js';

/**
 * examples/agent's Vitest file as written (assay imported from this checkout), in a real Vitest with the example's
 * own config and global setup: the agent's tools as functions, the tool loop run by assay against `assay mock`.
 */

const EXAMPLE = join(ROOT, 'examples/agent');
const asWritten = (code: string) =>
  code
    .replaceAll("'assay/vitest/matchers'", `'${SRC.matchers}'`)
    .replaceAll("'assay/vitest/reporter'", `'${SRC.reporter}'`)
    .replaceAll("'assay/vitest'", `'${SRC.vitest}'`)
    .replaceAll("'assay/testing'", `'${join(ROOT, 'src/mock/index.ts')}'`);

let project: FixtureProject;
let run: VitestRun;

beforeAll(async () => {
  project = fixtureProject('assay-agent-vitest-');
  for (const f of ['agent.test.ts', 'vitest.config.mts', 'mock-llm.ts', 'mock-rules.yaml']) project.write(f, asWritten(readFileSync(join(EXAMPLE, f), 'utf8')));
  run = await project.run(['agent.test.ts'], { ASSAY_STORE: join(project.dir, 'runs.db') });
}, 180_000);
afterAll(() => project?.remove());

describe('examples/agent/agent.test.ts', () => {
  it('runs offline: the passing rules pass, the refund rule fails on purpose with its rate, interval and pass^k', () => {
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.tests.get('support agent looks the order up')?.status).toBe('passed');
    expect(run.tests.get('support agent never closes accounts')?.status).toBe('passed');
    const refund = run.tests.get('support agent refunds only delivered orders');
    expect(refund?.status).toBe('failed');
    expect(refund?.failureMessages.join('\n')).toMatch(/refunds only delivered orders: FAIL · rate 66\.7% \[53\.3%, 78\.3%\] \(95% CI(, inputs run)?\)/);
    expect(refund?.failureMessages.join('\n')).toMatch(/pass\^5 66\.7%/);
  });
});

import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSystem } from '../providers/factory.js';
import { startMock } from '../mock/index.js';
import { mockResponder } from '../mock/rules.js';
import type { MockServer } from '../mock/types.js';
import type { JsonReport } from '../report/json.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

// examples/grounded/grounded.yaml run as its comment says: build the KB from the committed documents, then
// `assay run` — grounding as one more column of the tensor, with its rate, interval and verdict.
const tmp = useConfigDir('assay-grounded-example-');
let judge: MockServer;
beforeAll(async () => {
  judge = await startMock('openai', { chat: mockResponder({ rules: [{ regex: 'output-[0-9a-f]+>\\n', judge: 'pass' }] }) });
});
afterAll(async () => {
  await judge?.close();
});

/** The example in a folder of its own (its KB is built there, next to the config, where `kb: ./kb` points). */
function copyExample(name: string): string {
  const to = join(tmp.dir(), name);
  cpSync('examples/grounded/docs', join(to, 'docs'), { recursive: true });
  cpSync('examples/grounded/grounded.yaml', join(to, 'grounded.yaml'));
  return to;
}

const BAD = [
  'Opened routers can be returned within 60 days of purchase with the receipt.',
  'After a firmware update the router reboots in about five minutes.',
  'The X200 is rated IP68 and survives an hour under water.',
];

describe('examples/grounded/grounded.yaml', () => {
  it('runs offline: every output audited against the KB, failing exactly the outputs that change a figure or claim what the KB lacks', async () => {
    const ex = copyExample('run');
    expect((await captureCli(['kb', 'ingest', join(ex, 'docs'), '--kb', join(ex, 'kb')])).code).toBe(0);
    const json = join(ex, 'report.json');
    const html = join(ex, 'report.html');
    const r = await captureCli(['run', join(ex, 'grounded.yaml'), '--store', join(ex, 'assay.db'), '--json', json, '--html', html, '--no-progress']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/\ngrounded\s+[\d.]+%\s+\[[\d.]+%, [\d.]+%\]\s+0\.0%\s+60\.0%\s+PASS\s+\d+\s+\d+\s+0\n/);
    const report = JSON.parse(readFileSync(json, 'utf8')) as JsonReport;
    const grounded = report.validators.find((v) => v.name === 'grounded')!;
    expect(grounded.message).toBe('The answer is not grounded in the support knowledge base');
    // The simulated system's draws are known: the failures are exactly its wrong answers.
    const config = parse(readFileSync(join(ex, 'grounded.yaml'), 'utf8')) as { system: unknown; inputs: string[]; samples: number };
    const system = createSystem(config.system, { file: 'grounded.yaml', baseDir: ex, inputs: config.inputs });
    let bad = 0;
    for (const [i, input] of config.inputs.entries())
      for (let j = 0; j < config.samples; j++)
        if (BAD.includes((await system.generate(input, { signal: AbortSignal.timeout(5000), sample: j, inputIndex: i })).text)) bad++;
    expect(bad).toBeGreaterThan(5);
    expect(grounded.counts).toMatchObject({ pass: 90 - bad, fail: bad, error: 0 });
    // its heatmap comes with it, like any validator's, each failed cell with the claims behind it
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('data-validator="grounded"');
    expect(page).toMatch(/"validator":"grounded","outcome":"fail","reasons":\["1 contradicted claim: \\"Opened routers can be returned within 60 days/);
  });

  it('a KB that was not built is a config error at load (exit 2) naming the field and line, and leaves no store behind', async () => {
    const ex = copyExample('no-kb');
    const r = await captureCli(['run', join(ex, 'grounded.yaml'), '--store', join(ex, 'assay.db'), '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /grounded\.yaml: validators\[0\]\.check\.kb: no knowledge base at .*no-kb\/kb: the directory does not exist \(create one with `assay kb ingest <files> --kb .*\)\s+\(line \d+\)/,
    );
    expect(existsSync(join(ex, 'assay.db'))).toBe(false);
  });

  it('with a judge, the check’s LLM calls are priced into the run’s cost (JSON and terminal)', async () => {
    const ex = copyExample('judge');
    expect((await captureCli(['kb', 'ingest', join(ex, 'docs'), '--kb', join(ex, 'kb')])).code).toBe(0);
    const yaml = readFileSync(join(ex, 'grounded.yaml'), 'utf8')
      .replace('samples: 30', 'samples: 4')
      .replace('noContradiction: true }', `noContradiction: true, judge: { openai: { model: gpt-4o-mini, baseURL: "${judge.baseURL}" } } }`);
    writeFileSync(join(ex, 'grounded.yaml'), yaml);
    const json = join(ex, 'report.json');
    const r = await captureCli(['run', join(ex, 'grounded.yaml'), '--store', join(ex, 'assay.db'), '--json', json, '--no-progress']);
    expect([2, 3]).not.toContain(r.code);
    const grounded = (JSON.parse(readFileSync(json, 'utf8')) as JsonReport).validators.find((v) => v.name === 'grounded')! as { costUsd?: number };
    expect(grounded.costUsd).toBeGreaterThan(0);
    expect(r.out).toMatch(/cost \$[\d.]+ \(system \$0(\.0+)? · grounded \$[\d.]+\)/);
    expect(judge.requests.length).toBeGreaterThan(0);
  });
});

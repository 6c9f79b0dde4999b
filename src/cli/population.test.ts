import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../mock/index.js';
import { mockResponder } from '../mock/rules.js';
import type { JsonReport } from '../report/json.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

// Issue 29 end to end: 10 inputs × 20 samples, two inputs always answered rudely. About the inputs run the rule
// passes (160 of 200, lower bound 73.8% ≥ 70%); about the inputs the bot will meet, ten inputs cannot show it.

const tmp = useConfigDir('assay-cli-population-');
const cli = (...args: string[]) => captureCli(args);
const report = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as JsonReport;
const validateReport = new Ajv({ strict: false, validateFormats: false }).compile(
  JSON.parse(readFileSync(new URL('../../schemas/report.schema.json', import.meta.url), 'utf8')) as object,
);

let mock: Awaited<ReturnType<typeof startMock>>;
beforeAll(async () => {
  mock = await startMock('openai', { chat: mockResponder({ rules: [{ match: 'rude', reply: 'Go away.' }] }) });
});
afterAll(() => mock.close());

const inputs = [...Array.from({ length: 8 }, (_, i) => `question ${i + 1}`), 'rude question 9', 'rude question 10'];
const config = (extra = '') => `name: polite
system: { openai: { baseURL: "${mock.baseURL}", model: bot } }
inputs: ${JSON.stringify(inputs)}
samples: 20
${extra}validators:
  - { name: polite, predicate: "o => !/go away/i.test(o)", minSuccess: 0.7 }
`;

describe('estimand: the inputs run and the input population', () => {
  it('reports both claims; the default passes on the inputs run, estimand population (config or --estimand) is not PASS', async () => {
    const out = (name: string) => join(tmp.dir(), name);
    const run = async (file: string, ...flags: string[]) => {
      const json = out(`${flags.length}-${file.replace(/\W/g, '')}.json`);
      const md = out(`${flags.length}-${file.replace(/\W/g, '')}.md`);
      const r = await cli('run', file, '--store', out('runs.db'), '--no-progress', '--json', json, '--markdown', md, ...flags);
      return { r, json: report(json), md: readFileSync(md, 'utf8') };
    };
    const inputsRun = await run(tmp.config('polite.yaml', config()));
    expect(inputsRun.r.code, inputsRun.r.err).toBe(0);
    expect(validateReport(inputsRun.json), JSON.stringify(validateReport.errors)).toBe(true);
    const v = inputsRun.json.validators[0];
    expect(inputsRun.json.options.estimand).toBe('inputs');
    expect(v.verdict).toBe('pass');
    expect(v.ci!.low).toBeCloseTo(0.7378, 4);
    expect(v.ci!.high).toBeCloseTo(0.8531, 4);
    expect(v.population).toMatchObject({ rate: 0.8, method: 'cluster-cp', inputs: 10 });
    expect(v.population!.low).toBeCloseTo(0.4439, 4);
    expect(inputsRun.r.out).toContain('95% CI (inputs run)');
    expect(inputsRun.r.out).toContain('verdicts on the inputs run');
    expect(inputsRun.r.out).toContain('  polite: input population 80.0% [44.4%, 97.5%] over 10 inputs (95% CI, inputs as the unit; design effect 20.0)');
    expect(inputsRun.md).toContain('| Input population |');

    for (const [file, flags] of [
      [tmp.config('polite-population.yaml', config('estimand: population\n')), []],
      [tmp.config('polite.yaml', config()), ['--estimand', 'population']],
    ] as const) {
      const p = await run(file, ...flags);
      expect(p.r.code, p.r.err).toBe(1);
      expect(p.json.options.estimand).toBe('population');
      expect(p.json.validators[0].verdict).toBe('inconclusive');
      expect(p.json.validators[0].reason).toMatch(/^population bounds \[44\.4%, 97\.5%\] \(over 10 inputs\) straddle minSuccess 70\.0%/);
      expect(p.r.out).toContain('verdicts on the input population');
    }
  });

  it('assay plan --run <pilot> --population-width: inputs against samples per input, with costs', async () => {
    const store = join(tmp.dir(), 'pilot.db');
    const r = await cli('run', tmp.config('pilot.yaml', config()), '--store', store, '--no-progress');
    expect(r.code, r.err).toBe(0);
    const plan = await cli('plan', '--run', 'latest', '--store', store, '--population-width', '0.2', '--input-cost', '5', '--json');
    expect(plan.code, plan.err).toBe(0);
    const p = JSON.parse(plan.out) as {
      rules: { name: string; pilot: { icc: number }; designs: { samples: number; inputs: number; cost: number }[]; cheapest: number }[];
    };
    const rule = p.rules[0];
    expect(rule.pilot.icc).toBe(1);
    // Every input always passes or always fails: repeats tell nothing more; 70 inputs whatever M, one sample each is cheapest.
    expect(new Set(rule.designs.map((d) => d.inputs))).toEqual(new Set([70]));
    expect(rule.cheapest).toBe(1);
    expect(rule.designs[0].cost).toBe(70 * 5 + 70);
    const text = await cli('plan', '--run', 'latest', '--store', store, '--population-width', '0.2');
    expect(text.out).toMatch(/polite: pilot input population 80\.0% \[44\.4%, 97\.5%\] · ICC 1\.00, design effect 20\.0/);
    expect(text.out).toMatch(/^\s+1\s+70\s+70\s+70\s+19\.9%\s+← cheapest$/m);
    const alone = await cli('plan', '--population-width', '0.2');
    expect(alone.code).toBe(2);
    expect(alone.err).toMatch(/--population-width: plans from a pilot run: give --run/);
  });

  it('refuses estimand population with sequential stopping (exit 2, naming where), and a bad --estimand', async () => {
    const file = tmp.config('seq.yaml', config('estimand: population\nstopping: sequential\n'));
    const r = await cli('run', file, '--store', join(tmp.dir(), 'x.db'), '--no-progress');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/estimand.*expected stopping: fixed with estimand: population/s);
    const flag = await cli(
      'run',
      tmp.config('polite.yaml', config()),
      '--store',
      join(tmp.dir(), 'x.db'),
      '--no-progress',
      '--estimand',
      'population',
      '--stopping',
      'sequential',
    );
    expect(flag.code).toBe(2);
    expect(flag.err).toMatch(/--estimand.*sequential stopping over inputs is not supported yet/s);
    const bad = await cli('run', tmp.config('polite.yaml', config()), '--store', join(tmp.dir(), 'x.db'), '--no-progress', '--estimand', 'everyone');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--estimand.*inputs.*population/);
  });
});

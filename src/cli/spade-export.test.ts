import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { JsonReport } from '../report/json.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

/**
 * The exported config's self-check (`assay run selected.yaml`) replays each labelled good output with its own
 * input, so an assertion that reads the input passes there as it did at evaluation (issue 16, item 5).
 */

const tmp = useConfigDir('assay-spade-export-');
const cli = (...args: string[]) => captureCli(args);
const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** evaluate → select (cov, α 1, τ 0) → export → run; returns the run's report and the exported config. */
async function roundTrip(name: string, candidates: unknown[], examples: unknown[]) {
  const cands = tmp.config(`${name}-cands.json`, JSON.stringify({ candidates }));
  const ex = tmp.config(`${name}-ex.jsonl`, jsonl(examples));
  const matrix = join(tmp.dir(), `${name}-matrix.json`);
  const ev = await cli('spade', 'evaluate', '--candidates', cands, '--examples', ex, '--out', matrix);
  expect(ev.code, ev.out + ev.err).toBe(0);
  const exported = join(tmp.dir(), `${name}-selected.yaml`);
  const sel = await cli(
    'spade',
    'select',
    '--matrix',
    matrix,
    '--method',
    'cov',
    '--alpha',
    '1',
    '--tau',
    '0',
    '--candidates',
    cands,
    '--examples',
    ex,
    '--export',
    exported,
  );
  expect(sel.code, sel.out + sel.err).toBe(0);
  expect(sel.out).toMatch(/FFR 0\.000 ✓/);
  const json = join(tmp.dir(), `${name}-run.json`);
  const run = await cli('run', exported, '--store', join(tmp.dir(), `${name}.db`), '--json', json, '--no-progress');
  const report = JSON.parse(readFileSync(json, 'utf8')) as JsonReport;
  return { run, report, yaml: readFileSync(exported, 'utf8'), exported, selectOut: sel.out };
}

describe('spade select --export: the self-check replays each labelled output with its own input', () => {
  it('an assertion that reads an object input (FFR 0 in selection) passes every replayed good output', async () => {
    const { run, report } = await roundTrip(
      'object',
      [{ id: 'greets_by_name', description: 'Greets the customer by name', form: { kind: 'js', source: '(o, i) => o.includes(i.name)' } }],
      [
        { id: 'g1', input: { name: 'Ada' }, output: 'Hello Ada, your order shipped.', label: 'good' },
        { id: 'g2', input: { name: 'Bob' }, output: 'Hi Bob! It arrives Monday.', label: 'good' },
        { id: 'g3', input: { name: 'Cy' }, output: 'Dear Cy, thanks for writing.', label: 'good' },
        { id: 'b1', input: { name: 'Dee' }, output: 'Hello there, your order shipped.', label: 'bad' },
      ],
    );
    expect(run.code, run.out + run.err).toBe(0);
    expect(report.validators.map((v) => [v.name, v.counts])).toEqual([['greets_by_name', { pass: 3, fail: 0, error: 0, pending: 0 }]]);
  });

  it('string inputs, repeated inputs and examples without an input: each good output once, with the input it was evaluated with', async () => {
    // Two good outputs share one input; two have none (evaluated with the empty input). The assertion passes
    // exactly when the output quotes its own input, so a replay that mixes outputs and inputs fails it.
    const { run, report, yaml, exported, selectOut } = await roundTrip(
      'strings',
      [{ id: 'quotes_input', description: 'Quotes the question', form: { kind: 'js', source: '(o, i) => o.startsWith("[" + i + "]")' } }],
      [
        { id: 'g1', input: 'refund?', output: '[refund?] Within 30 days.', label: 'good' },
        { id: 'g2', input: 'refund?', output: '[refund?] Yes, with a receipt.', label: 'good' },
        { id: 'g3', input: 'hours?', output: '[hours?] 9 to 5.', label: 'good' },
        { id: 'g4', output: '[] Hello.', label: 'good' },
        { id: 'g5', output: '[] Hi.', label: 'good' },
        { id: 'b1', input: 'hours?', output: '[refund?] Within 30 days.', label: 'bad' },
      ],
    );
    expect(run.code, run.out + run.err).toBe(0);
    expect(report.validators[0].counts).toEqual({ pass: 5, fail: 0, error: 0, pending: 0 });
    // Every good output is replayed exactly once, the bad one never.
    const config = parseYaml(yaml) as { inputs: unknown[]; samples?: number };
    expect(config.inputs).toEqual(['refund?', 'refund?', 'hours?', '', '']);
    expect(config.samples ?? 1).toBe(1);
    // The recorded outputs sit beside the config, named after it, and the header says what the self-check does.
    expect(selectOut).toMatch(/self-check: 5 labelled outputs, each with its own input → .*strings-selected\.replay\.jsonl/);
    expect(
      readFileSync(exported.replace(/\.yaml$/, '.replay.jsonl'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(5);
    expect(yaml).toMatch(/# Self-check: replays the 5 labelled good outputs from strings-selected\.replay\.jsonl, each once with its own input/);
  });
});

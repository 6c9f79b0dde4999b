import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from './main.js';

let dir = '';
const out: string[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'assay-cli-ground-'));
  await writeFile(join(dir, 'a.txt'), 'The Eiffel Tower was completed in 1889. It is 330 metres tall. Gustave Eiffel designed it.\n');
  await writeFile(
    join(dir, 'labels.jsonl'),
    [
      { claim: 'The Eiffel Tower was completed in 1889.', supported: true },
      { claim: 'It is 330 metres tall.', supported: true },
      { claim: 'The tower was painted blue by Picasso.', supported: false },
      { claim: 'Submarines dive under the polar ice.', supported: false },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n'),
  );
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => (out.push(String(s)), true));
});
afterAll(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

describe('assay kb / analyze / calibrate', () => {
  it('ingests, analyzes (JSON and readable), calibrates', async () => {
    const kb = join(dir, 'kb');
    expect(await main(['kb', 'ingest', join(dir, 'a.txt'), '--kb', kb, '--json'])).toBe(0);
    expect(JSON.parse(out.join('')).documents).toBe(1);
    out.length = 0;
    expect(await main(['analyze', '--kb', kb, '--query', 'q', '--answer', 'The Eiffel Tower was completed in 1889.', '--json'])).toBe(0);
    const report = JSON.parse(out.join(''));
    expect(report.hallucination_risk).toBe('LOW');
    expect(report.claims_analysis[0].evidence.chunk_id).toMatch(/a\.txt#0$/);
    out.length = 0;
    expect(await main(['analyze', '--kb', kb, '--query', 'q', '--answer', 'The Eiffel Tower was completed in 1899.'])).toBe(0);
    expect(out.join('')).toMatch(/not in evidence: 1899/);
    out.length = 0;
    expect(await main(['calibrate', '--kb', kb, '--data', join(dir, 'labels.jsonl'), '--json'])).toBe(0);
    expect(JSON.parse(out.join('')).balanced_accuracy).toBe(1);
  });

  it('checks every numeric and mode flag, naming it (exit 2), and never reaches an internal error', async () => {
    const kb = join(dir, 'kb-flags');
    expect(await main(['kb', 'ingest', join(dir, 'a.txt'), '--kb', kb])).toBe(0);
    const cases: [string[], RegExp][] = [
      [['kb', 'ingest', join(dir, 'a.txt'), '--kb', join(dir, 'kb4'), '--dimension', 'abc'], /--dimension: expected a whole number from 8/],
      [['kb', 'ingest', join(dir, 'a.txt'), '--kb', join(dir, 'kb4'), '--overlap', '0.3'], /--overlap: expected a number from 0.1 to 0.15, found "0.3"/],
      [['kb', 'ingest', join(dir, 'a.txt'), '--kb', join(dir, 'a.txt')], /expected a knowledge base directory, found a file/],
      [['analyze', '--kb', join(dir, 'a.txt'), '--query', 'q', '--answer', 'x'], /it is a file/],
      [['analyze', '--kb', kb, '--query', 'q', '--answer', 'x', '--top-k', 'many'], /--top-k: expected a whole number from 1 to 50, found "many"/],
      [['analyze', '--kb', kb, '--query', 'q', '--answer', 'x', '--details', 'all'], /--details: expected count, report or off/],
      [['analyze', '--kb', kb, '--query', 'q', '--llm-model', 'm', '--temperature', '0.9'], /--temperature: expected a number from 0 to 0.3, found "0.9"/],
      [['analyze', '--kb', kb, '--query', 'q', '--llm-model', 'm', '--temperature', 'abc'], /--temperature: expected a number/],
      [['analyze', '--kb', kb, '--query', 'q', '--answer', '  '], /--answer: "answer" is empty/],
      [['calibrate', '--kb', kb, '--data', join(dir, 'labels.jsonl'), '--details', 'report'], /--details: expected count or off/],
      [['bench', 'grounding', '--dataset', 'wice', '--data', dir, '--limit', 'ten'], /--limit: expected a whole number ≥ 1/],
    ];
    for (const [args, message] of cases) {
      out.length = 0;
      expect(await main(args), args.join(' ')).toBe(2);
      expect(out.join(''), args.join(' ')).toMatch(message);
    }
  });

  it('reports an unreachable LLM as an infrastructure error (exit 3) without a stack trace', async () => {
    const kb = join(dir, 'kb-llm');
    expect(await main(['kb', 'ingest', join(dir, 'a.txt'), '--kb', kb])).toBe(0);
    out.length = 0;
    expect(await main(['analyze', '--kb', kb, '--query', 'When was it built?', '--llm-model', 'm', '--llm-base-url', 'http://127.0.0.1:9/v1'])).toBe(3);
    expect(out.join('')).toMatch(/^assay: answer generation failed: /);
    expect(out.join('')).not.toMatch(/internal error|\n {4}at /);
  });

  it('exits 2 with a clear message for usage problems', async () => {
    out.length = 0;
    expect(await main(['analyze', '--kb', join(dir, 'none'), '--query', 'q', '--answer', 'x'])).toBe(2);
    expect(out.join('')).toMatch(/no knowledge base/);
    out.length = 0;
    expect(await main(['kb', 'ingest', join(dir, 'a.txt'), '--kb', join(dir, 'kb3'), '--chunk-size', '900'])).toBe(2);
    expect(out.join('')).toMatch(/--chunk-size: expected a whole number from 500 to 700, found "900"/);
  });
});

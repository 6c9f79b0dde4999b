import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startMockAnthropic } from '../mock/anthropic.js';
import type { MockChatView } from '../mock/types.js';
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
    // one status with its reason: no "STRONG" beside a detail the evidence contradicts
    expect(out.join('')).toMatch(/1\. \[CONTRADICTED \d\.\d\d\] The Eiffel Tower was completed in 1899\.\n/);
    expect(out.join('')).toMatch(/ {3}contradicted: 1899; evidence says 1889\n/);
    expect(out.join('')).toMatch(/unsupported: 1 of 1 claims \(1 contradicted\)/);
    expect(out.join('')).not.toMatch(/STRONG|not in evidence/);
    out.length = 0;
    expect(await main(['analyze', '--kb', kb, '--query', 'q', '--answer', 'The Eiffel Tower was completed in 1899.', '--json'])).toBe(0);
    expect(JSON.parse(out.join('')).claims_analysis[0]).toMatchObject({ status: 'CONTRADICTED', contradicted_details: [{ claim: '1899', evidence: '1889' }] });
    out.length = 0;
    expect(await main(['analyze', '--kb', kb, '--query', 'q', '--answer', 'The Eiffel Tower was completed in 1889 by Napoleon.'])).toBe(0);
    expect(out.join('')).toMatch(/\[UNSUPPORTED [\d.]+\][^\n]*\n[^\n]*\n {3}not in evidence: Napoleon/);
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

  it('--llm <file>: the answer is generated by the provider the file names (an Anthropic-wire mock), at --temperature', async () => {
    const kb = join(dir, 'kb-llm-file');
    expect(await main(['kb', 'ingest', join(dir, 'a.txt'), '--kb', kb])).toBe(0);
    const answers = ['The Eiffel Tower was completed in 1889.', 'The tower was painted blue by Picasso.'];
    const seen: MockChatView[] = [];
    const mock = await startMockAnthropic({ chat: (r, n) => (seen.push(r), { content: answers[n - 1] }) });
    try {
      const llm = join(dir, 'anthropic.yaml');
      await writeFile(llm, `anthropic:\n  model: claude-3-5-haiku-20241022\n  baseURL: "${mock.baseURL}"\n  system: Answer from the facts you know.\n`);
      out.length = 0;
      expect(await main(['analyze', '--kb', kb, '--query', 'When was the Eiffel Tower completed?', '--llm', llm, '--temperature', '0.1', '--json'])).toBe(0);
      const grounded = JSON.parse(out.join(''));
      expect(grounded.answer).toBe(answers[0]);
      expect(grounded.hallucination_risk).toBe('LOW');
      expect(mock.requests[0].path).toBe('/v1/messages');
      expect([seen[0].model, seen[0].temperature, seen[0].system]).toEqual(['claude-3-5-haiku-20241022', 0.1, 'Answer from the facts you know.']);
      expect(seen[0].messages).toEqual([{ role: 'user', content: 'When was the Eiffel Tower completed?' }]);
      out.length = 0;
      expect(await main(['analyze', '--kb', kb, '--query', 'What colour is it?', '--llm', llm, '--json'])).toBe(0);
      const ungrounded = JSON.parse(out.join(''));
      expect(ungrounded.answer).toBe(answers[1]);
      expect(ungrounded.unsupported_claims).toEqual([answers[1]]);
      expect(seen[1].temperature).toBe(0.2);
    } finally {
      await mock.close();
    }
  });

  it('--llm errors: both ways at once, an unreadable or bad file, an unknown provider (exit 2, naming the flag and file)', async () => {
    const kb = join(dir, 'kb-llm-errors');
    expect(await main(['kb', 'ingest', join(dir, 'a.txt'), '--kb', kb])).toBe(0);
    const llm = join(dir, 'ok.yaml');
    await writeFile(llm, 'ollama:\n  model: llama3.1\n  baseURL: "http://127.0.0.1:9"\n');
    await writeFile(join(dir, 'bad.yaml'), 'anthropic: [model\n');
    await writeFile(join(dir, 'gpt.yaml'), 'gpt:\n  model: x\n');
    await writeFile(join(dir, 'tpl.yaml'), 'ollama:\n  model: m\n  template: "Q: {{q}}"\n');
    await writeFile(join(dir, 'hot.yaml'), 'ollama:\n  model: m\n  temperature: 0.9\n');
    const q = ['analyze', '--kb', kb, '--query', 'q'];
    const cases: [string[], RegExp][] = [
      [[...q, '--llm', llm, '--llm-model', 'm'], /--llm .*ok\.yaml and --llm-model: expected one of them/],
      [[...q, '--llm', llm, '--llm-base-url', 'http://x'], /--llm .*ok\.yaml and --llm-base-url: expected one of them/],
      [[...q, '--llm', join(dir, 'none.yaml')], /--llm: cannot read .*none\.yaml/],
      [[...q, '--llm', join(dir, 'bad.yaml')], /--llm: .*bad\.yaml is not valid YAML/],
      [[...q, '--llm', join(dir, 'gpt.yaml')], /gpt\.yaml: --llm: expected exactly one of openai, anthropic.*found "gpt"/],
      [[...q, '--llm', join(dir, 'tpl.yaml')], /tpl\.yaml: --llm\.ollama\.template: not used to answer queries/],
      [[...q, '--llm', join(dir, 'hot.yaml')], /hot\.yaml: --llm\.ollama\.temperature: expected a number from 0 to 0\.3/],
      [[...q, '--llm', llm, '--temperature', '0.5'], /--temperature: expected a number from 0 to 0\.3/],
    ];
    for (const [args, message] of cases) {
      out.length = 0;
      expect(await main(args), args.join(' ')).toBe(2);
      expect(out.join(''), args.join(' ')).toMatch(message);
    }
  });

  it('a query with no answer and no LLM names the CLI’s own flags, not the HTTP request (exit 2)', async () => {
    const kb = join(dir, 'kb-no-answer');
    expect(await main(['kb', 'ingest', join(dir, 'a.txt'), '--kb', kb])).toBe(0);
    out.length = 0;
    expect(await main(['analyze', '--kb', kb, '--query', 'q'])).toBe(2);
    const message = out.join('');
    expect(message).toMatch(
      /^assay: --answer: expected the answer to audit \(--answer <text>, or --answers <file> for many\), or an LLM to generate it \(--llm <file> or --llm-model <name>\)\n/,
    );
    expect(message).not.toMatch(/request|"query"|"answer"|internal error/);
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

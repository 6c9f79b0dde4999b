import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMock } from '../mock/index.js';
import { loadMockRules, mockResponder } from '../mock/rules.js';
import type { MockServer } from '../mock/types.js';
import type { JsonReport } from '../report/json.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

/**
 * docs/spade.md, "Offline with assay mock": the files and commands of the section, run as written against
 * `assay mock` (a free port in place of the docs' 8080) in a folder of their own.
 */

const tmp = useConfigDir('assay-spade-docs-');
const doc = readFileSync(join('docs', 'spade.md'), 'utf8');
const section = doc.slice(doc.indexOf('## Offline with `assay mock`'), doc.indexOf('## 1. Prompt deltas'));

function blocks(md: string, lang: string): string[] {
  const re = new RegExp('```' + lang + '\\n([\\s\\S]*?)\\n```', 'g');
  return [...md.matchAll(re)].map((m) => m[1] + '\n');
}

/** The sh block as commands: comments dropped, each line one command (no quoting is used in it). */
function commands(sh: string): string[][] {
  return sh
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      expect(l, 'the docs’ commands use no shell quoting').not.toMatch(/["'\\]/);
      return l.split(/\s+/);
    });
}

const ENV = ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'ASSAY_SPADE_MODEL'] as const;
const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
let cwd = '';
let server: MockServer | undefined;
beforeEach(() => {
  for (const k of ENV) delete process.env[k];
  cwd = process.cwd();
});
afterEach(async () => {
  process.chdir(cwd);
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  await server?.close();
  server = undefined;
});

describe("docs/spade.md: 'Offline with assay mock'", () => {
  it('the files and the session run as written: taxonomy, synthesize, evaluate, select, export, and the self-check passes', async () => {
    // The yaml blocks name their file in their first line.
    const files = blocks(section, 'yaml');
    expect(files.map((b) => /^# (\S+):/.exec(b)?.[1])).toEqual(['versions.yaml', 'rules.yaml', 'labelled.yaml']);
    for (const b of files) writeFileSync(join(tmp.dir(), /^# (\S+):/.exec(b)![1]), b);
    process.chdir(tmp.dir());

    const sh = blocks(section, 'sh');
    expect(sh).toHaveLength(1);
    const outputs: Record<string, { code: number; out: string; err: string }> = {};
    for (const cmd of commands(sh[0])) {
      const line = cmd.join(' ');
      if (line === 'npx assay mock --port 8080 --rules rules.yaml &') {
        server = await startMock('openai', { chat: mockResponder({ rules: loadMockRules('rules.yaml') }) });
      } else if (cmd[0] === 'export') {
        for (const kv of cmd.slice(1)) {
          const [k, v] = kv.split('=');
          process.env[k] = v.replace('http://127.0.0.1:8080', server!.url);
        }
      } else if (cmd[0] === 'npx' && cmd[1] === 'assay') {
        const r = await captureCli(cmd.slice(2));
        expect(r.code, `${line}\n${r.out}${r.err}`).toBe(0);
        outputs[cmd[3] ?? cmd[2]] = r;
      } else if (line === 'kill %1') {
        await server!.close();
        server = undefined;
      } else throw new Error(`a command this test does not know how to run: ${line}`);
    }
    expect(Object.keys(outputs)).toEqual(['taxonomy', 'synthesize', 'evaluate', 'select', 'selected.yaml']);

    // What the comments of the session say.
    expect(outputs.taxonomy.out).toMatch(/\+ Use at most 3 bullets\. {2}\[Quantity Instruction\]/);
    expect(outputs.taxonomy.out).toMatch(/\+ Name the customer\. {2}\[Inclusion\]/);
    expect(outputs.taxonomy.out).toMatch(/\+ Summarise the support call for the team\. {2}\[Workflow Description\]/);
    expect(outputs.synthesize.out).toMatch(/3 criteria, 4 candidates, 0 rejected, 1 subsumption pairs → cands\.json/);
    const cands = JSON.parse(readFileSync('cands.json', 'utf8')) as { candidates: { id: string; form: { kind: string } }[] };
    expect(cands.candidates.map((c) => [c.id, c.form.kind])).toEqual([
      ['at_most_3_bullets', 'check'],
      ['names_customer', 'js'],
      ['no_currency_sign', 'js'],
      ['no_dollar_amount', 'check'],
    ]);
    expect(outputs.evaluate.out).toMatch(/4 candidates × 7 examples → matrix\.json\n/);
    expect(outputs.select.out).toMatch(/subsumption pairs: 1 → 1/);
    expect(outputs.select.out).toMatch(/sub \(paper\): 3 of 4 selected; FFR 0\.000 ✓ \(τ 0\), coverage 1\.000 ✓ \(α 1\); excluded and not subsumed 0/);
    expect(outputs.select.out).not.toMatch(/no_dollar_amount {2}flags/);

    // The self-check replayed the three good outputs with their own inputs: every assertion passed each.
    const run = outputs['selected.yaml'];
    expect(run.out).toMatch(/PASS/);
    const json = join(tmp.dir(), 'self-check.json');
    const again = await captureCli(['run', 'selected.yaml', '--store', join(tmp.dir(), 'again.db'), '--json', json, '--no-progress']);
    expect(again.code, again.out + again.err).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8')) as JsonReport;
    expect(report.validators.map((v) => [v.name, v.counts.pass, v.counts.fail, v.counts.error])).toEqual([
      ['at_most_3_bullets', 3, 0, 0],
      ['names_customer', 3, 0, 0],
      ['no_currency_sign', 3, 0, 0],
    ]);
  });

  it('the table names how each request begins, as the code writes them', async () => {
    // Each row's "begins" text is what the step's request starts with; the session above exercises each.
    for (const start of ['`The new prompt version:`', '`New prompt version:`', '`Criterion (<category>): <criterion>`', '`Assertions:`', '`Assertion names:`'])
      expect(section).toContain(start);
    const { categoriseDelta } = await import('../spade/taxonomy.js');
    const { synthesizeCriteria, synthesizeAssertions } = await import('../spade/synthesize.js');
    const { proposeSubsumptions } = await import('../spade/propose.js');
    const seen: string[] = [];
    const llm = {
      model: 'record',
      usage: { calls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0, unpricedCalls: 0 },
      text: async (_s: string, user: string) => (seen.push(user), 'free text'),
      json: async (name: string, _schema: unknown, _s: string, user: string) => {
        seen.push(user);
        return { taxonomy: { sentences: [] }, criteria: { criteria: [] }, assertions: { assertions: [] }, subsumptions: { pairs: [] } }[name] as never;
      },
    };
    const delta = { index: 1, from: 'v0', to: 'v1', added: ['Be brief.'], deleted: [], moved: [] };
    await categoriseDelta(llm, delta, 'Be brief.');
    await synthesizeCriteria(llm, delta, 'Be brief.');
    await synthesizeAssertions(llm, { delta: 1, criterion: 'brief', category: 'Qualitative Criteria', vague: false });
    const c = (id: string) => ({ id, description: id, form: { kind: 'llm' as const, question: 'ok?' } });
    await proposeSubsumptions(llm, [c('a'), c('b')]);
    expect(seen.map((u) => u.split('\n')[0])).toEqual([
      'The new prompt version:',
      'New prompt version:',
      'Criterion (Qualitative Criteria): brief',
      'Assertions:',
      expect.stringMatching(/^Assertion names: a, b$/),
    ]);
    expect(seen[0]).toMatch(/Added sentences:\n0\. Be brief\./);
    expect(seen[1]).toMatch(/Delta from the previous version:\n\+ Be brief\./);
  });
});

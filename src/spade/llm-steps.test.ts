import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../sandbox/index.js';
import type { Sandbox } from '../sandbox/types.js';
import { startMockOpenAI, type ChatRequestBody, type MockOpenAI, type MockReply } from '../mock/openai.js';
import { diffVersions, promptDeltas } from './deltas.js';
import { createSpadeLlm, llmFromEnv } from './llm.js';
import { proposeSubsumptions } from './propose.js';
import { synthesizeCandidates } from './synthesize.js';
import { skipWithoutData, spadeFile } from './testing/benchmark-data.js';
import { agreement, categoriseDelta, evaluateTaxonomy, versionsFromNdiff } from './taxonomy.js';

let mock: MockOpenAI | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});
const userText = (b: ChatRequestBody) => String(b.messages.find((m) => m.role === 'user')?.content ?? '');
const json = (x: unknown): MockReply => ({ content: JSON.stringify(x) });

describe('taxonomy', () => {
  it('categorises each added sentence with structured output', async () => {
    mock = await startMockOpenAI({
      chat: () =>
        json({
          sentences: [
            { index: 0, categories: ['Quantity Instruction', 'Response Format Instruction'] },
            { index: 1, categories: ['Qualitative Criteria'] },
          ],
        }),
    });
    const llm = createSpadeLlm({ model: 'm', baseURL: mock.baseURL });
    const d = diffVersions('Summarise the call.', 'Summarise the call. Use at most 3 bullet points. Keep a friendly tone.');
    const r = await categoriseDelta(llm, d);
    expect(r).toEqual([
      { sentence: 'Use at most 3 bullet points.', categories: ['Quantity Instruction', 'Response Format Instruction'] },
      { sentence: 'Keep a friendly tone.', categories: ['Qualitative Criteria'] },
    ]);
    const body = mock.requests[0].body as ChatRequestBody;
    expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'taxonomy', strict: true } });
    expect(userText(body)).toContain('1. Keep a friendly tone.');
  });
  it('rejects an answer outside the taxonomy as an invalid response', async () => {
    mock = await startMockOpenAI({ chat: () => json({ sentences: [{ index: 0, categories: ['Vibes'] }] }) });
    const llm = createSpadeLlm({ model: 'm', baseURL: mock.baseURL, maxRetries: 0 });
    await expect(categoriseDelta(llm, { added: ['Be nice.'], deleted: [] })).rejects.toMatchObject({ kind: 'invalid_response' });
  });
  it('scores agreement with human tags and keeps LLM errors apart', async () => {
    const rows = [
      { id: 1, diff: '  Intro.\n+ Answer in JSON.', ground_truth_tags: ['Structural/PresentationFormat'] },
      { id: 2, diff: '  Intro.\n+ Never mention prices.', ground_truth_tags: ['Content/Exclusion', 'Content/Inclusion'] },
      { id: 3, diff: '  Intro.\n+ Broken request.', ground_truth_tags: ['Content/Count'] },
    ];
    mock = await startMockOpenAI({
      chat: (b) => {
        const u = userText(b);
        if (u.includes('JSON')) return json({ sentences: [{ index: 0, categories: ['Response Format Instruction'] }] });
        if (u.includes('prices')) return json({ sentences: [{ index: 0, categories: ['Exclusion', 'Qualitative Criteria'] }] });
        return { status: 500 };
      },
    });
    const llm = createSpadeLlm({ model: 'm', baseURL: mock.baseURL, maxRetries: 0 });
    const r = await evaluateTaxonomy(llm, rows, { concurrency: 1 });
    expect(r.deltas).toBe(2);
    expect(r.errors.map((e) => e.id)).toEqual([3]);
    expect(r.exactMatch).toBe(1);
    // tp: PresentationFormat, Exclusion; fp: QualitativeAssessment; fn: Inclusion
    expect(r.micro).toEqual({ precision: 2 / 3, recall: 2 / 3, f1: 2 / 3 });
    expect(r.meanJaccard).toBeCloseTo((1 + 1 / 3) / 2, 12);
    expect(agreement([]).micro.f1).toBe(0);
  });
  it('rebuilds both versions from an ndiff: common, removed, added and hint lines', () => {
    const diff = ['  Prompt:', '- Be brief.', '?    ^^', '+ Be concise.', '  ', '+ Never mention prices.'].join('\n');
    expect(versionsFromNdiff(diff)).toEqual({ oldText: 'Prompt:\nBe brief.\n', newText: 'Prompt:\nBe concise.\n\nNever mention prices.' });
  });
  it.skipIf(skipWithoutData)('rebuilds both versions of every annotated delta of the benchmark from its ndiff (the template matches)', () => {
    const rows = JSON.parse(readFileSync(spadeFile('taxonomy_prompt_deltas.json'), 'utf8')).rows as { diff: string; prompt_template: string }[];
    expect(rows).toHaveLength(108);
    for (const r of rows) expect(versionsFromNdiff(r.diff).newText.trim()).toBe(r.prompt_template.trim());
  });
  it('llmFromEnv: null without an endpoint, a usage error without a model', () => {
    expect(llmFromEnv({}, {})).toBeNull();
    expect(() => llmFromEnv({ baseURL: 'http://127.0.0.1:1/v1' }, {})).toThrow(/--model/);
    expect(llmFromEnv({ model: 'x' }, { OPENAI_API_KEY: 'k' })?.model).toBe('openai:x');
  });
});

describe('candidate synthesis (two steps)', () => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = createSandbox();
  });
  afterAll(() => sandbox.dispose());

  it('criteria per delta, then several assertions for a vague criterion; unsafe or malformed forms are rejected', async () => {
    mock = await startMockOpenAI({
      chat: (b) => {
        const u = userText(b);
        if (b.response_format && JSON.stringify(b.response_format).includes('"criteria"')) {
          return json({
            criteria: [
              { criterion: 'The response has at most 3 bullet points', category: 'Quantity Instruction', vague: false },
              { criterion: 'The response is concise', category: 'Qualitative Criteria', vague: true },
            ],
          });
        }
        if (u.includes('concise')) {
          expect(u).toContain('give 3 different assertions');
          return json({
            assertions: [
              { name: 'Under 120 words', description: 'At most 120 words', kind: 'check', check: '{"type":"words","max":120}', question: null, source: null },
              { name: 'is concise', description: 'Judge says concise', kind: 'llm', check: null, question: 'Is the response concise?', source: null },
              {
                name: 'short sentences',
                description: 'Sentences under 25 words',
                kind: 'js',
                check: null,
                question: null,
                source: 'o => o.split(/[.!?]/).every(s => s.trim().split(/\\s+/).length <= 25)',
              },
              { name: 'bad check', description: 'x', kind: 'check', check: '{"type":"sentiment"}', question: null, source: null },
              { name: 'broken js', description: 'x', kind: 'js', check: null, question: null, source: 'o => {' },
            ],
          });
        }
        return json({
          assertions: [
            {
              name: 'is concise',
              description: 'At most 3 bullets',
              kind: 'check',
              check: '{"type":"max-count","pattern":"^\\\\s*[-*]","flags":"m","max":3}',
              question: null,
              source: null,
            },
          ],
        });
      },
    });
    const llm = createSpadeLlm({ model: 'm', baseURL: mock.baseURL });
    const versions = [
      { id: 'v1', text: 'Summarise the call.' },
      { id: 'v2', text: 'Summarise the call. Use at most 3 bullet points. Be concise.' },
    ];
    const r = await synthesizeCandidates(
      llm,
      promptDeltas(versions, { initial: false }),
      versions.map((v) => v.text),
      { sandbox },
    );
    expect(r.criteria).toHaveLength(2);
    expect(r.candidates.map((c) => [c.id, c.form.kind])).toEqual([
      ['is_concise', 'check'],
      ['under_120_words', 'check'],
      ['is_concise_2', 'llm'],
      ['short_sentences', 'js'],
    ]);
    expect(r.candidates.filter((c) => c.criterion === 'The response is concise')).toHaveLength(3);
    expect(r.rejected.map((x) => x.name)).toEqual(['bad check', 'broken js']);
    expect(r.rejected[1].reason).toMatch(/does not compile/);
    expect(mock.requests).toHaveLength(3);
  });

  it('a failing LLM call is kept apart with its delta and step; the other deltas go on', async () => {
    mock = await startMockOpenAI({
      chat: (b) => {
        const u = userText(b);
        if (u.includes('+ Broken.')) return { status: 400, body: { error: { message: 'bad request' } } };
        if (JSON.stringify(b.response_format).includes('"criteria"'))
          return json({ criteria: [{ criterion: 'is polite', category: 'Qualitative Criteria', vague: false }] });
        return { content: 'not JSON' };
      },
    });
    const llm = createSpadeLlm({ model: 'm', baseURL: mock.baseURL, maxRetries: 0 });
    const versions = [
      { id: 'v1', text: 'Broken.' },
      { id: 'v2', text: 'Broken. Be polite.' },
    ];
    const r = await synthesizeCandidates(
      llm,
      promptDeltas(versions),
      versions.map((v) => v.text),
    );
    expect(r.criteria.map((c) => [c.delta, c.criterion])).toEqual([[1, 'is polite']]);
    expect(r.errors.map((e) => [e.delta, e.step, e.criterion])).toEqual([
      [0, 'criteria', undefined],
      [1, 'assertions', 'is polite'],
    ]);
    expect(r.errors[0].error).toMatch(/HTTP 400/);
    expect(r.errors[1].error).toMatch(/no JSON object/);
  });

  it('no LLM call for an empty delta', async () => {
    mock = await startMockOpenAI({ chat: () => ({ status: 500 }) });
    const llm = createSpadeLlm({ model: 'm', baseURL: mock.baseURL, maxRetries: 0 });
    const same = [
      { id: 'a', text: 'Same.' },
      { id: 'b', text: 'Same.' },
    ];
    const r = await synthesizeCandidates(
      llm,
      promptDeltas(same, { initial: false }),
      same.map((v) => v.text),
    );
    expect(r.candidates).toEqual([]);
    expect(mock.requests).toHaveLength(0);
  });
});

describe('subsumption proposals', () => {
  it('two calls as in the paper (free text, then parseable pairs); unknown names and self-pairs dropped', async () => {
    mock = await startMockOpenAI({
      chat: (b) =>
        b.response_format
          ? json({
              pairs: [
                { subsumer: 'json_list_2', subsumed: 'is_json' },
                { subsumer: 'ghost', subsumed: 'is_json' },
                { subsumer: 'is_json', subsumed: 'is_json' },
              ],
            })
          : { content: 'json_list_2 subsumes is_json: a list of two items must parse as JSON.' },
    });
    const llm = createSpadeLlm({ model: 'm', baseURL: mock.baseURL });
    const pairs = await proposeSubsumptions(llm, [
      { id: 'is_json', description: 'parses as JSON', form: { kind: 'check', check: { type: 'json' } } },
      {
        id: 'json_list_2',
        description: 'a JSON list of ≥ 2',
        form: { kind: 'js', source: 'o => { try { const x = JSON.parse(o); return Array.isArray(x) && x.length >= 2 } catch { return false } }' },
      },
    ]);
    expect(pairs).toEqual([{ subsumer: 'json_list_2', subsumed: 'is_json' }]);
    expect(mock.requests).toHaveLength(2);
    expect(userText(mock.requests[1].body as ChatRequestBody)).toContain('json_list_2 subsumes is_json');
  });
});

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.js';
import { startMock } from '../../mock/index.js';
import { loadMockRules, mockResponder } from '../../mock/rules.js';
import type { MockChatView, MockServer } from '../../mock/types.js';
import { createLexicalEmbedder } from '../embedders/lexical.js';
import { ingest } from '../kb/ingest.js';
import { createGroundingEngine } from '../service.js';
import { GroundingUnavailableError } from '../types.js';
import { createOllamaMiniCheckChecker, miniCheckPrompt, readMiniCheckAnswer } from './minicheck.js';

// The MiniCheck checker against the mock Ollama server answering from a rules file (what
// `assay mock --provider ollama --rules` serves): MiniCheck's prompt goes out, "Yes"/"No" comes back.
let root = '';
let kb = '';
let ollama: MockServer;
let down: MockServer;
const seen: MockChatView[] = [];

const RULES = `
- { regex: "Claim: Opened routers can be returned within 14 days", reply: "Yes" }
- { regex: "Claim: Unpacked routers may go back", reply: "yes." }
- { regex: "Claim: The X200 router supports 5G", reply: "No" }
- { regex: "Claim: A wall mount", reply: "Probably, the document hints at it" }
- { regex: "Claim: The router is waterproof", status: 500 }
`;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'assay-minicheck-'));
  await mkdir(join(root, 'docs'));
  await writeFile(
    join(root, 'docs', 'returns.md'),
    'Opened routers can be returned within 14 days of purchase with the receipt. The X200 router does not support 5G. After a firmware update the router reboots in two minutes.\n',
  );
  kb = join(root, 'kb');
  await ingest(kb, [join(root, 'docs')], { embedder: createLexicalEmbedder(), cwd: root });
  await writeFile(join(root, 'rules.yaml'), RULES);
  const respond = mockResponder({ rules: loadMockRules(join(root, 'rules.yaml')) });
  ollama = await startMock('ollama', { chat: (view, n) => (seen.push(view), respond(view, n)) });
  down = await startMock('ollama', { chat: () => ({ status: 503 }) });
});

afterAll(async () => {
  await ollama?.close();
  await down?.close();
  await rm(root, { recursive: true, force: true });
});

describe('readMiniCheckAnswer', () => {
  it('reads Yes and No in any case, with punctuation or a reason after; nothing else', () => {
    expect(['Yes', ' yes.', '**Yes**', 'YES, supported'].map(readMiniCheckAnswer)).toEqual(['entailed', 'entailed', 'entailed', 'entailed']);
    expect(['No', 'no.', 'No - not stated'].map(readMiniCheckAnswer)).toEqual(['neutral', 'neutral', 'neutral']);
    expect(['Yesterday', 'Maybe', '', 'Nope'].map(readMiniCheckAnswer)).toEqual([null, null, null, null]);
  });
});

describe('MiniCheck through Ollama', () => {
  it("asks each claim in MiniCheck's prompt and puts its Yes/No into the one status function", async () => {
    seen.length = 0;
    const checker = createOllamaMiniCheckChecker({ baseURL: ollama.url });
    const engine = await createGroundingEngine({ kbDir: kb, checker });
    const answer = [
      'Opened routers can be returned within 14 days of purchase.',
      'The X200 router supports 5G.',
      'Unpacked routers may go back for two weeks.',
      'A wall mount is included.',
      'The router is waterproof.',
    ].join(' ');
    const r = await engine.analyze({ query: 'Can I return my router?', answer });
    await engine.close();
    const c = Object.fromEntries(r.claims_analysis.map((x) => [x.claim.split(' ').slice(0, 3).join(' '), x]));
    expect(c['Opened routers can']).toMatchObject({ status: 'STRONG', check: { verdict: 'entailed' } });
    // "No" is not supported, never red on MiniCheck's word (it does not tell "contradicted" from "not stated")
    expect(c['The X200 router']).toMatchObject({ status: 'UNSUPPORTED', check: { verdict: 'neutral' } });
    expect(c['Unpacked routers may']).toMatchObject({ check: { verdict: 'entailed' } });
    expect(c['Unpacked routers may'].status).toMatch(/STRONG|WEAK/);
    // an answer that is neither Yes nor No, and a failing call, are errors for that claim, out of every figure
    expect(c['A wall mount'].error).toMatch(/expected "Yes" or "No", the model answered "Probably/);
    expect(c['The router is'].error).toMatch(/could not check this claim/);
    expect(r.partial).toBe(true);
    expect(r.checker).toMatchObject({ id: 'minicheck:ollama:bespoke-minicheck', kind: 'llm', errors: 2 });
    // MiniCheck's own format: one user message, "Document: <evidence>\\nClaim: <claim>", temperature 0
    const first = seen.find((v) => v.messages[0].content.includes('Claim: Opened routers'))!;
    expect(first.model).toBe('bespoke-minicheck');
    expect(first.messages).toHaveLength(1);
    expect(first.messages[0].content).toMatch(/^Document: Opened routers can be returned within 14 days of purchase with the receipt\./);
    expect(first.messages[0].content.endsWith('\nClaim: Opened routers can be returned within 14 days of purchase.')).toBe(true);
    expect(first.temperature).toBe(0);
    expect(miniCheckPrompt('D', 'C')).toBe('Document: D\nClaim: C');
  }, 60_000);

  it('a server that cannot answer any claim makes the analysis unavailable, never a verdict', async () => {
    const engine = await createGroundingEngine({ kbDir: kb, checker: createOllamaMiniCheckChecker({ baseURL: down.url }) });
    const err = await engine.analyze({ query: 'q', answer: 'Opened routers can be returned within 14 days.' }).then(
      () => null,
      (e: unknown) => e,
    );
    await engine.close();
    expect(GroundingUnavailableError.isInstance(err)).toBe(true);
    expect(String((err as Error).message)).toMatch(/could not check any claim/);
  }, 60_000);

  it('assay analyze --checker minicheck --checker-url: the same checker from the command line', async () => {
    const printed: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((x) => (printed.push(String(x)), true));
    try {
      const code = await main([
        'analyze',
        '--kb',
        kb,
        '--query',
        'q',
        '--answer',
        'The X200 router supports 5G.',
        '--checker',
        'minicheck',
        '--checker-url',
        ollama.url,
        '--json',
      ]);
      expect(code).toBe(0);
    } finally {
      spy.mockRestore();
    }
    const r = JSON.parse(printed.join(''));
    expect(r.claims_analysis[0]).toMatchObject({ status: 'UNSUPPORTED', check: { verdict: 'neutral' } });
    expect(r.checker.id).toBe('minicheck:ollama:bespoke-minicheck');
  }, 60_000);
});

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLexicalEmbedder } from '../ground/embedders/lexical.js';
import { analyze } from '../ground/engine.js';
import { knowledgeBaseFromTexts } from '../ground/kb/kb.js';
import { startServer, type ServerHandle } from './start.js';

/**
 * 1,000 malformed or hostile bodies against the real grounding engine over a real (lexical) KB: the server
 * answers each with a status below 500 and stays healthy. Well-formed requests with odd answers (binary,
 * lone surrogates, markdown debris, huge numbers) run the whole pipeline: claims, embedding, retrieval, scoring.
 */

interface Shot {
  body: string | Uint8Array;
  type?: string;
}

const enc = new TextEncoder();
const hostileStrings = [
  '',
  ' ',
  'null',
  'true',
  '0',
  '"str"',
  '[]',
  '{}',
  '{"query":',
  '{"query":"q"',
  '{"query":"q",}',
  "{'query':'q'}",
  '{"__proto__":{"polluted":true},"query":"q","answer":"a."}',
  '{"constructor":{"prototype":{"x":1}},"query":"q"}',
  '{"query":"q","answer":"a.","answer":5}',
  '{"query":"\\ud800","answer":"\\udfff."}',
  '{"query":"q","top_k":1e309}',
  '{"query":"q","top_k":-0}',
  '{"query":"q","top_k":"5"}',
  '{"query":"q","answer":null}',
  '{"query":["q"]}',
  '{"query":{"$gt":""}}',
  '{"query":"<script>alert(1)</script>","answer":"<img src=x onerror=alert(1)>."}',
  '{"query":"q\\u0000","answer":"\\u0000."}',
  '\ufeff{"query":"q","answer":"a."}',
  '{"query":"q","answer":"a."}garbage',
  '['.repeat(5000) + ']'.repeat(5000),
  '{"a":'.repeat(3000) + '1' + '}'.repeat(3000),
  'x'.repeat(100_000),
  `{"query":"${'q'.repeat(20_000)}","answer":"a."}`,
  `{"query":"q","answer":"a.","top_k":${'9'.repeat(400)}}`,
];

function shots(): Shot[] {
  const out: Shot[] = hostileStrings.map((body) => ({ body }));
  const jsonish = fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null'),
    fc.record({ query: fc.anything(), answer: fc.anything(), top_k: fc.anything() }, { requiredKeys: [] }).map((v) => {
      try {
        return JSON.stringify(v) ?? '{}';
      } catch {
        return '{}';
      }
    }),
    fc
      .record({
        query: fc.string({ unit: 'grapheme' }),
        answer: fc.option(fc.string(), { nil: undefined }),
        top_k: fc.option(fc.integer(), { nil: undefined }),
      })
      .map((v) => JSON.stringify(v)),
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc
      .record({
        query: fc.string({ minLength: 1, maxLength: 40 }),
        answer: fc.oneof(
          fc.string({ unit: 'binary', maxLength: 2000 }),
          fc
            .array(
              fc.constantFrom(
                'Paris',
                'is',
                'the',
                'capital',
                '3.5',
                '1,000',
                'U.S.',
                'Dr.',
                '.',
                '!',
                '?',
                '\n',
                '- ',
                '# ',
                '```',
                '|',
                '"',
                '\ud800',
                '…',
                'e.g.',
                '1.',
                ' ',
              ),
              { maxLength: 200 },
            )
            .map((w) => w.join(' ')),
        ),
        top_k: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
      })
      .map((v) => JSON.stringify(v)),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 })).map((v) => JSON.stringify(v)),
  );
  const bodies = fc.sample(jsonish, { numRuns: 760, seed: 20261122 });
  for (const body of bodies) out.push({ body });
  // Raw bytes, including invalid UTF-8.
  for (const bytes of fc.sample(fc.uint8Array({ maxLength: 400 }), { numRuns: 120, seed: 7 })) out.push({ body: bytes });
  // Hostile or odd content types.
  const types = [
    'text/plain',
    'application/xml',
    'multipart/form-data; boundary=x',
    'application/json; charset=utf-16',
    '',
    'application/json\u0000',
    'application/jsonx',
  ];
  while (out.length < 1000) {
    const n = out.length;
    out.push({ body: n % 2 ? '{"query":"q","answer":"a."}' : hostileStrings[n % hostileStrings.length], type: types[n % types.length] });
  }
  return out.slice(0, 1000);
}

let server: ServerHandle;

beforeAll(async () => {
  const kb = await knowledgeBaseFromTexts(
    [{ source: 'paris.txt', text: 'Paris is the capital of France. It had 2,102,650 inhabitants in January 2023. The Seine flows through it.' }],
    createLexicalEmbedder(),
  );
  server = await startServer({
    port: 0,
    engine: { analyze: (request, signal) => analyze(kb, request, {}, signal) },
    limits: { maxBodyBytes: 64 * 1024, rateBurst: 100_000, ratePerSecond: 100_000 },
    log: false,
  });
});

afterAll(async () => {
  await server?.close();
});

describe('fuzzing POST /analyze', () => {
  it('answers 1,000 malformed or hostile bodies without a 5xx and stays healthy', async () => {
    const all = shots();
    expect(all).toHaveLength(1000);
    const statuses = new Map<number, number>();
    const fivexx: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < all.length) {
        const shot = all[next++];
        const headers: Record<string, string> = {};
        if (shot.type !== undefined) {
          if (shot.type) headers['content-type'] = shot.type.split('\u0000').join('');
        } else headers['content-type'] = 'application/json';
        const body = typeof shot.body === 'string' ? enc.encode(shot.body) : shot.body;
        const res = await fetch(`${server.url}/analyze`, { method: 'POST', headers, body: Buffer.from(body) });
        const text = await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500) fivexx.push(`${res.status} for ${String(shot.body).slice(0, 80)}: ${text.slice(0, 120)}`);
        // Every answer is JSON we can parse (errors are data, not stack traces).
        expect(() => JSON.parse(text)).not.toThrow();
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect(fivexx).toEqual([]);
    expect((statuses.get(400) ?? 0) + (statuses.get(413) ?? 0) + (statuses.get(415) ?? 0)).toBeGreaterThan(500);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(50); // the engine really ran, not only the validation
    expect(statuses.get(422) ?? 0).toBeGreaterThan(0); // answers with no claim in them
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    const ok = await fetch(`${server.url}/analyze`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'q', answer: 'Paris is the capital of France.' }),
    });
    expect(ok.status).toBe(200);
  });
});

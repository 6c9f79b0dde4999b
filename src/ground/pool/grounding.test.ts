import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { pseudoEmbedding } from '../../mock/server.js';
import { startMockOpenAI, type MockOpenAI } from '../../mock/openai.js';
import { createLexicalEmbedder } from '../embedders/lexical.js';
import { createOpenAIEmbedder } from '../embedders/openai.js';
import type { AnswerGenerator } from '../engine.js';
import { ingest } from '../kb/ingest.js';
import { createGroundingEngine } from '../service.js';
import { heaviestAnswer } from '../testing/heavy.js';
import { GroundingRequestError, GroundingUnavailableError } from '../types.js';
import { createGroundingPool, PoolOverloadedError, type GroundingPool } from './grounding.js';
import { PROMPTLY_MS, START_MS } from '../../testing/time.js';

let root = '';
let lexicalKb = '';
let remoteKb = '';
let embeddings: MockOpenAI;
/** The endpoint's answer to a text with "slow" waits for this, released when the suite ends: it never comes in time. */
let releaseSlow: () => void = () => {};
const slowGate = new Promise<void>((r) => (releaseSlow = r));
const pools: GroundingPool[] = [];
const DIM = 16;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'assay-gpool-'));
  const docs = join(root, 'docs');
  await mkdir(docs);
  await writeFile(join(docs, 'tower.md'), '# The tower\n\nThe Eiffel Tower is in Paris. It was completed in 1889. It is 330 metres tall.\n');
  await writeFile(join(docs, 'router.txt'), 'Opened routers can be returned within 14 days. The router reboots in about two minutes.\n');
  lexicalKb = join(root, 'kb');
  await ingest(lexicalKb, [docs], { embedder: createLexicalEmbedder({ dimension: 128 }), cwd: root });
  // A KB embedded by an OpenAI-compatible endpoint (the real mock server): the analysis then waits on real I/O,
  // which holds its worker for as long as the endpoint makes it: until the suite ends for a text with "slow", a 400 for "fail".
  embeddings = await startMockOpenAI({
    embeddings: async (body) => {
      const input = Array.isArray(body.input) ? body.input.map(String) : [String(body.input)];
      if (input.some((t) => t.includes('fail'))) return { status: 400, body: { error: { message: 'cannot embed this' } } };
      if (input.some((t) => t.includes('slow'))) await slowGate;
      return input.map((t) => pseudoEmbedding(t, DIM));
    },
  });
  remoteKb = join(root, 'remote-kb');
  const embedder = await createOpenAIEmbedder({ model: 'mock-embed', baseURL: embeddings.baseURL, apiKey: 'k', dimension: DIM, retry: { retries: 0 } });
  await ingest(remoteKb, [docs], { embedder, cwd: root });
});

afterAll(async () => {
  releaseSlow();
  await Promise.all(pools.map((p) => p.close()));
  await embeddings?.close();
  await rm(root, { recursive: true, force: true });
});

async function pool(options: Partial<Parameters<typeof createGroundingPool>[0]> = {}) {
  const p = await createGroundingPool({ kbDir: lexicalKb, workers: 1, ...options });
  pools.push(p);
  return p;
}

const remoteOptions = () => ({ kbDir: remoteKb, embedderConfig: { baseURL: embeddings.baseURL, apiKey: 'k' } });

describe('createGroundingPool', () => {
  it('gives the report the engine gives in this thread, for answers and for query-only requests', async () => {
    const llm: AnswerGenerator = { id: 'fixed', generate: async (q) => `The Eiffel Tower is in Paris. ${q} It was completed in 1890.` };
    const p = await pool({ workers: 2, llm });
    const local = await createGroundingEngine({ kbDir: lexicalKb, llm });
    const requests = [
      { query: 'Where is it?', answer: 'The Eiffel Tower is in Paris. It is 330 metres tall. Routers can be returned within 60 days.' },
      { query: 'When was it built?', answer: heaviestAnswer(), top_k: 3 },
      { query: 'When was the tower built?' },
    ];
    for (const request of requests) expect(await p.analyze(request)).toEqual(await local.analyze(request));
    expect((await p.analyze(requests[2])).answer_generated).toBe(true);
    expect(p.stats()).toMatchObject({ size: 2, started: 2, crashed: 0, terminated: 0 });
  });

  it.runIf(process.platform === 'linux')('runs its workers at a lower CPU priority than the main thread (nice +10)', async () => {
    // field 19 of /proc/<pid>/task/<tid>/stat is the thread's nice value
    const nice = (task: string) => Number(readFileSync(`/proc/self/task/${task}/stat`, 'utf8').split(') ')[1].split(' ')[16]);
    const mine = Number(readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' ')[16]);
    const lowered = () => readdirSync('/proc/self/task').filter((t) => nice(t) === Math.min(19, mine + 10)).length;
    const before = lowered();
    const p = await pool({ workers: 2 });
    expect(lowered()).toBe(before + 2);
    await p.close();
    await expect.poll(lowered, { timeout: START_MS }).toBe(before);
  });

  it('returns the engine’s request errors as they were (400, 422, with the field)', async () => {
    const p = await pool();
    const err = (request: object) => p.analyze(request as never).catch((e: unknown) => e);
    const none = await err({ query: 'q', answer: ' --- ' });
    expect(none).toBeInstanceOf(GroundingRequestError);
    expect(none).toMatchObject({ status: 422, field: 'answer', message: expect.stringContaining('no claim') });
    expect(await err({ query: 'q', answer: 'A b. '.repeat(300) })).toMatchObject({
      status: 400,
      field: 'answer',
      message: expect.stringContaining('300 claims'),
    });
    expect(await err({ query: 'q' })).toMatchObject({ status: 400, field: 'answer', message: expect.stringContaining('no LLM is configured') });
  });

  it('says a failed answer generation is a 503 (the LLM runs on the main thread)', async () => {
    const p = await pool({ llm: { id: 'down', generate: async () => Promise.reject(new Error('connection refused')) } });
    const err = await p.analyze({ query: 'q' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GroundingUnavailableError);
    expect(err).toMatchObject({ message: 'answer generation failed: connection refused' });
  });

  it('refuses to start on a KB it cannot open, with the message the engine gives', async () => {
    const missing = join(root, 'nothing-here');
    const inThread = await createGroundingEngine({ kbDir: missing }).catch((e: unknown) => e);
    const inPool = await createGroundingPool({ kbDir: missing, workers: 2 }).catch((e: unknown) => e);
    expect(inPool).toBeInstanceOf(UsageError);
    expect((inPool as Error).message).toBe((inThread as Error).message);
  });

  it('an embedder that fails for every claim is a 503 from the worker', async () => {
    const p = await pool(remoteOptions());
    const err = await p.analyze({ query: 'q', answer: 'Please fail here.' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GroundingUnavailableError);
    expect((err as Error).message).toMatch(/embedding failed for every claim/);
  });

  it('at the deadline, stops the analysis by replacing its worker; the next request is served', async () => {
    const p = await pool(remoteOptions());
    const t0 = performance.now();
    await expect(p.analyze({ query: 'q', answer: 'A slow claim about the tower.' }, AbortSignal.timeout(300))).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(performance.now() - t0).toBeLessThan(PROMPTLY_MS); // the endpoint answers only when the suite ends: the request did not wait for it
    expect(p.stats()).toMatchObject({ terminated: 1, started: 2 });
    const next = await p.analyze({ query: 'q', answer: 'The Eiffel Tower is in Paris.' });
    expect(next.claims_analysis).toHaveLength(1);
  });

  it('refuses a request when every worker is busy and the queue is full', async () => {
    const p = await pool({ ...remoteOptions(), workers: 1, queue: 1 });
    const ctrl = new AbortController();
    const busy = p.analyze({ query: 'q', answer: 'A slow claim.' }, ctrl.signal).catch((e: unknown) => e);
    const waiting = p.analyze({ query: 'q', answer: 'The Eiffel Tower is in Paris.' });
    const refused = await p.analyze({ query: 'q', answer: 'The Eiffel Tower is in Paris.' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PoolOverloadedError);
    expect(p.stats()).toMatchObject({ busy: 1, queued: 1 });
    ctrl.abort(new Error('client gone'));
    expect(await busy).toMatchObject({ message: 'client gone' });
    expect((await waiting).claims_analysis).toHaveLength(1);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite.js';
import { startMockOpenAI, type MockOpenAI } from '../mock/openai.js';
import { captureCli } from './testing/capture.js';
import { sparePort } from '../testing/throwaway.js';
import { useConfigDir } from './testing/config-dir.js';

// Issue 12 item 4, the reproducer: `baseURL: http://127.0.0.1:9/v1` (nothing listens) and 100 samples spent ~49 s
// retrying every sample. Calls that keep failing the same way stop the run early: one message, exit 3, resumable.

const tmp = useConfigDir('assay-fail-fast-');
let mock: MockOpenAI | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const config = (name: string, baseURL: string) =>
  tmp.config(
    `${name}.yaml`,
    `name: ${name}\nsystem: { openai: { baseURL: "${baseURL}", model: m } }\ninputs: [a, b, c, d, e, f, g, h, i, j]\nsamples: 10\nvalidators:\n  - { name: any, predicate: "o => o.length > 0", minSuccess: 0.5 }\n`,
  );

describe('assay run: fail fast', () => {
  it('a small run stopped early: --resume --retry-errors runs the failed samples again, so the verdict is not left to the errors', async () => {
    const store = join(tmp.dir(), 'small.db');
    // 20 of 20 passes once the errors are run again: enough to show 0.8 at 95% (lower bound 83.2%).
    const small = (name: string, baseURL: string) =>
      tmp.config(
        `${name}.yaml`,
        `name: ${name}\nsystem: { openai: { baseURL: "${baseURL}", model: m } }\ninputs: [a, b]\nsamples: 10\nconcurrency: 5\nvalidators:\n  - { name: any, predicate: "o => o.length > 0", minSuccess: 0.8 }\n`,
      );
    const r = await captureCli(['run', small('small', `http://127.0.0.1:${await sparePort()}/v1`), '--store', store, '--no-progress']);
    expect(r.code).toBe(3);
    expect(r.err).toContain('--retry-errors');
    const runId = /run (\S+): 2 inputs/.exec(r.err)![1];
    mock = await startMockOpenAI({ chat: () => ({ content: 'fine' }) });
    const fixed = small('small-fixed', mock.baseURL);
    expect((await captureCli(['run', fixed, '--retry-errors', '--store', store])).code).toBe(2); // only with --resume
    // A config that no longer matches the run is refused before anything is deleted.
    const other = tmp.config('small-other.yaml', readFileSync(fixed, 'utf8').replace('inputs: [a, b]', 'inputs: [a, z]'));
    const refused = await captureCli(['run', other, '--resume', runId, '--retry-errors', '--store', store, '--no-progress']);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/no longer matches the stored run/);
    const kept = openSqliteStore(store, { readonly: true });
    expect((await kept.samples.list(runId)).filter((x) => x.generationError !== undefined).length).toBeGreaterThanOrEqual(5);
    await kept.close();
    expect(mock.requests.length).toBe(0);
    const again = await captureCli(['run', fixed, '--resume', runId, '--retry-errors', '--store', store, '--no-progress']);
    expect(again.err).toMatch(/--retry-errors: [5-9] sample\(s\) of run \S+ whose generation failed will run again/);
    expect(again.code).toBe(0);
    expect(mock.requests.length).toBe(20); // the failed ones again, and those never run
    const s = openSqliteStore(store, { readonly: true });
    const stored = await s.samples.list(runId);
    await s.close();
    expect(stored).toHaveLength(20);
    expect(stored.filter((x) => x.generationError !== undefined)).toHaveLength(0);
  });

  it('connection refused on every call: stops after 5 samples with one message, exit 3, and --resume finishes the run once fixed', async () => {
    const store = join(tmp.dir(), 'refused.db');
    const r = await captureCli(['run', config('refused', `http://127.0.0.1:${await sparePort()}/v1`), '--store', store, '--no-progress']);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(
      /assay: stopped early: 5 samples in a row failed the same way \(connection\): openai:m: ECONNREFUSED .*Fix the cause, then finish the run with --resume/,
    );
    expect(r.err.match(/stopped early/g)).toHaveLength(1); // one message, once
    expect(r.out).toMatch(/INTERRUPTED: partial results, \d+ of 100 samples not run; resume with: assay run --resume \S+ --store /);
    const runId = /run (\S+): 10 inputs/.exec(r.err)![1];
    const s = openSqliteStore(store, { readonly: true });
    expect((await s.runs.get(runId))?.status).toBe('interrupted');
    const stored = await s.samples.list(runId);
    await s.close();
    expect(stored.length).toBeGreaterThanOrEqual(5);
    expect(stored.length).toBeLessThanOrEqual(5 + 8); // the default concurrency: the rest were never started

    // Fixed: the same experiment against a live endpoint (the system may change on resume).
    mock = await startMockOpenAI({ chat: () => ({ content: 'fine' }) });
    const again = await captureCli(['run', config('refused-fixed', mock.baseURL), '--resume', runId, '--store', store, '--no-progress']);
    expect(again.err).toContain(`resuming: ${stored.length} of 100 samples already stored`);
    expect(again.code).toBe(0);
    expect(mock.requests.length).toBe(100 - stored.length);
  });

  it('--max-errors tunes it: a 401 on every call stops after 2 with --max-errors 2, and never with 0', async () => {
    mock = await startMockOpenAI({ chat: () => ({ status: 401, body: { error: { message: 'invalid api key', type: 'invalid_request_error' } } }) });
    const two = await captureCli([
      'run',
      config('auth', mock.baseURL),
      '--store',
      join(tmp.dir(), 'auth.db'),
      '--no-progress',
      '--max-errors',
      '2',
      '--concurrency',
      '1',
    ]);
    expect(two.code).toBe(3);
    expect(two.err).toMatch(/stopped early: 2 samples in a row failed the same way \(client\): .*401/);
    expect(mock.requests.length).toBe(2); // 401 is not retried; concurrency 1: nothing else in flight
    const before = mock.requests.length;
    const never = await captureCli(['run', config('auth-all', mock.baseURL), '--store', join(tmp.dir(), 'auth.db'), '--no-progress', '--max-errors', '0']);
    expect(never.code).toBe(1); // every cell an error: nothing decided, inconclusive
    expect(mock.requests.length - before).toBe(100);
    const bad = await captureCli(['run', config('auth-bad', mock.baseURL), '--max-errors', '-1']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--max-errors: expected a whole number ≥ 0 \(0 never stops\), found "-1"/);
  });

  it('calls that fail now and then do not stop a run', async () => {
    mock = await startMockOpenAI({ chat: (_b, n) => (n % 3 === 0 ? { status: 400, body: { error: { message: 'bad request' } } } : { content: 'fine' }) });
    const r = await captureCli([
      'run',
      config('flaky', mock.baseURL),
      '--store',
      join(tmp.dir(), 'flaky.db'),
      '--no-progress',
      '--max-errors',
      '2',
      '--concurrency',
      '1',
    ]);
    expect(r.err).not.toContain('stopped early');
    expect(r.out).toMatch(/any +100\.0% .* 67 +0 +33/); // every third call failed: errors, counted apart
    expect(mock.requests.length).toBe(100);
  });
});

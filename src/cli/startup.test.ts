import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startMock } from '../mock/index.js';
import { useConfigDir } from './testing/config-dir.js';
import { loadedPackagesIn, packagesIn, tracePackagesArgs } from './testing/loaded-packages.js';
import { runCliProcess, TSX } from './testing/process.js';

/**
 * Start-up, held structurally (which packages a process loads), not by time: each dependency loads where
 * it is used (docs/runner.md, "Start-up"). The tracer sees packages loaded lazily too: the second run,
 * which uses them, must list them. The runs are the CLI under test (the sources, or the built bin under
 * `npm test`), whose packages are those of node_modules and, in the bin, the ones inlined in its chunks.
 */
const tmp = useConfigDir('assay-startup-');

/** Loaded by none of these processes unless used: queue, Postgres, charts and DOM, sandbox, solver, other providers, server. */
const HEAVY = [
  'bullmq',
  'ioredis',
  'pg',
  '@observablehq/plot',
  'linkedom',
  'quickjs-emscripten',
  'highs',
  're2js',
  'ajv',
  'csv-parse',
  'htmlparser2',
  'cli-progress',
  '@hono/node-server',
  'ollama',
  '@ai-sdk/anthropic',
  '@huggingface/transformers',
];

const loadedBy = (name: string) => join(tmp.dir(), `${name}.loaded`);

describe('start-up: what a run loads', () => {
  it('a plain run (simulated system, contains check, SQLite store, terminal report) loads none of the heavy packages, nor openai', async () => {
    const config = tmp.config(
      'plain.yaml',
      [
        'name: plain',
        'system: { simulated: { seed: 1, latencyMs: 0, outputs: [{ text: "hello there" }] } }',
        'inputs: ["Say hello."]',
        'samples: 2',
        'validators:',
        '  - { name: greets, check: { type: contains, value: hello }, minSuccess: 0.01 }',
        '',
      ].join('\n'),
    );
    const r = await runCliProcess(['run', config, '--store', join(tmp.dir(), 'plain.db'), '--no-progress'], {
      nodeArgs: tracePackagesArgs(loadedBy('plain')),
    });
    expect(r.err).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/greets .* PASS/);
    const loaded = loadedPackagesIn(loadedBy('plain'));
    expect([...loaded]).toEqual(expect.arrayContaining(['better-sqlite3', 'yaml', 'commander']));
    expect(HEAVY.filter((p) => loaded.has(p))).toEqual([]);
    expect(loaded.has('openai')).toBe(false);
  }, 120_000);

  it('a run that uses them loads them: openai against the mock, a regex check, an HTML report — and still no queue, Postgres, sandbox or solver', async () => {
    const mock = await startMock('openai', { chat: () => ({ content: 'hello there' }) });
    try {
      const config = tmp.config(
        'used.yaml',
        [
          'name: used',
          `system: { openai: { model: gpt-4o-mini, baseURL: "${mock.baseURL}" } }`,
          'inputs: ["Say hello."]',
          'samples: 1',
          'validators:',
          '  - { name: greets, check: { type: regex, pattern: "^hel+o" }, minSuccess: 0.01 }',
          '',
        ].join('\n'),
      );
      const r = await runCliProcess(['run', config, '--store', join(tmp.dir(), 'used.db'), '--no-progress', '--html', join(tmp.dir(), 'used.html')], {
        nodeArgs: tracePackagesArgs(loadedBy('used')),
        env: { ...process.env, OPENAI_API_KEY: 'test' },
      });
      expect(r.err).not.toMatch(/internal error/);
      expect(r.code).toBe(0);
      const loaded = loadedPackagesIn(loadedBy('used'));
      expect([...loaded]).toEqual(expect.arrayContaining(['openai', 're2js', '@observablehq/plot', 'linkedom']));
      expect(['bullmq', 'ioredis', 'pg', 'quickjs-emscripten', 'highs', 'ajv', '@hono/node-server'].filter((p) => loaded.has(p))).toEqual([]);
    } finally {
      await mock.close();
    }
  }, 120_000);

  // The root and each subpath's entry (src/api/<name>.ts): what their functions use loads when they first run.
  const ENTRIES = [
    'index.ts',
    ...readdirSync(fileURLToPath(new URL('../api/', import.meta.url)))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => `api/${f}`),
  ];

  it.each(ENTRIES)(
    "importing the library's entry %s loads none of the heavy packages, nor openai",
    async (entry) => {
      const index = fileURLToPath(new URL(`../${entry}`, import.meta.url));
      const file = loadedBy(`library-${entry.replace(/\W/g, '-')}`);
      const code = await new Promise<number | null>((resolve) => {
        const child = spawn(
          process.execPath,
          ['--import', TSX, ...tracePackagesArgs(file), '--input-type=module', '-e', `await import(${JSON.stringify(index)})`],
          {
            stdio: ['ignore', 'ignore', 'inherit'],
          },
        );
        child.on('close', resolve);
      });
      expect(code).toBe(0);
      expect(readFileSync(file, 'utf8')).toContain(pathToFileURL(index).href); // the tracer saw the entry's imports
      const loaded = packagesIn(file);
      expect([...HEAVY, 'openai'].filter((p) => loaded.has(p))).toEqual([]);
    },
    120_000,
  );
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonReport } from '../report/json.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

// Issue 12 item 5, the reproducer: an `http` system with a wrong outputPath against an OpenAI-style app showed
// three `error ×1` lines cut at `{"id":"chatcmpl-…` (each answer has its own id). Errors must be grouped by
// what they say, with counts, and shown whole enough to see what the answer held.

const tmp = useConfigDir('assay-run-errors-');
let server: Server;
let url = '';
let n = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n++;
      const body = {
        id: `chatcmpl-${(1e9 + n * 7919).toString(36)}${n}`,
        object: 'chat.completion',
        created: 1_700_000_000 + n,
        // The text differs from answer to answer, as an LLM's does: the group must not split on it.
        choices: [{ index: 0, message: { role: 'assistant', content: n === 1 ? 'Hello there' : `Answer number ${n}` }, finish_reason: 'stop' }],
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('errors in reports', () => {
  it('a wrong outputPath: one group with its count, the answer visible, in the terminal, JSON, Markdown and HTML', async () => {
    const file = tmp.config(
      'wrong-path.yaml',
      `system:\n  http:\n    url: ${url}\n    body: { messages: [{ role: user, content: "{{input}}" }] }\n    outputPath: choices.0.text\ninputs: [a, b, c]\nsamples: 1\nvalidators:\n  - { name: any, check: { type: words, min: 1 }, minSuccess: 0.5 }\n`,
    );
    const json = join(tmp.dir(), 'r.json');
    const md = join(tmp.dir(), 'r.md');
    const html = join(tmp.dir(), 'r.html');
    const r = await captureCli(['run', file, '--store', join(tmp.dir(), 'a.db'), '--no-progress', '--json', json, '--markdown', md, '--html', html]);
    const lines = r.out.split('\n').filter((l) => l.includes('error ×'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /error ×3 \(3 variants: ids or quoted answers differ\): .*outputPath choices\.0\.text is not in the answer \(choices\.0 has index, message, finish_reason\); answer: \{"id":"chatcmpl-/,
    );
    // Not cut before the informative part: what the answer holds instead of choices.0.text.
    expect(lines[0]).toContain('"message":{"role":"assistant","content":"Hello there"}');
    const report = JSON.parse(readFileSync(json, 'utf8')) as JsonReport;
    expect(report.stats?.topErrors).toHaveLength(1);
    expect(report.stats?.topErrors[0]).toMatchObject({ count: 3, variants: 3 });
    expect(report.stats?.distinctErrors).toBe(1);
    expect(readFileSync(md, 'utf8')).toMatch(/- ×3 \(3 variants: ids or quoted answers differ\): `.*"content":"Hello there"/);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<section class="card" aria-label="errors"><h2>Errors: 3 (1 distinct)</h2>');
    expect(page).toContain('outputPath choices.0.text is not in the answer');
  });
});

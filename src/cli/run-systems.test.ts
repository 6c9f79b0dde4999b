import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonReport } from '../report/json.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

// Every kind of system under test, end to end through `assay run` as a user runs it: config file →
// system → validators → store → reports → exit code.

const tmp = useConfigDir('assay-run-systems-');
const write = tmp.config;

async function run(configFile: string, ...flags: string[]): Promise<{ code: number; out: string; err: string; report: JsonReport }> {
  const json = join(tmp.dir(), `${basename(configFile)}.report.json`); // never next to a config in the repo
  const r = await captureCli(['run', configFile, '--store', join(tmp.dir(), 'assay.db'), '--json', json, '--no-progress', ...flags]);
  let report: JsonReport | undefined;
  try {
    report = JSON.parse(readFileSync(json, 'utf8')) as JsonReport;
  } catch {
    throw new Error(`no report (exit ${r.code}): ${r.err}`);
  }
  return { ...r, report };
}

// These runs are about the kinds of system, not statistics: half of the few outputs fail by design, and the
// point rule (rate 50% ≥ 50%, chosen explicitly) decides them.
const rule = `verdict: point
validators:
  - { name: short, check: { type: words, max: 6 }, minSuccess: 0.5 }
`;

describe('assay run against each kind of system', () => {
  it('http: posts each input to the app, reads the output at outputPath, retries a 503', async () => {
    const seen: unknown[] = [];
    let calls = 0;
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        calls++;
        if (calls === 2) return res.writeHead(503, { 'retry-after': '0' }).end('busy'); // transient: retried, not an error
        const q = JSON.parse(body) as { question: string; user: string };
        seen.push(q);
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ data: { answer: q.question === 'long' ? 'a b c d e f g h' : `ok ${q.question}` } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/chat`;
    try {
      const file = write(
        'http.yaml',
        `name: http-app
system:
  http:
    url: ${url}
    headers: { x-team: qa }
    body: { question: "{{input}}", user: tester }
    outputPath: data.answer
inputs: [short, long]
samples: 3
${rule}`,
      );
      const r = await run(file);
      expect(r.code).toBe(0);
      expect(r.report.system).toBe(`http:${url}`);
      expect(r.report.validators[0].counts).toEqual({ pass: 3, fail: 3, error: 0, pending: 0 });
      expect(r.report.stats?.retries).toBe(1);
      expect(seen).toHaveLength(6);
      expect(seen).toContainEqual({ question: 'long', user: 'tester' });
    } finally {
      server.close();
    }
  });

  it('command: spawns the program once per sample with the input on stdin', async () => {
    const app = write(
      'app.mjs',
      `let s = ''; process.stdin.on('data', (d) => (s += d)); process.stdin.on('end', () => process.stdout.write(s.trim() === 'long' ? 'one two three four five six seven' : 'fine'));\n`,
    );
    const file = write(
      'command.yaml',
      `name: command-app
system:
  command: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(app)}] }
inputs: [short, long]
samples: 2
${rule}`,
    );
    const r = await run(file);
    expect(r.code).toBe(0);
    expect(r.report.validators[0].counts).toEqual({ pass: 2, fail: 2, error: 0, pending: 0 });
    expect(r.report.inputs.map((x) => x.rate)).toEqual([1, 0]);
  });

  it('command: a program that exits non-zero gives error cells with its message, never fails', async () => {
    const file = write(
      'crash.yaml',
      `name: crash
system:
  command: { command: ${JSON.stringify(process.execPath)}, args: ["-e", "console.error('model not loaded'); process.exit(3)"] }
inputs: [a]
samples: 2
${rule}`,
    );
    const r = await run(file);
    expect(r.code).toBe(1);
    expect(r.report.validators[0].counts).toEqual({ pass: 0, fail: 0, error: 2, pending: 0 });
    expect(r.out).toMatch(/error ×2: .*model not loaded/);
  });

  it('replay: validates recorded JSONL and CSV logs; a sample with no recording is an error, not a fail', async () => {
    write(
      'logs.jsonl',
      [
        '{"input":"hi","output":"Hello there"}',
        '{"input":"hi","output":"Hello, it is a pleasure to meet you today"}',
        '{"input":"bye","output":"Bye"}',
        '',
      ].join('\n'),
    );
    write('logs.csv', 'input,output\nhi,Hello there\nhi,"Hello, it is a pleasure to meet you today"\nbye,"Bye, ""friend"""\n');
    for (const log of ['logs.jsonl', 'logs.csv']) {
      const file = write(`replay-${log}.yaml`, `name: replayed\nsystem: { replay: { file: ${log} } }\ninputs: [hi, bye]\nsamples: 2\n${rule}`);
      const r = await run(file);
      expect(r.report.validators[0].counts, log).toEqual({ pass: 2, fail: 1, error: 1, pending: 0 });
      expect(
        r.report.inputs.map((x) => x.counts.error),
        log,
      ).toEqual([0, 1]);
      // 2 of 3 decided cells pass (≥ 0.5), but 1 of the 4 checked cells is an error (25% > maxErrorShare 5%):
      // the missing recording could have been a failure, so the verdict is `error` and the run exits 1.
      expect(r.report.validators[0]).toMatchObject({ rate: 2 / 3, errorShare: 0.25, verdict: 'error' });
      expect(r.code, log).toBe(1);
    }
  });

  it('replay: with no inputs listed, the log itself says what was asked and how often', async () => {
    write('prod.csv', 'input,output\nhi,Hello there\nbye,Bye\nhi,"Hello, it is a pleasure to meet you today"\nhi,Hey\n');
    const r = await run(write('prod.yaml', `name: prod-logs\nsystem: { replay: { file: prod.csv } }\n${rule}`));
    expect(r.report.design).toEqual({ N: 2, M: 3, K: 1 });
    expect(r.report.inputs.map((x) => [x.input, x.counts])).toEqual([
      ['hi', { pass: 2, fail: 1, error: 0, pending: 0 }],
      ['bye', { pass: 1, fail: 0, error: 2, pending: 0 }], // recorded once: two samples have no recording
    ]);
    expect(r.out).toMatch(/error ×2: .*no recorded output for input #2 \("bye"\)/);
  });

  it('replay: a malformed log line is exit 2 naming the file and line', async () => {
    write('broken.jsonl', '{"input":"hi","output":"Hello"}\n{"input":"hi","output":42}\n');
    const file = write('replay-broken.yaml', `name: replayed\nsystem: { replay: { file: broken.jsonl } }\ninputs: [hi]\nsamples: 2\n${rule}`);
    const r = await captureCli(['run', file, '--store', join(tmp.dir(), 'assay.db')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/broken\.jsonl:2: "output": expected a string, found/);
  });

  it('assay.config.ts: the TypeScript twin of the example runs as it is', async () => {
    const r = await run(resolve('examples/assay.config.ts'), '--samples', '20');
    expect([r.report.name, r.report.design]).toEqual(['contractions', { N: 4, M: 20, K: 1 }]);
    expect(r.report.validators[0].counts.error).toBe(0);
    expect(r.report.validators[0].counts.pass + r.report.validators[0].counts.fail).toBe(80);
    expect([0, 1]).toContain(r.code);
  });
});

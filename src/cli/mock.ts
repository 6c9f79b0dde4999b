import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { MOCK_DIALECTS, startMock, type MockProvider } from '../mock/index.js';
import { loadMockRules, mockResponder } from '../mock/rules.js';
import { intFlag, numberFlag, oneOfFlag, shareFlag } from './flags.js';

interface MockFlags {
  port: string;
  host: string;
  provider: string;
  rules?: string;
  judge?: string;
  latency: string;
  errorRate: string;
  errorStatus: string;
  seed: string;
  apiKey?: string;
}

/**
 * `assay mock`: a local mock LLM server (OpenAI-compatible by default) to try configs offline. Answers from
 * a rules file (YAML or JSONL: match → reply), else echoes the last user message; a client asking for JSON
 * with a schema gets the smallest object of it. A judge's request is answered by a rule with `judge: pass|fail`
 * (or `--judge`), bound to its nonce; the echo is not bound, so without one every verdict is an error that says
 * so (src/judge/binding.ts). Runs until Ctrl-C, SIGTERM, or the process that started it exits.
 */
/** How often the mock checks that the process that started it is still there. */
const PARENT_CHECK_MS = 250;

export function register(program: Command): void {
  program
    .command('mock')
    .description('Start a local mock LLM server (OpenAI-compatible by default) to try configs offline')
    .option('--port <n>', 'port to listen on (0: any free port)', '8080')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--provider <name>', `wire format: ${Object.keys(MOCK_DIALECTS).join(', ')}`, 'openai')
    .option(
      '--rules <file>',
      'answers: a YAML list or JSONL of { match | regex, model?, afterTool?, result?, reply | call | status | judge, delayMs? }; default: echo',
    )
    .option(
      '--judge <verdict>',
      "answer every judge request the rules leave (pass or fail), bound to its nonce; default: the echo, which no judge's verdict is",
    )
    .option('--latency <ms>', 'added to every answer', '0')
    .option('--error-rate <x>', 'share of requests answered with --error-status instead (0–1)', '0')
    .option('--error-status <code>', 'the status of those errors', '503')
    .option('--seed <n>', 'seed of the error draws', '1')
    .option('--api-key <key>', 'require this key, sent the way the provider expects')
    .action(async (flags: MockFlags) => {
      oneOfFlag('--provider', flags.provider, Object.keys(MOCK_DIALECTS));
      const port = intFlag('--port', flags.port, { min: 0, max: 65535, what: 'a port number' })!;
      const latencyMs = numberFlag('--latency', flags.latency, { min: 0, what: 'a number of milliseconds' })!;
      const errorRate = shareFlag('--error-rate', flags.errorRate)!;
      const errorStatus = intFlag('--error-status', flags.errorStatus, { min: 400, max: 599, what: 'an HTTP error status' })!;
      const seed = intFlag('--seed', flags.seed)!;
      const judge = oneOfFlag('--judge', flags.judge, ['pass', 'fail'] as const);
      const rules = [...(flags.rules !== undefined ? loadMockRules(flags.rules) : []), ...(judge ? [{ judge }] : [])];
      const ruled = rules.length - (judge ? 1 : 0);
      let server;
      try {
        server = await startMock(flags.provider as MockProvider, {
          port,
          host: flags.host,
          chat: mockResponder({ rules, latencyMs, errorRate, errorStatus, seed }),
          ...(flags.apiKey !== undefined ? { apiKey: flags.apiKey } : {}),
        });
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
          throw new UsageError(`--port: cannot listen on ${flags.host}:${port} (${String(code)}); choose another with --port, or 0 for any free port`, {
            path: '--port',
          });
        }
        throw err;
      }
      const judges = judge ? `judges: ${judge.toUpperCase()}` : 'judges: not bound (errors) without a judge rule or --judge';
      const how = `${ruled ? `${ruled} rule${ruled === 1 ? '' : 's'} from ${flags.rules}, else echo` : 'echo'}; ${judges}`;
      process.stdout.write(
        `assay mock: ${flags.provider} mock server at ${server.baseURL} (${how}; latency ${latencyMs} ms${errorRate ? `; ${errorRate * 100}% errors ${errorStatus}` : ''})\n` +
          `  use it as   system: { ${flags.provider}: { model: mock, baseURL: "${server.baseURL}" } }\n` +
          '  Ctrl-C stops it.\n',
      );
      // It also stops when the process that started it exits: `npx assay mock &` in a script is npm's child, and
      // `kill %1` ends npm, not this process, which then outlived the script and answered its next run with old rules.
      const parent = process.ppid;
      let why = '';
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          clearInterval(orphaned);
          resolve();
        };
        const orphaned = setInterval(() => {
          if (process.ppid === parent) return;
          why = ` (the process that started it, ${parent}, exited)`;
          stop();
        }, PARENT_CHECK_MS);
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      await server.close();
      process.stdout.write(`assay mock: stopped after ${server.requests.length} requests${why}\n`);
    });
}

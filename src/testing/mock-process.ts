import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { judgeReply } from '../mock/judge.js';
import { startMockOpenAI } from '../mock/openai.js';

/**
 * The mock OpenAI-compatible server in a process of its own, recording when each chat request arrived: for
 * measuring rates at the provider (rate limits, throughput) without the caller's event loop in the way.
 * Tests and benchmarks only.
 */
export interface MockProcess {
  baseURL: string;
  /** Arrival times (ms, the server's clock) of every chat request so far. */
  arrivals(): Promise<number[]>;
  close(): Promise<void>;
}

export interface MockProcessOptions {
  /** Answer content (default "a fine answer"). */
  content?: string;
  /** Answer as a judge instead: this verdict, bound to each request's nonce. */
  judge?: 'PASS' | 'FAIL';
  delayMs?: number;
  usage?: { prompt_tokens: number; completion_tokens: number };
}

type Message = { baseURL: string } | { arrivals: number[] };

export async function startMockProcess(opts: MockProcessOptions = {}): Promise<MockProcess> {
  const self = fileURLToPath(import.meta.url);
  const execArgv = self.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child: ChildProcess = fork(self, ['--serve-mock', JSON.stringify(opts)], { execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const next = () =>
    new Promise<Message>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the mock server process exited (${code})`));
      child.once('exit', onExit);
      child.once('message', (m) => {
        child.off('exit', onExit); // one listener per question would pile up over a benchmark's many
        resolve(m as Message);
      });
    });
  const { baseURL } = (await next()) as { baseURL: string };
  return {
    baseURL,
    async arrivals() {
      const reply = next();
      child.send('arrivals');
      return ((await reply) as { arrivals: number[] }).arrivals;
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

if (process.argv[2] === '--serve-mock' && process.send) {
  const opts = JSON.parse(process.argv[3] ?? '{}') as MockProcessOptions;
  const arrivals: number[] = [];
  const mock = await startMockOpenAI({
    chat: (b) => {
      arrivals.push(performance.now());
      return {
        content: opts.judge ? judgeReply(b, opts.judge) : (opts.content ?? 'a fine answer'),
        delayMs: opts.delayMs ?? 0,
        ...(opts.usage ? { usage: opts.usage } : {}),
      };
    },
  });
  process.send({ baseURL: mock.baseURL });
  process.on('message', () => process.send!({ arrivals }));
  process.on('SIGTERM', () => void mock.close().then(() => process.exit(0)));
}

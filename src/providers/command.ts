import { spawn } from 'node:child_process';
import type { InputValue } from '../core/validator.js';
import { abortError, excerpt, messageOf } from './errors.js';
import { requestSentHook } from './request-sent.js';
import { ProviderError, type GenerateOptions, type Generation, type SystemUnderTest } from './types.js';

export interface CommandSystemOptions {
  command: string;
  args?: string[];
  /** Working directory (the factory resolves it against the config's folder). */
  cwd?: string;
  /** Added to the parent's environment. */
  env?: Record<string, string>;
}

/** How much stderr to keep for the error message. */
const STDERR_TAIL = 2000;

/**
 * A program run once per call: the input on stdin (strings raw, objects as JSON), stdout is the output.
 * A non-zero exit is a ProviderError that is not retried (the same input would fail the same way).
 */
export class CommandSystem implements SystemUnderTest {
  readonly id: string;
  /** Children still running, killed by close() so none outlives the run. */
  private readonly running = new Set<ReturnType<typeof spawn>>();

  constructor(private readonly options: CommandSystemOptions) {
    this.id = `command:${[options.command, ...(options.args ?? [])].join(' ')}`;
  }

  generate(input: InputValue, { signal }: GenerateOptions): Promise<Generation> {
    const who = this.id;
    if (signal.aborted) return Promise.reject(abortError(signal, who));
    const started = performance.now();
    return new Promise<Generation>((resolve, reject) => {
      const child = spawn(this.options.command, this.options.args ?? [], {
        cwd: this.options.cwd,
        env: this.options.env ? { ...process.env, ...this.options.env } : process.env,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      requestSentHook()?.(); // the request has left: a rate limit counts it from here
      this.running.add(child);
      child.on('exit', () => this.running.delete(child));
      const stdout: Buffer[] = [];
      let stderr = '';
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        fn();
      };
      const onAbort = () => {
        child.kill('SIGKILL');
        settle(() => reject(abortError(signal, who)));
      };
      signal.addEventListener('abort', onAbort, { once: true });

      child.stdout.on('data', (c: Buffer) => stdout.push(c));
      child.stderr.on('data', (c: Buffer) => {
        stderr = (stderr + c.toString('utf8')).slice(-STDERR_TAIL);
      });
      child.on('error', (err) => {
        settle(() => reject(new ProviderError('client', `${who}: cannot run the command: ${messageOf(err)}`, { cause: err })));
      });
      child.on('close', (code, sig) => {
        settle(() => {
          if (code === 0) {
            const text = Buffer.concat(stdout)
              .toString('utf8')
              .replace(/\r?\n$/, '');
            resolve({ text, latencyMs: performance.now() - started });
            return;
          }
          const how = code !== null ? `exited with code ${code}` : `was killed by ${sig}`;
          const tail = stderr.trim() ? `; stderr: ${excerpt(stderr.slice(-500), 500)}` : '';
          reject(new ProviderError('client', `${who}: the command ${how}${tail}`));
        });
      });
      // A program that does not read its stdin closes the pipe early; that is not an error.
      child.stdin.on('error', () => {});
      child.stdin.end(typeof input === 'string' ? input : JSON.stringify(input));
    });
  }

  async close(): Promise<void> {
    for (const child of this.running) child.kill('SIGKILL');
    this.running.clear();
  }
}

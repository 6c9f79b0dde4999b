/**
 * A worker for the pool's own tests: it does on request what an analysis might do by accident — spin in
 * synchronous code, backtrack in a regular expression, run out of memory, exit, throw — or fails to load.
 */
import { existsSync } from 'node:fs';
import { threadId, workerData } from 'node:worker_threads';
import { UsageError } from '../../../errors.js';
import { serveTasks } from '../serve-tasks.js';

export type TestTask =
  | { op: 'echo'; value: unknown }
  | { op: 'sleep'; ms: number }
  | { op: 'spin' }
  | { op: 'regex' }
  | { op: 'oom' }
  | { op: 'exit'; code: number }
  | { op: 'uncaught' }
  | { op: 'throw' }
  /** Asks the main thread (the pool's onCall) for each of `inputs`, one after the other, and answers what it said. */
  | { op: 'call'; inputs: unknown[] };

const data = (workerData ?? {}) as { failIfExists?: string };

serveTasks<TestTask, unknown>(async () => {
  if (data.failIfExists && existsSync(data.failIfExists)) throw new UsageError(`cannot load: ${data.failIfExists} exists`, { path: '--kb' });
  return {
    info: { threadId },
    async run(task, tools) {
      switch (task.op) {
        case 'call': {
          const answers: unknown[] = [];
          for (const input of task.inputs) {
            try {
              answers.push({ value: await tools.call(input) });
            } catch (err) {
              answers.push({ error: `${(err as Error).name}: ${(err as Error).message}` });
            }
          }
          return answers;
        }
        case 'echo':
          return { value: task.value, threadId };
        case 'sleep':
          await new Promise((r) => setTimeout(r, task.ms));
          return { threadId };
        case 'spin':
          for (;;);
        case 'regex':
          // catastrophic backtracking: exponential in the number of a's
          return /^(a+)+$/.test('a'.repeat(64) + '!');
        case 'oom': {
          const hold: number[][] = [];
          for (;;) hold.push(new Array(1e6).fill(hold.length));
        }
        case 'exit':
          process.exit(task.code);
        // falls through (never reached)
        case 'uncaught':
          setTimeout(() => {
            throw new Error('uncaught in the worker');
          });
          return new Promise(() => {});
        case 'throw':
          throw new RangeError('a bad input');
      }
    },
  };
});

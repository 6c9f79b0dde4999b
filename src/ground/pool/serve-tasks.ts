import { parentPort } from 'node:worker_threads';
import { fromWire, toWire, type FromWorker, type Reply, type ToWorker } from './protocol.js';

/** What a task may ask of the main thread while it runs. */
export interface TaskTools {
  /** Has the main thread do `input` (I/O such as an LLM call, with what lives there: prices, cache, rate limits) and answer. */
  call(input: unknown): Promise<unknown>;
}

/**
 * The worker side of WorkerPool: loads the worker's state once (`load`), says it is ready (with `info`) or that
 * it failed, then runs each task it is sent, one at a time, and answers with the value or the error thrown.
 * A task may ask the main thread for work through `tools.call` (the pool's `onCall` answers it).
 */
export function serveTasks<I, O>(load: () => Promise<{ info?: unknown; run: (input: I, tools: TaskTools) => Promise<O> }>): void {
  const port = parentPort;
  if (!port) throw new Error('serveTasks must run in a worker thread');
  const send = (m: FromWorker) => port.postMessage(m);
  const pending = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  let calls = 0;
  load().then(
    ({ info, run }) => {
      port.on('message', (m: ToWorker | Reply) => {
        if ('reply' in m) {
          const p = pending.get(m.reply);
          pending.delete(m.reply);
          if (m.ok) p?.resolve(m.value);
          else p?.reject(fromWire(m.error));
          return;
        }
        const task = m;
        const tools: TaskTools = {
          call: (input) =>
            new Promise((resolve, reject) => {
              const call = ++calls;
              pending.set(call, { resolve, reject });
              send({ type: 'call', id: task.id, call, input });
            }),
        };
        run(task.input as I, tools).then(
          (value) => {
            try {
              send({ type: 'done', id: task.id, ok: true, value });
            } catch (err) {
              send({ type: 'done', id: task.id, ok: false, error: toWire(err) }); // a value that cannot be cloned
            }
          },
          (err: unknown) => send({ type: 'done', id: task.id, ok: false, error: toWire(err) }),
        );
      });
      send({ type: 'ready', info: info ?? null });
    },
    (err: unknown) => send({ type: 'failed', error: toWire(err) }),
  );
}

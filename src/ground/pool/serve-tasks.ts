import { parentPort } from 'node:worker_threads';
import { toWire, type FromWorker, type ToWorker } from './protocol.js';

/**
 * The worker side of WorkerPool: loads the worker's state once (`load`), says it is ready (with `info`) or that
 * it failed, then runs each task it is sent, one at a time, and answers with the value or the error thrown.
 */
export function serveTasks<I, O>(load: () => Promise<{ info?: unknown; run: (input: I) => Promise<O> }>): void {
  const port = parentPort;
  if (!port) throw new Error('serveTasks must run in a worker thread');
  const send = (m: FromWorker) => port.postMessage(m);
  load().then(
    ({ info, run }) => {
      port.on('message', (task: ToWorker) => {
        run(task.input as I).then(
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

/**
 * Bounded concurrency without a queue: `concurrency` workers pull items from one shared iterator, so at
 * most `concurrency` calls of `fn` are in flight and items are produced lazily (memory stays flat however
 * many there are). Once `signal` aborts, no further item is started; calls in flight are awaited.
 * Resolves when every started call has settled; the first error thrown by `fn` is rethrown after that.
 */
export async function limitedWorkers<T>(
  items: Iterable<T>,
  concurrency: number,
  signal: AbortSignal | undefined,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  const it = items[Symbol.iterator]();
  let failed = false;
  let firstError: unknown;
  const worker = async () => {
    for (;;) {
      if (failed || signal?.aborted) return;
      const next = it.next();
      if (next.done) return;
      try {
        await fn(next.value);
      } catch (err) {
        if (!failed) firstError = err;
        failed = true;
      }
    }
  };
  const n = Math.max(1, Math.floor(concurrency));
  await Promise.all(Array.from({ length: n }, worker));
  if (failed) throw firstError;
}

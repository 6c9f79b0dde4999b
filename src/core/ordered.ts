/**
 * Bounded, ordered concurrency over a stream: `concurrency` calls of `fn` in flight, their results handed to
 * `emit` in the source's order. A result that finishes early waits in a reorder buffer; no item is pulled while
 * `window` items are pulled and not yet emitted, so one slow item holds back the source (backpressure) instead of
 * letting the buffer grow with the input. Memory is O(window) however long the source is.
 * Resolves once every pulled item is emitted; the first error (from the source, `fn` or `emit`) is rethrown after
 * the calls in flight have settled, and nothing is pulled after it.
 */
export async function orderedWorkers<T, R>(
  source: AsyncIterable<T> | Iterable<T>,
  o: { concurrency: number; window: number },
  fn: (item: T, index: number) => Promise<R>,
  emit: (result: R, index: number) => void,
): Promise<void> {
  const it = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
  const concurrency = Math.max(1, Math.floor(o.concurrency));
  const window = Math.max(concurrency, Math.floor(o.window));
  const done = new Map<number, R>();
  let pulled = 0;
  let emitted = 0;
  let ended = false;
  let failed = false;
  let firstError: unknown;
  // Lanes waiting for the window to open; woken whenever results are emitted.
  let waiting: (() => void)[] = [];
  const fail = (err: unknown) => {
    if (!failed) firstError = err;
    failed = true;
    wake();
  };
  const wake = () => {
    const w = waiting;
    waiting = [];
    for (const f of w) f();
  };
  // Pulls are serialised (an async iterator's next() is not promised to be safe to call twice at once) and each
  // takes its index when it is queued, so indices follow the source's order.
  let pulling: Promise<unknown> = Promise.resolve();
  const pull = (): Promise<IteratorResult<T> | undefined> => {
    const next = pulling.then(async () => (ended || failed ? undefined : await it.next()));
    pulling = next.catch(() => undefined);
    return next;
  };
  const lane = async () => {
    for (;;) {
      while (!failed && !ended && pulled - emitted >= window) await new Promise<void>((r) => waiting.push(r));
      if (failed || ended) return;
      const index = pulled++;
      let next: IteratorResult<T> | undefined;
      try {
        next = await pull();
      } catch (err) {
        return fail(err);
      }
      if (!next || next.done) {
        ended = true;
        return wake();
      }
      try {
        done.set(index, await fn(next.value, index));
        while (!failed && done.has(emitted)) {
          const r = done.get(emitted)!;
          done.delete(emitted);
          emit(r, emitted++);
        }
        wake();
      } catch (err) {
        return fail(err);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  if (failed) {
    await (it as { return?: () => unknown }).return?.();
    throw firstError;
  }
}

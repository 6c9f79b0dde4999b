import { describe, expect, it } from 'vitest';
import { orderedWorkers } from './ordered.js';

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('orderedWorkers: bounded, ordered concurrency over a stream (issue 30)', () => {
  it('emits every result in the source order, with at most `concurrency` calls in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const out: number[] = [];
    async function* source() {
      for (let i = 0; i < 500; i++) yield i;
    }
    await orderedWorkers(
      source(),
      { concurrency: 4, window: 16 },
      async (x) => {
        most = Math.max(most, ++inFlight);
        // Later items often finish first.
        for (let k = (x * 7919) % 5; k > 0; k--) await tick();
        inFlight--;
        return x * 2;
      },
      (r, i) => {
        expect(r).toBe(i * 2);
        out.push(r);
      },
    );
    expect(out).toEqual(Array.from({ length: 500 }, (_, i) => i * 2));
    expect(most).toBe(4);
  });

  it('one slow item holds the source back: no more than `window` items are pulled and not yet emitted', async () => {
    let pulled = 0;
    let emitted = 0;
    let most = 0;
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    function* source() {
      for (let i = 0; i < 10_000; i++) {
        pulled++;
        most = Math.max(most, pulled - emitted);
        yield i;
      }
    }
    const run = orderedWorkers(
      source(),
      { concurrency: 4, window: 32 },
      async (x) => {
        if (x === 0) await slow;
        return x;
      },
      () => emitted++,
    );
    for (let k = 0; k < 200; k++) await tick();
    // Held at the window while item 0 waits, however long it waits.
    expect(pulled).toBe(32);
    expect(emitted).toBe(0);
    release();
    await run;
    expect(emitted).toBe(10_000);
    expect(most).toBeLessThanOrEqual(32);
  });

  it('rethrows the first error after the calls in flight settle, and pulls nothing after it', async () => {
    let pulled = 0;
    let settled = 0;
    function* source() {
      for (let i = 0; i < 1000; i++) {
        pulled++;
        yield i;
      }
    }
    await expect(
      orderedWorkers(
        source(),
        { concurrency: 3, window: 8 },
        async (x) => {
          await tick();
          settled++;
          if (x === 10) throw new Error('boom at 10');
          return x;
        },
        () => {},
      ),
    ).rejects.toThrow('boom at 10');
    expect(pulled).toBeLessThan(20);
    expect(settled).toBe(pulled);
  });
});

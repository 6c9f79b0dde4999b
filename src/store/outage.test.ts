import { spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { TSX } from '../cli/testing/process.js';
import { Outage, OutageError } from './outage.js';

/** An outage on a clock of its own: each pause moves the clock on, nothing waits for real time. */
function simulated(boundMs: number) {
  let t = 0;
  const lines: string[] = [];
  const givenUp: OutageError[] = [];
  const outage = new Outage('the queue at redis://q', {
    boundMs,
    log: (l) => lines.push(l),
    retryable: (err) => (err as Error).message === 'lost',
    onGiveUp: (e) => givenUp.push(e),
    now: () => t,
    sleep: async (ms) => {
      t += ms;
    },
  });
  return { outage, lines, givenUp, advance: (ms: number) => (t += ms), now: () => t };
}

/** A service that fails `n` times (with `message`), then answers. */
function failing(n: number, message = 'lost') {
  let calls = 0;
  return {
    fn: async () => {
      calls++;
      if (calls <= n) throw new Error(message);
      return 'answer';
    },
    calls: () => calls,
  };
}

describe('Outage', () => {
  it('a failure that an immediate retry mends is no outage: no line', async () => {
    const { outage, lines } = simulated(60_000);
    const s = failing(1);
    expect(await outage.ride(s.fn)).toBe('answer');
    expect(s.calls()).toBe(2);
    expect(lines).toEqual([]);
    expect(outage.down).toBe(false);
  });

  it('a longer one: one line when lost, one when back, however many calls wait through it', async () => {
    const { outage, lines, now } = simulated(60_000);
    // One service for every caller: down for the first 4 s of the clock.
    const service = async () => {
      if (now() < 4000) throw new Error('lost');
      return 'answer';
    };
    const answers = await Promise.all([outage.ride(service), outage.ride(service), outage.ride(service)]);
    expect(answers).toEqual(['answer', 'answer', 'answer']);
    expect(lines).toEqual([
      'lost the queue at redis://q (lost); trying again for up to 60 s',
      expect.stringMatching(/^the queue at redis:\/\/q is back \(after [\d.]+ s\)$/),
    ]);
    expect(outage.down).toBe(false);
  });

  it('past the bound: one OutageError (exit 3) for every caller, the process told once; later calls fail at once', async () => {
    const { outage, lines, givenUp } = simulated(5000);
    const down = failing(Infinity);
    const err = await outage.ride(down.fn).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutageError);
    expect((err as OutageError).exitCode).toBe(3);
    expect((err as OutageError).message).toBe('the queue at redis://q has been unreachable for 5 s (lost)');
    expect(givenUp).toEqual([err]);
    expect(lines).toEqual(['lost the queue at redis://q (lost); trying again for up to 5 s']);
    // Tried once a second until the bound: the first failure, its immediate retry, then 5 more.
    expect(down.calls()).toBe(7);
    const later = failing(0);
    await expect(outage.ride(later.fn)).rejects.toBe(err);
    expect(later.calls()).toBe(0);
  });

  it('a failure that is not a lost connection passes through at once, untried', async () => {
    const { outage, lines } = simulated(60_000);
    const s = failing(1, 'syntax error');
    await expect(outage.ride(s.fn)).rejects.toThrow('syntax error');
    expect(s.calls()).toBe(1);
    expect(lines).toEqual([]);
  });

  it('a refusal (a password now asked for) gives up at once; a bound of 0 gives up at the first failure a retry does not mend', async () => {
    const refused = simulated(60_000);
    expect(() => refused.outage.refuse(new Error('NOAUTH Authentication required.'))).toThrow(
      'the queue at redis://q refused us: NOAUTH Authentication required',
    );
    expect(refused.givenUp).toHaveLength(1);
    const none = simulated(0);
    const once = failing(1);
    expect(await none.outage.ride(once.fn)).toBe('answer');
    await expect(none.outage.ride(failing(2).fn)).rejects.toThrow('has been unreachable for 0 s');
  });

  it('lost() from a heartbeat: says so once, gives up past the bound; back() ends it', () => {
    const { outage, lines, advance } = simulated(3000);
    outage.lost(new Error('lost'));
    advance(1000);
    outage.lost(new Error('lost'));
    expect(lines).toHaveLength(1);
    outage.back();
    expect(lines[1]).toBe('the queue at redis://q is back (after 1 s)');
    outage.lost(new Error('lost'));
    advance(3000);
    expect(() => outage.lost(new Error('lost'))).toThrow(OutageError);
  });
});

describe('Outage: a service that goes silent (real time, short bounds)', () => {
  const never = () => new Promise<string>(() => {});
  const after =
    (ms: number, value = 'answer') =>
    () =>
      new Promise<string>((r) => setTimeout(() => r(value), ms));
  const lines: string[] = [];
  const silentOutage = (boundMs: number, extra: { probe?: (ms: number) => Promise<boolean> } = {}) => {
    lines.length = 0;
    return new Outage('the queue at redis://q', { boundMs, silentMs: 100, log: (l) => lines.push(l), retryable: () => true, ...extra });
  };

  it('a call unanswered for silentMs is a silence: one line then, one when it answers, counted from the call', async () => {
    const outage = silentOutage(60_000);
    expect(await outage.ride(after(400))).toBe('answer');
    expect(lines).toEqual([
      'lost the queue at redis://q (no answer within 0.1 s); trying again for up to 60 s',
      expect.stringMatching(/is back \(after 0\.[45] s\)$/),
    ]);
  });

  it('one that never answers ends with the OutageError at the bound from its start, though the driver would still wait; the line says the real time', async () => {
    const outage = silentOutage(500);
    const t0 = performance.now();
    const err = await outage.ride(never).catch((e: unknown) => e);
    const took = performance.now() - t0;
    expect(OutageError.isInstance(err)).toBe(true);
    expect(took).toBeGreaterThanOrEqual(490);
    expect(took).toBeLessThan(800);
    expect((err as Error).message).toMatch(/^the queue at redis:\/\/q has been unreachable for 0\.[5-7] s \(no answer within 0\.1 s\)$/);
    // A heartbeat's watched call made meanwhile ends with it too.
    await expect(outage.watched(never)).rejects.toBe(err);
  });

  it('with a probe: a slow call while the probe answers is no silence; a probe unanswered too is one', async () => {
    let probes = 0;
    const answering = silentOutage(60_000, { probe: async () => (probes++, true) });
    expect(await answering.ride(after(400))).toBe('answer');
    expect(lines).toEqual([]);
    expect(probes).toBeGreaterThanOrEqual(2);
    const silent = silentOutage(60_000, { probe: () => new Promise<boolean>(() => {}) });
    expect(await silent.ride(after(400))).toBe('answer');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^lost the queue at redis:\/\/q \(no answer within 0\.1 s\)/);
  });

  it('an answer that arrived while the event loop was busy is no silence', async () => {
    const outage = silentOutage(60_000);
    // The server on a thread of its own: it answers while this thread is busy.
    const thread = new Worker(
      `const { createServer } = require('node:net'); const { parentPort } = require('node:worker_threads');
       const server = createServer((s) => s.on('data', () => s.write('+PONG')));
       server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));`,
      { eval: true },
    );
    const port = await new Promise<number>((r) => thread.once('message', r));
    const socket = createConnection(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const ping = () =>
      new Promise<string>((resolve) => {
        socket.once('data', (d) => resolve(d.toString()));
        socket.write('PING');
        const until = performance.now() + 300;
        while (performance.now() < until); // the loop blocked past silentMs, the answer waiting in the socket
      });
    expect(await outage.ride(ping)).toBe('+PONG');
    expect(lines).toEqual([]);
    socket.destroy();
    await thread.terminate();
  });
});

describe('Outage: the process', () => {
  it('is not held until the bound by an outage nobody waits for any more (a run interrupted meanwhile)', async () => {
    const outageModule = new URL('./outage.ts', import.meta.url).href;
    const script = `const { Outage } = await import(${JSON.stringify(outageModule)});
      const outage = new Outage('the queue at redis://q', { boundMs: 60000, retryable: () => true, log: (l) => console.log(l) });
      outage.lost(new Error('lost'));
      void outage.watched(() => new Promise(() => {})).catch(() => {});`;
    const t0 = performance.now();
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', TSX, '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(r.out).toContain('lost the queue at redis://q (lost); trying again for up to 60 s');
    expect(r.code).toBe(0);
    expect(performance.now() - t0).toBeLessThan(20_000);
  }, 60_000);
});

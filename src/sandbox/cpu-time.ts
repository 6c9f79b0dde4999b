import { closeSync, openSync, readlinkSync, readSync } from 'node:fs';

/**
 * CPU time of one thread, for time limits that measure a guest's own execution: on a loaded machine a thread
 * can wait for a core for a second or more, and a wall-clock limit would then count the wait (a 20 µs
 * predicate "timed out after 1000 ms"). Linux reports each thread's CPU time in /proc/<pid>/task/<tid>/schedstat
 * (nanoseconds, first field); where there is no such file, time limits fall back to the wall clock.
 */
export class ThreadCpuClock {
  private fd: number | undefined;
  private readonly buf = Buffer.alloc(64);

  /** `tid` undefined: the calling thread. */
  constructor(tid?: number) {
    try {
      this.fd = openSync(tid === undefined ? '/proc/thread-self/schedstat' : `/proc/self/task/${tid}/schedstat`, 'r');
    } catch {
      this.fd = undefined;
    }
  }

  /** CPU time the thread has had, in ms; undefined where it cannot be read. */
  ms(): number | undefined {
    if (this.fd === undefined) return undefined;
    try {
      const n = readSync(this.fd, this.buf, 0, this.buf.length, 0);
      const ns = Number(this.buf.toString('latin1', 0, n).split(' ', 1)[0]);
      return Number.isFinite(ns) ? ns / 1e6 : undefined;
    } catch {
      return undefined;
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** The calling thread's id as Linux knows it (the host reads that thread's CPU time with it); 0 where unknown. */
export function ownThreadId(): number {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop()) || 0;
  } catch {
    return 0;
  }
}

/**
 * How long the guest code running on this thread has run: its CPU time since start() where the thread's CPU
 * time can be read, else wall time. Cheap while within the limit: CPU time never exceeds wall time, so the
 * CPU clock is read only once the wall clock is past the limit.
 */
export class GuestClock {
  private wallStart = 0;
  private cpuStart: number | undefined;
  private limitMs = 0;

  constructor(private readonly cpu: Pick<ThreadCpuClock, 'ms'>) {}

  /** The guest starts running now, for at most `limitMs`; returns the thread's CPU time now (ms), if known. */
  start(limitMs: number): number | undefined {
    this.wallStart = Date.now();
    this.limitMs = limitMs;
    this.cpuStart = this.cpu.ms();
    return this.cpuStart;
  }

  expired(): boolean {
    if (Date.now() - this.wallStart <= this.limitMs) return false;
    if (this.cpuStart === undefined) return true;
    const now = this.cpu.ms();
    return now === undefined || now - this.cpuStart > this.limitMs;
  }
}

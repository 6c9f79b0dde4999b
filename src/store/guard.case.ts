import { describe, expect, it } from 'vitest';
import { guardAttempt, guardCall, type MakeStore } from './testing/fixtures.js';

/** The contract of `store.guard`: the guard's attempt log. */
export function guardContract(make: MakeStore): void {
  describe('guard', () => {
    it('keeps the guard attempt log: attempts in order, replaced on rewrite, calls newest first', async () => {
      await using store = await make();
      await store.guard.recordAttempt(guardAttempt('c1', 2, { status: 'accepted', output: 'Call us', verifier: undefined, reasons: [] }));
      await store.guard.recordAttempt(guardAttempt('c1', 1));
      await store.guard.recordAttempt(
        guardAttempt('c2', 1, { output: undefined, generationError: 'HTTP 503 \u0000', validators: [], verifier: undefined, status: 'error' }),
      );
      expect((await store.guard.listAttempts('c1')).map((a) => [a.n, a.status])).toEqual([
        [1, 'rejected'],
        [2, 'accepted'],
      ]);
      expect((await store.guard.listAttempts('c1'))[0]).toEqual(guardAttempt('c1', 1));
      const [c2] = await store.guard.listAttempts('c2');
      expect(c2.output).toBeUndefined();
      expect(c2.verifier).toBeUndefined();
      expect(c2.generationError).toBe('HTTP 503 \u0000');
      expect(await store.guard.listAttempts('none')).toEqual([]);
      // Written again (a retried write): replaced, not duplicated.
      await store.guard.recordAttempt(guardAttempt('c1', 1, { latencyMs: 99 }));
      expect((await store.guard.listAttempts('c1')).map((a) => a.latencyMs)).toEqual([99, 12.75]);

      await store.guard.recordCall(guardCall('c1'));
      await store.guard.recordCall(
        guardCall('c2', {
          accepted: false,
          reason: 'error',
          detail: 'the system failed',
          output: undefined,
          cost: null,
          finishedAt: '2026-01-02T03:05:00.000Z',
        }),
      );
      expect(await store.guard.getCall('c1')).toEqual(guardCall('c1'));
      const c2call = await store.guard.getCall('c2');
      expect(c2call).toMatchObject({ accepted: false, reason: 'error', detail: 'the system failed', cost: null });
      expect(c2call!.output).toBeUndefined();
      expect(await store.guard.getCall('none')).toBeUndefined();
      expect((await store.guard.listCalls()).map((c) => c.callId)).toEqual(['c2', 'c1']);
      expect((await store.guard.listCalls({ limit: 1, offset: 1 })).map((c) => c.callId)).toEqual(['c1']);
      await store.guard.recordCall(guardCall('c1', { attempts: 3 }));
      expect((await store.guard.getCall('c1'))!.attempts).toBe(3);
      expect(await store.guard.listCalls()).toHaveLength(2);
    });
  });
}

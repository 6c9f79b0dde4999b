import { describe, expect, it } from 'vitest';
import type { MakeStore } from './testing/fixtures.js';

/** The contract of `store.cache`: the response cache, shared by every run of the store. */
export function cacheContract(make: MakeStore): void {
  describe('cache', () => {
    it('response cache: get, set (insert or replace), clear', async () => {
      await using store = await make();
      expect(await store.cache.get('k1')).toBeUndefined();
      const before = Date.now();
      await store.cache.set('k1', '{"text":"one"}');
      await store.cache.set('k2', '{"text":"two"}');
      const e = await store.cache.get('k1');
      expect(e?.value).toBe('{"text":"one"}');
      expect(Date.parse(e!.storedAt)).toBeGreaterThanOrEqual(before - 1000);
      await store.cache.set('k1', '{"text":"uno"}');
      expect((await store.cache.get('k1'))?.value).toBe('{"text":"uno"}');
      // add: inserts only what is absent, and says whether it did.
      expect(await store.cache.add('k3', '{"text":"first"}')).toBe(true);
      expect(await store.cache.add('k3', '{"text":"second"}')).toBe(false);
      expect((await store.cache.get('k3'))?.value).toBe('{"text":"first"}');
      // delete: the named entries go, absent keys are ignored, the rest stay.
      await store.cache.set('k3', '{"text":"three"}');
      await store.cache.delete(['k3', 'absent']);
      await store.cache.delete([]);
      expect(await store.cache.get('k3')).toBeUndefined();
      expect((await store.cache.get('k2'))?.value).toBe('{"text":"two"}');
      expect(await store.cache.clear()).toBe(2);
      expect(await store.cache.get('k2')).toBeUndefined();
      expect(await store.cache.clear()).toBe(0);
    });
  });
}

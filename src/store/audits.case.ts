import { describe, expect, it } from 'vitest';
import { GradeError } from './errors.js';
import type { MakeStore } from './testing/fixtures.js';
import type { NewAudit } from './types.js';

const batch = (): NewAudit => ({
  name: 'kb answers',
  claims: [
    { answer: 'returns', claim: 1, text: 'Returns are accepted within 30 days.', status: 'STRONG', evidence: 'Items may be returned within 30 days.' },
    { answer: 'returns', claim: 2, text: 'Refunds take two weeks.', status: 'CONTRADICTED', evidence: 'Refunds take 10 working days.' },
    { answer: 'reboot\u0000x', claim: 1, text: 'Hold the button 5 s.', status: 'UNSUPPORTED' },
  ],
});

/** The contract of `store.audits`: grounding audit batches kept whole, people's grades of their claims as a log, checked against the batch, all or none. */
export function auditsContract(make: MakeStore): void {
  describe('audits', () => {
    it('keeps a batch whole, lists it, and keeps grades of its claims in the order recorded', async () => {
      await using store = await make();
      const { audit: a, created } = await store.audits.create(batch());
      expect(created).toBe(true);
      expect(a.id).toMatch(/^a-\d{8}-\d{6}-[0-9a-f]{4}$/);
      expect(await store.audits.get(a.id)).toEqual({ ...batch(), id: a.id, createdAt: a.createdAt });
      expect(await store.audits.list()).toEqual([{ id: a.id, name: 'kb answers', createdAt: a.createdAt, claims: 3 }]);
      expect(await store.audits.get('a-none')).toBeUndefined();
      const g = await store.audits.recordGrades(a.id, [
        { answer: 'returns', claim: 2, supported: true, grader: ' ada ', gradedAt: '2026-03-01T10:00:00+01:00' },
        { answer: 'reboot\u0000x', claim: 1, supported: false, grader: 'ada' },
      ]);
      expect(g[0]).toEqual({
        id: expect.any(Number),
        auditId: a.id,
        answer: 'returns',
        claim: 2,
        supported: true,
        grader: 'ada',
        gradedAt: '2026-03-01T09:00:00.000Z',
      });
      const again = await store.audits.recordGrades(a.id, [{ answer: 'returns', claim: 2, supported: false, grader: 'bob' }]);
      const all = await store.audits.listGrades(a.id);
      expect(all).toEqual([...g, ...again]);
      expect(new Set(all.map((x) => x.id)).size).toBe(3);
    });

    it('refuses grades of claims the batch lacks or malformed, storing none of the batch, and names an unknown batch', async () => {
      await using store = await make();
      const { audit: a } = await store.audits.create(batch());
      const refused = async (grades: Parameters<typeof store.audits.recordGrades>[1], field: string, index: number) => {
        const err = await store.audits.recordGrades(a.id, grades).catch((e: unknown) => e);
        expect(GradeError.isInstance(err)).toBe(true);
        expect(err).toMatchObject({ field, index });
      };
      const ok = { answer: 'returns', claim: 1, supported: true, grader: 'ada' };
      await refused([ok, { ...ok, claim: 3 }], 'claim', 1);
      await refused([{ ...ok, answer: 'nope' }], 'claim', 0);
      await refused([ok, { ...ok, supported: 'yes' as unknown as boolean }], 'supported', 1);
      await refused([{ ...ok, grader: 'a\nb' }], 'grader', 0);
      await refused([{ ...ok, gradedAt: '2026-02-30T00:00:00Z' }], 'gradedAt', 0);
      expect(await store.audits.listGrades(a.id)).toEqual([]);
      await expect(store.audits.recordGrades('a-none', [ok])).rejects.toThrow(/no audit batch with id "a-none"/);
      await expect(store.audits.listGrades('a-none')).rejects.toThrow(/no audit batch with id "a-none"/);
    });

    it('stores a batch once per content: the same claims in any order and the same run give the stored batch back', async () => {
      await using store = await make();
      const first = await store.audits.create(batch());
      const reordered = { ...batch(), name: 'another name', claims: [...batch().claims].reverse() };
      const again = await store.audits.create(reordered);
      expect(again).toEqual({ audit: first.audit, created: false });
      // a claim changed, or the claims of a run's rule: another batch
      const changed = batch();
      changed.claims[0] = { ...changed.claims[0], status: 'WEAK' };
      expect((await store.audits.create(changed)).created).toBe(true);
      const ofRun = await store.audits.create({ ...batch(), run: { id: '20260301-101010-abcd', rule: 'grounded\u0000x' } });
      expect(ofRun.created).toBe(true);
      expect(await store.audits.get(ofRun.audit.id)).toEqual({
        ...batch(),
        id: ofRun.audit.id,
        createdAt: ofRun.audit.createdAt,
        run: { id: '20260301-101010-abcd', rule: 'grounded\u0000x' },
      });
      expect((await store.audits.create({ ...batch(), run: { id: '20260301-101010-abcd', rule: 'grounded\u0000x' } })).audit.id).toBe(ofRun.audit.id);
      const listed = await store.audits.list();
      expect(listed).toHaveLength(3);
      expect(listed.find((a) => a.id === ofRun.audit.id)).toEqual({
        id: ofRun.audit.id,
        name: 'kb answers',
        createdAt: ofRun.audit.createdAt,
        claims: 3,
        run: ofRun.audit.run,
      });
      await expect(store.audits.create({ ...batch(), run: { id: '', rule: 'x' } })).rejects.toMatchObject({ field: 'run' });
    });

    it('refuses a malformed batch naming the claim and field', async () => {
      await using store = await make();
      const bad = batch();
      bad.claims[1] = { ...bad.claims[1], status: 'MAYBE' as 'WEAK' };
      await expect(store.audits.create(bad)).rejects.toMatchObject({ field: 'status', index: 1, message: expect.stringMatching(/claims\[1\] field "status"/) });
      const twice = batch();
      twice.claims.push({ ...twice.claims[0] });
      await expect(store.audits.create(twice)).rejects.toMatchObject({ field: 'claim', index: 3 });
      expect(await store.audits.list()).toEqual([]);
    });
  });
}

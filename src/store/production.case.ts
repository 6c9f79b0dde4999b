import { describe, expect, it } from 'vitest';
import type { ProductionSpan } from '../core/production.js';
import type { MakeStore } from './testing/fixtures.js';

const T1 = 'a'.repeat(32);
const T2 = 'b'.repeat(32);

function span(spanId: string, extra: Partial<ProductionSpan> = {}): ProductionSpan {
  return {
    traceId: T1,
    spanId,
    kind: 'sample',
    experiment: 'shop/answer',
    name: 'ai.generateText',
    startMs: 1_700_000_000_000,
    endMs: 1_700_000_000_250,
    input: 'Where is my order?',
    output: 'It ships today.',
    model: 'gpt-4o-mini',
    usage: { promptTokens: 12, completionTokens: 5 },
    ...extra,
  };
}

/** The contract of `store.production`: GenAI spans once per span id, samples in stream order, checks and alarms. */
export function productionContract(make: MakeStore): void {
  describe('production', () => {
    it('stores a span once per (trace, span) id: a retried export adds nothing', async () => {
      await using store = await make();
      const batch = [span('0000000000000001'), span('0000000000000002', { output: 'Out of stock \u0000.' })];
      expect(await store.production.ingest(batch)).toEqual({ stored: 2, duplicates: 0 });
      expect(await store.production.ingest(batch)).toEqual({ stored: 0, duplicates: 2 });
      // The same span id in another trace is another span.
      expect(await store.production.ingest([span('0000000000000001', { traceId: T2 })])).toEqual({ stored: 1, duplicates: 0 });
      const samples = await store.production.list('shop/answer');
      expect(samples.map((s) => s.spanId)).toEqual(['0000000000000001', '0000000000000002', '0000000000000001']);
      expect(samples[1]).toMatchObject({
        experiment: 'shop/answer',
        traceId: T1,
        input: 'Where is my order?',
        output: 'Out of stock \u0000.',
        model: 'gpt-4o-mini',
        usage: { promptTokens: 12, completionTokens: 5 },
        latencyMs: 250,
      });
      expect(samples[0].seq).toBeLessThan(samples[1].seq);
      expect(samples[1].seq).toBeLessThan(samples[2].seq);
      expect(samples[0].error).toBeUndefined();
      expect(await store.production.experiments()).toEqual([{ name: 'shop/answer', samples: 3, firstMs: 1_700_000_000_250, lastMs: 1_700_000_000_250 }]);
    });

    it('pages the stream by seq, oldest or newest first, per experiment', async () => {
      await using store = await make();
      await store.production.ingest([
        span('01', { endMs: 1 }),
        span('02', { experiment: 'shop/other', endMs: 2 }),
        span('03', { endMs: 3, error: 'HTTP 503' }),
        span('04', { endMs: 4, input: undefined, output: undefined, model: undefined, usage: undefined }),
      ]);
      const all = await store.production.list('shop/answer');
      expect(all.map((s) => s.spanId)).toEqual(['01', '03', '04']);
      expect(all[1].error).toBe('HTTP 503');
      expect(all[2].output).toBeUndefined();
      expect(all[2].usage).toBeUndefined();
      expect((await store.production.list('shop/answer', { afterSeq: all[0].seq })).map((s) => s.spanId)).toEqual(['03', '04']);
      expect((await store.production.list('shop/answer', { limit: 1 })).map((s) => s.spanId)).toEqual(['01']);
      expect((await store.production.list('shop/answer', { newest: true, limit: 2 })).map((s) => s.spanId)).toEqual(['04', '03']);
      expect(await store.production.list('none')).toEqual([]);
      expect((await store.production.experiments()).map((e) => [e.name, e.samples, e.firstMs, e.lastMs])).toEqual([
        ['shop/answer', 3, 1, 4],
        ['shop/other', 1, 2, 2],
      ]);
    });

    it("assembles a sample's trajectory from its step spans, whichever arrived first", async () => {
      await using store = await make();
      const step = (id: string, extra: Partial<ProductionSpan>) =>
        span(id, { kind: 'step', parentSpanId: '00000000000000aa', input: undefined, output: undefined, ...extra });
      // The steps end (and are exported) before the operation that holds them.
      await store.production.ingest([
        step('00000000000000b2', {
          name: 'ai.toolCall',
          startMs: 20,
          toolCall: { id: 'call-1', name: 'lookup', arguments: { order: 7 }, result: { status: 'shipped' } },
        }),
        step('00000000000000b1', {
          name: 'ai.generateText.doGenerate',
          startMs: 10,
          step: { toolCalls: [{ id: 'call-1', name: 'lookup', arguments: { order: 7 } }] },
        }),
      ]);
      await store.production.ingest([
        step('00000000000000b3', { name: 'ai.generateText.doGenerate', startMs: 30, step: { text: 'It shipped.', toolCalls: [] } }),
        span('00000000000000aa', { output: 'It shipped.' }),
      ]);
      const [s] = await store.production.list('shop/answer');
      expect(s.trajectory).toEqual({
        steps: [
          { toolCalls: [{ id: 'call-1', name: 'lookup', arguments: { order: 7 }, result: { status: 'shipped' } }] },
          { text: 'It shipped.', toolCalls: [] },
        ],
        ended: 'final',
      });
      expect(await store.production.experiments()).toHaveLength(1);
    });

    it("keeps a rule's checks with its cursor, and each alarm once", async () => {
      await using store = await make();
      expect(await store.production.cursor('shop/answer', 'polite')).toBe(0);
      await store.production.recordChecks(
        'shop/answer',
        'polite',
        [
          { seq: 2, outcome: 'pass', atMs: 10 },
          { seq: 5, outcome: 'fail', atMs: 11, reason: 'rude\nline' },
        ],
        6,
      );
      await store.production.recordChecks('shop/answer', 'polite', [{ seq: 5, outcome: 'error', atMs: 11, reason: 'HTTP 500' }], 9, {
        alpha: 0.05,
        window: { checks: 10 },
      });
      await store.production.recordChecks('shop/answer', 'short', [], 3);
      expect(await store.production.checks('shop/answer', 'polite')).toEqual([
        { seq: 2, outcome: 'pass', atMs: 10 },
        { seq: 5, outcome: 'error', atMs: 11, reason: 'HTTP 500' },
      ]);
      expect(await store.production.cursor('shop/answer', 'polite')).toBe(9);
      expect(await store.production.cursor('shop/answer', 'short')).toBe(3);
      expect(await store.production.checks('shop/answer', 'short')).toEqual([]);
      expect(await store.production.rules('shop/answer')).toEqual([
        { rule: 'polite', checks: 2, settings: { alpha: 0.05, window: { checks: 10 } } },
        { rule: 'short', checks: 0 },
      ]);
      expect(await store.production.rules('none')).toEqual([]);
      const alarm = { experiment: 'shop/answer', rule: 'polite', kind: 'dropped' as const, atSeq: 9, atMs: 11, message: 'rate fell\nbelow' };
      expect(await store.production.recordAlarm(alarm)).toBe(true);
      expect(await store.production.recordAlarm(alarm)).toBe(false);
      const alarms = await store.production.alarms('shop/answer');
      expect(alarms).toHaveLength(1);
      expect(alarms[0]).toMatchObject({ ...alarm, message: 'rate fell below' });
      expect(Number.isNaN(Date.parse(alarms[0].raisedAt!))).toBe(false);
      expect(await store.production.alarms('none')).toEqual([]);
      // Delivery: absent when nobody was to be told; false until the webhook took it, then true.
      expect(alarms[0].delivered).toBeUndefined();
      const pending = { ...alarm, kind: 'below-min-success' as const, delivered: false };
      expect(await store.production.recordAlarm(pending)).toBe(true);
      expect((await store.production.alarms('shop/answer')).map((a) => a.delivered)).toEqual([undefined, false]);
      await store.production.markDelivered(pending);
      await store.production.markDelivered({ ...pending, atSeq: 99 }); // no such alarm: nothing happens
      expect((await store.production.alarms('shop/answer')).map((a) => a.delivered)).toEqual([undefined, true]);
    });
  });
}

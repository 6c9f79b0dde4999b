import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../core/prng.js';
import type { ProductionSpan } from '../core/production.js';
import { monitorFromDocument } from '../monitor/config.js';
import { runMonitor } from '../monitor/monitor.js';
import { MemoryStore } from '../store/memory.js';
import { createApp } from './app.js';

const T0 = Date.UTC(2026, 0, 5);

/** One call a simulated minute for `hours` hours from hour `from`, polite with probability p. */
function traffic(rand: () => number, from: number, hours: number, p: number): ProductionSpan[] {
  return Array.from({ length: hours * 60 }, (_, t) => {
    const m = from * 60 + t;
    return {
      traceId: (m + 1).toString(16).padStart(32, '0'),
      spanId: (m + 1).toString(16).padStart(16, '0'),
      kind: 'sample' as const,
      experiment: 'shop/answer',
      name: 'chat',
      startMs: T0 + m * 60_000 - 500,
      endMs: T0 + m * 60_000,
      input: `q${m}`,
      output: rand() < p ? 'Thanks!' : 'Go away.',
    };
  });
}

describe('the production rule page', () => {
  it("shows a monitored rule's rate per window and its sequence since the start, with the alarm", async () => {
    await using store = new MemoryStore();
    const rand = mulberry32(4);
    await store.production.ingest([...traffic(rand, 0, 96, 0.97), ...traffic(rand, 96, 48, 0.8)]);
    const monitor = await monitorFromDocument(
      { monitor: { experiment: 'shop/answer', window: '12h' }, validators: [{ name: 'polite', predicate: "o => !o.includes('Go away')", minSuccess: 0.9 }] },
      'monitor.yaml',
    );
    try {
      const r = await runMonitor(store, monitor);
      expect(r.newAlarms.length).toBeGreaterThan(0);
    } finally {
      monitor.dispose();
    }
    const app = createApp({ store, log: false });
    const experiment = await (await app.request('/production/experiment?name=shop%2Fanswer')).text();
    expect(experiment).toContain('href="/production/rule?experiment=shop%2Fanswer&amp;rule=polite"');
    expect(experiment).toContain('8,640 checks');
    const res = await app.request('/production/rule?experiment=shop%2Fanswer&rule=polite');
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('<h2>Rate over time</h2>');
    expect(page.match(/<svg role="img"/g)).toHaveLength(2);
    // 144 hours in 12-hour windows: 12 points a chart, each titled with its window.
    expect(page.match(/<circle /g)?.length).toBe(24);
    expect(page).toContain('minSuccess 90.0%');
    expect(page).toMatch(/below-min-success: polite: /);
    expect(page).toContain('window 12:');
    expect((await app.request('/production/rule?experiment=shop%2Fanswer&rule=none')).status).toBe(404);
  });
});

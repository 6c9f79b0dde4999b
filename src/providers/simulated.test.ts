import { describe, expect, it } from 'vitest';
import { systemContract } from './contract.case.js';
import { SimulatedSystem, pickWeighted, uniform, type SimulatedSystemOptions } from './simulated.js';
import { ProviderError } from './types.js';

systemContract(
  'simulated',
  ({ delayMs, failing }) => new SimulatedSystem({ seed: 1, latencyMs: delayMs ?? 0, outputs: [{ text: 'echo: {{input}}' }], errorRate: failing ? 1 : 0 }),
);

const signal = new AbortController().signal;

/** The texts of cells (i, j) for i < n, j < m, in order. */
async function texts(options: SimulatedSystemOptions, n: number, m: number): Promise<string[]> {
  const s = new SimulatedSystem(options);
  const out: string[] = [];
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) out.push((await s.generate('q', { signal, inputIndex: i, sample: j })).text);
  return out;
}

const coin = {
  outputs: [
    { text: 'A', weight: 1 },
    { text: 'B', weight: 1 },
  ],
};

describe('SimulatedSystem', () => {
  it('the same seed gives the same sequence; another seed another', async () => {
    const a = await texts({ seed: 42, ...coin }, 10, 10);
    const b = await texts({ seed: 42, ...coin }, 10, 10);
    const c = await texts({ seed: 43, ...coin }, 10, 10);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });

  it('a cell answers the same whatever order cells are called in (resume reproduces cells)', async () => {
    const forward = await texts({ seed: 7, ...coin }, 5, 5);
    const s = new SimulatedSystem({ seed: 7, ...coin });
    const backward: string[] = new Array(25);
    for (let k = 24; k >= 0; k--) backward[k] = (await s.generate('q', { signal, inputIndex: Math.floor(k / 5), sample: k % 5 })).text;
    expect(backward).toEqual(forward);
  });

  it('output weights are respected within a 99.9% binomial interval over 20,000 draws', async () => {
    // True rate of the first output 0.9 (the contractions example: weights 9 and 1).
    const n = 20_000;
    const p = 0.9;
    const s = new SimulatedSystem({
      seed: 42,
      outputs: [
        { text: 'good', weight: 9 },
        { text: 'bad', weight: 1 },
      ],
    });
    let good = 0;
    for (let k = 0; k < n; k++) if ((await s.generate('q', { signal, inputIndex: k % 200, sample: Math.floor(k / 200) })).text === 'good') good++;
    const halfWidth = 3.29 * Math.sqrt((p * (1 - p)) / n);
    expect(Math.abs(good / n - p)).toBeLessThan(halfWidth);
  });

  it('three weights are each respected (chi-square, 2 df, p > 0.001)', () => {
    const weights = [5, 3, 2];
    const counts = [0, 0, 0];
    const n = 30_000;
    for (let k = 0; k < n; k++) counts[pickWeighted(weights, uniform(99, k, 0, 0, 1))]++;
    const chi2 = counts.reduce((acc, c, i) => acc + (c - (n * weights[i]) / 10) ** 2 / ((n * weights[i]) / 10), 0);
    expect(chi2).toBeLessThan(13.82);
  });

  it('errorRate fails that share of calls with transient errors; a retry of the same cell draws anew', async () => {
    const s = new SimulatedSystem({ seed: 3, outputs: [{ text: 'ok' }], errorRate: 0.3, errorKind: 'rate_limit' });
    let errors = 0;
    let firstTryFailed = 0;
    let recovered = 0;
    const n = 4000;
    for (let i = 0; i < n; i++) {
      try {
        await s.generate('q', { signal, inputIndex: i, sample: 0 });
      } catch (err) {
        expect(err).toBeInstanceOf(ProviderError);
        expect((err as ProviderError).kind).toBe('rate_limit');
        expect((err as ProviderError).retryable).toBe(true);
        errors++;
        if (i < 500) {
          firstTryFailed++;
          // Retry the same cell until it answers: the attempt number changes the draw.
          for (let a = 0; a < 20; a++) {
            const ok = await s.generate('q', { signal, inputIndex: i, sample: 0 }).then(
              () => true,
              () => false,
            );
            if (ok) {
              recovered++;
              break;
            }
          }
        }
      }
    }
    const halfWidth = 3.29 * Math.sqrt((0.3 * 0.7) / n);
    expect(Math.abs(errors / n - 0.3)).toBeLessThan(halfWidth);
    expect(recovered).toBe(firstTryFailed);
  });

  it('byInput overrides outputs for a given input; {{field}} placeholders fill from the input', async () => {
    const s = new SimulatedSystem({
      outputs: [{ text: 'default for {{topic}}' }],
      byInput: { 'Say hello.': [{ text: 'Hello!' }], '{"a":1,"b":2}': [{ text: 'object override' }] },
    });
    expect((await s.generate('Say hello.', { signal, inputIndex: 0, sample: 0 })).text).toBe('Hello!');
    expect((await s.generate({ b: 2, a: 1 }, { signal, inputIndex: 1, sample: 0 })).text).toBe('object override');
    expect((await s.generate({ topic: 'rain' }, { signal, inputIndex: 2, sample: 0 })).text).toBe('default for rain');
  });

  it('latency: fixed, or mean ± jitter within bounds and varying', async () => {
    const fixed = new SimulatedSystem({ outputs: [{ text: 'x' }], latencyMs: 30 });
    const g = await fixed.generate('q', { signal, inputIndex: 0, sample: 0 });
    expect(g.latencyMs).toBeGreaterThanOrEqual(29);
    const jittery = new SimulatedSystem({ seed: 5, outputs: [{ text: 'x' }], latencyMs: { mean: 20, jitter: 15 } });
    const ls = await Promise.all(Array.from({ length: 20 }, (_, j) => jittery.generate('q', { signal, inputIndex: 0, sample: j }).then((r) => r.latencyMs)));
    // The planned latencies, drawn as generate draws them (stream 3 = latency): within mean ± jitter, and varying.
    const planned = ls.map((_, j) => 20 + (2 * uniform(5, 0, j, 0, 3) - 1) * 15);
    expect(Math.min(...planned)).toBeGreaterThanOrEqual(5);
    expect(Math.max(...planned)).toBeLessThanOrEqual(35);
    expect(Math.max(...planned) - Math.min(...planned)).toBeGreaterThan(5);
    // Wall time bounds each call from below only (a timer takes whole ms, and fires late, and together, under load).
    ls.forEach((l, j) => expect(l).toBeGreaterThanOrEqual(Math.floor(planned[j]!) - 1));
  });

  it('reports tokens: fixed, or estimated at 4 characters per token', async () => {
    const fixed = new SimulatedSystem({ outputs: [{ text: 'x' }], tokens: { prompt: 10, completion: 3 } });
    expect((await fixed.generate('q', { signal, inputIndex: 0, sample: 0 })).usage).toEqual({ promptTokens: 10, completionTokens: 3 });
    const est = new SimulatedSystem({ outputs: [{ text: '12345678' }], tokens: true });
    expect((await est.generate('abcde', { signal, inputIndex: 0, sample: 0 })).usage).toEqual({ promptTokens: 2, completionTokens: 2 });
    const none = new SimulatedSystem({ outputs: [{ text: 'x' }] });
    expect((await none.generate('q', { signal, inputIndex: 0, sample: 0 })).usage).toBeUndefined();
  });
});

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../core/prng.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

const tmp = useConfigDir('assay-monitor-');
const cli = (...args: string[]) => captureCli(args);

/** `n` flat records, one a simulated minute from minute `from`, polite with probability p. */
function log(rand: () => number, from: number, n: number, p: number): string {
  const lines: string[] = [];
  for (let m = from; m < from + n; m++)
    lines.push(
      JSON.stringify({
        service: 'shop',
        operation: 'answer',
        input: `q${m}`,
        output: rand() < p ? 'Thanks, it ships today.' : 'Figure it out yourself.',
        start: new Date(Date.UTC(2026, 0, 5) + m * 60_000).toISOString(),
        latencyMs: 500,
      }),
    );
  return lines.join('\n') + '\n';
}

describe('assay monitor --once', () => {
  it('exits 0 while the rule holds, 1 on the pass that raises an alarm, 0 again after; 2 for a bad monitor file', async () => {
    const store = join(tmp.dir(), 'm.db');
    const rand = mulberry32(9);
    const day = 24 * 60;
    expect((await cli('ingest', tmp.config('week.jsonl', log(rand, 0, 3 * day, 0.97)), '--store', store)).code).toBe(0);
    const file = tmp.config(
      'monitor.yaml',
      `monitor:
  experiment: shop/answer
  window: 1d
validators:
  - { name: polite, predicate: "o => !o.includes('yourself')", minSuccess: 0.9 }
`,
    );
    const quiet = await cli('monitor', file, '--once', '--store', store);
    expect(quiet.err).toBe('');
    expect(quiet.code).toBe(0);
    expect(quiet.out).toMatch(/shop\/answer: 4,320 production samples/);
    expect(quiet.out).toMatch(/polite: 9\d(\.\d)?% of 4,320 checks/);
    expect(quiet.out).toContain('no new alarm');

    expect((await cli('ingest', tmp.config('drop.jsonl', log(rand, 3 * day, day, 0.8)), '--store', store)).code).toBe(0);
    const alarm = await cli('monitor', file, '--once', '--store', store);
    expect(alarm.code).toBe(1);
    expect(alarm.out).toMatch(/ALARM below-min-success: polite: /);

    const after = await cli('monitor', file, '--once', '--store', store, '--json');
    expect(after.code).toBe(0);
    const json = JSON.parse(after.out) as { newAlarms: unknown[]; rules: { alarms: unknown[]; windows: unknown[] }[] };
    expect(json.newAlarms).toEqual([]);
    expect(json.rules[0].alarms.length).toBeGreaterThan(0);
    expect(json.rules[0].windows).toHaveLength(4);

    const bad = tmp.config('bad.yaml', 'monitor:\n  experiment: shop/answer\n  sample: 0\nvalidators:\n  - { name: a, predicate: "o => true" }\n');
    const refused = await cli('monitor', bad, '--once', '--store', store);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/bad\.yaml: monitor\.sample: expected a share of the samples in \(0, 1\], found 0 \(line 3\)/);
  });
});

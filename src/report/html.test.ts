import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { summarize } from '../core/summarize.js';
import { ReliabilityTensor } from '../core/tensor.js';
import type { RunRecord, SampleRecord } from '../store/types.js';
import { esc, scriptJson } from './html-layout.js';
import { renderHtmlReport, writeHtmlReport } from './html.js';

const N = 4;
const M = 3;
const validators = [
  { name: 'json-valid', message: 'must be JSON', minSuccess: 0.9, weight: 1, kind: 'validator' as const },
  { name: 'judge <polite>', message: 'is polite', minSuccess: 0.5, weight: 1, kind: 'verifier' as const },
];
const run: RunRecord = {
  id: 'run-1',
  name: 'report & co',
  config: {},
  inputs: ['first', { q: 'second' }, 'third', 'fourth'],
  samples: M,
  validators,
  systemId: 'echo',
  status: 'complete',
  createdAt: '2026-11-22T01:02:03.000Z',
  N,
  M,
  K: 2,
};

function fixture() {
  const tensor = new ReliabilityTensor(N, M, 2);
  const samples: SampleRecord[] = [];
  for (let i = 0; i < N; i++) {
    for (let j = 0; j < M; j++) {
      if (i === 3 && j === 2) continue; // not run: PENDING cells
      const outcomes = [i === 1 ? Outcome.FAIL : Outcome.PASS, j === 0 ? Outcome.ERROR : Outcome.PASS] as const;
      tensor.set(i, j, 0, outcomes[0]);
      tensor.set(i, j, 1, outcomes[1]);
      samples.push({
        i,
        j,
        output: i === 2 ? '</script><script>window.pwned=1</script>' : `out ${i}.${j}`,
        outcomes: [...outcomes],
        latencyMs: 5,
        attempts: 1,
      });
    }
  }
  return { tensor, samples, summary: summarize(tensor, validators) };
}

describe('static HTML report', () => {
  it('is one self-contained file: K heatmaps of N×M cells, profiles, nothing fetched', () => {
    const { tensor, samples, summary } = fixture();
    const html = renderHtmlReport(run, summary, tensor, samples);
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<link\b|<script\s+src|<img\s|@import|url\(/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(html.match(/<figure class="card heatmap"/g)).toHaveLength(2);
    expect(html.match(/href="#cell-\d+-\d+"/g)).toHaveLength(2 * N * M);
    // Outcomes are told apart by label and glyph, not colour alone.
    expect(html).toContain('<title>json-valid: input 2, sample 1: fail</title>');
    expect(html).toContain('<title>judge &lt;polite&gt;: input 1, sample 1: error</title>');
    expect(html).toContain('<title>json-valid: input 4, sample 3: not run</title>');
    for (const title of ['VRP: per validator', 'IRP: per input', 'ORP: per sample iteration']) expect(html).toContain(title);
    // Names are escaped wherever they appear.
    expect(html).toContain('report &amp; co');
    expect(html).not.toContain('judge <polite>');
  });

  it('embeds the samples as inert JSON that cannot close its script element', () => {
    const { tensor, samples, summary } = fixture();
    const html = renderHtmlReport(run, summary, tensor, samples);
    const m = /<script type="application\/json" id="assay-samples">([\s\S]*?)<\/script>/.exec(html);
    expect(m).not.toBeNull();
    const data = JSON.parse(m![1]);
    expect(Object.keys(data)).toHaveLength(N * M - 1);
    expect(data['1,0']).toMatchObject({ input: { q: 'second' }, output: 'out 1.0' });
    expect(data['1,0'].outcomes).toEqual([
      { validator: 'json-valid', outcome: 'fail' },
      { validator: 'judge <polite>', outcome: 'error' },
    ]);
    expect(data['2,1'].output).toBe('</script><script>window.pwned=1</script>');
    expect(html.match(/<script>window\.pwned/g)).toBeNull();
  });

  it('says when outputs are not included, and writes the file', async () => {
    const { tensor, summary } = fixture();
    const html = renderHtmlReport(run, summary, tensor);
    expect(html).not.toContain('id="assay-samples"');
    expect(html).toContain('Outputs are not included');
    const dir = mkdtempSync(join(tmpdir(), 'assay-html-'));
    try {
      const file = join(dir, 'nested', 'report.html');
      await writeHtmlReport(file, run, summary, tensor);
      expect(readFileSync(file, 'utf8')).toContain('report &amp; co');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('escapes HTML and script-embedded JSON', () => {
    expect(esc(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect(scriptJson({ s: '</script>\u2028' })).toBe('{"s":"\\u003c/script>\\u2028"}');
    expect(JSON.parse(scriptJson({ s: '</script>\u2028' }))).toEqual({ s: '</script>\u2028' });
  });
});

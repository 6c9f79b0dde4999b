import { describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { matrixFromResults } from './metrics.js';
import { pruneSubsumptions, subsumptionRoots, transitiveAdditions } from './subsumption.js';

const examples = [
  { id: 'g1', label: 'good' as const },
  { id: 'g2', label: 'good' as const },
  { id: 'b1', label: 'bad' as const },
  { id: 'b2', label: 'bad' as const },
];
// fails: json ⊇ list2 (json fails wherever list2 fails); tone fails g1 and g2 (FFR 1).
const fails: Record<string, string[]> = { json: ['b1', 'b2'], list2: ['b2'], tone: ['g1', 'g2', 'b1'], len: ['b1'] };
const ids = Object.keys(fails);
const m = matrixFromResults(examples, ids, (e, a) => !fails[ids[a]].includes(examples[e].id));

describe('pruneSubsumptions', () => {
  it('a counterexample in the matrix refutes a pair and names the example', () => {
    const r = pruneSubsumptions([{ subsumer: 'list2', subsumed: 'json' }], m);
    expect(r.refuted).toEqual([{ subsumer: 'list2', subsumed: 'json', example: 'b1' }]);
    expect(r.kept).toEqual([]);
  });
  it('keeps a pair the data agrees with', () => {
    const r = pruneSubsumptions([{ subsumer: 'json', subsumed: 'list2' }], m);
    expect(r.kept).toEqual([{ subsumer: 'json', subsumed: 'list2' }]);
  });
  it('skips pairs with an assertion whose FFR exceeds τ', () => {
    const r = pruneSubsumptions([{ subsumer: 'tone', subsumed: 'len' }], m, { tau: 0.5 });
    expect(r.skipped).toEqual([{ subsumer: 'tone', subsumed: 'len', reason: 'ffr' }]);
    expect(pruneSubsumptions([{ subsumer: 'tone', subsumed: 'len' }], m, { tau: 1 }).kept).toHaveLength(1);
  });
  it('an ERROR cell is no counterexample', () => {
    const m2 = { ...m, cells: m.cells.slice() };
    const A = ids.length;
    // list2 passes b1, json fails it: make json's b1 cell an error and list2 fail b1 instead of json.
    m2.cells[2 * A + ids.indexOf('list2')] = Outcome.FAIL;
    m2.cells[2 * A + ids.indexOf('json')] = Outcome.ERROR;
    expect(pruneSubsumptions([{ subsumer: 'json', subsumed: 'list2' }], m2).refuted).toEqual([]);
  });
  it('drops self, unknown and duplicate pairs', () => {
    const r = pruneSubsumptions(
      [
        { subsumer: 'json', subsumed: 'json' },
        { subsumer: 'json', subsumed: 'nope' },
        { subsumer: 'json', subsumed: 'list2' },
        { subsumer: 'json', subsumed: 'list2' },
      ],
      m,
    );
    expect(r.skipped.map((s) => s.reason)).toEqual(['self', 'unknown', 'duplicate']);
  });
  it('closes the surviving pairs under transitivity', () => {
    const r = pruneSubsumptions([
      { subsumer: 'a', subsumed: 'b' },
      { subsumer: 'b', subsumed: 'c' },
      { subsumer: 'c', subsumed: 'd' },
    ]);
    expect(r.implied).toEqual(
      expect.arrayContaining([
        { subsumer: 'a', subsumed: 'c' },
        { subsumer: 'a', subsumed: 'd' },
        { subsumer: 'b', subsumed: 'd' },
      ]),
    );
    expect(r.implied).toHaveLength(3);
    expect(r.kept).toHaveLength(6);
  });
  it('transitivity ignores self-loops from cycles', () => {
    expect(
      transitiveAdditions([
        { subsumer: 'a', subsumed: 'b' },
        { subsumer: 'b', subsumed: 'a' },
      ]),
    ).toEqual([]);
  });
});

describe('subsumptionRoots (no examples)', () => {
  it('selects the nodes with no incoming edge, in topological order', () => {
    // the paper's Figure 6 shape: f1 → f2 → f4, f1 → f3, f5 → f3, f6 alone
    const pairs = [
      ['f1', 'f2'],
      ['f2', 'f4'],
      ['f1', 'f3'],
      ['f5', 'f3'],
    ].map(([subsumer, subsumed]) => ({ subsumer, subsumed }));
    const r = subsumptionRoots(['f1', 'f2', 'f3', 'f4', 'f5', 'f6'], pairs);
    expect(r.roots).toEqual(['f1', 'f5', 'f6']);
    const pos = (x: string) => r.order.indexOf(x);
    for (const p of pairs) expect(pos(p.subsumer)).toBeLessThan(pos(p.subsumed));
    expect(r.order).toHaveLength(6);
  });
  it('collapses equivalent assertions (cycles) to one representative', () => {
    const r = subsumptionRoots(
      ['a', 'b', 'c'],
      [
        { subsumer: 'a', subsumed: 'b' },
        { subsumer: 'b', subsumed: 'a' },
        { subsumer: 'b', subsumed: 'c' },
      ],
    );
    expect(r.roots).toEqual(['a']);
    expect(r.equivalent).toEqual([['a', 'b']]);
    expect(r.order).toEqual(['a', 'c']);
  });
  it('handles a long chain without recursion limits', () => {
    const ids = Array.from({ length: 20000 }, (_, k) => `n${k}`);
    const pairs = ids.slice(1).map((id, k) => ({ subsumer: ids[k], subsumed: id }));
    expect(subsumptionRoots(ids, pairs).roots).toEqual(['n0']);
  });
});

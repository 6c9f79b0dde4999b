/**
 * Subsumption (SPADE §3.3): pruning proposed pairs by the paper's heuristics, and the no-example
 * selection (roots of the subsumption DAG). Pure: no I/O.
 */
import { Outcome } from '../core/outcome.js';
import { assertionStats } from './metrics.js';
import type { EvaluationMatrix, SubsumptionPair } from './types.js';
import { minOf, pushAll } from '../core/arrays.js';

export interface PruneReport {
  /** Pairs that survived the heuristics, plus the ones implied by transitivity. */
  kept: SubsumptionPair[];
  /** A counterexample: the subsumed assertion fails an example that the subsumer passes. */
  refuted: (SubsumptionPair & { example: string })[];
  /** Not worth evaluating: a pair whose subsumer could never be selected (own FFR > τ), or malformed. */
  skipped: (SubsumptionPair & { reason: 'ffr' | 'self' | 'unknown' | 'duplicate' })[];
  /** Added by transitivity (i ⊒ j and j ⊒ k give i ⊒ k) without being asked. */
  implied: SubsumptionPair[];
}

const key = (p: SubsumptionPair) => `${p.subsumer}\u0000${p.subsumed}`;

/**
 * Heuristics in the paper's order. (1) A counterexample in the matrix refutes a pair: any set holding
 * the subsumer does not subsume f if f flags a failure the subsumer does not (ERROR cells are no evidence).
 * (2) The FFR-based skip: FFR(S ∪ {f}) ≥ max(FFR(S), FFR(f)), so a pair where either side has FFR > τ
 * need not be evaluated (the subsumer can never be selected; a true subsumer of an assertion with FFR > τ
 * has FFR > τ too). (3) Transitivity closes what survives.
 */
export function pruneSubsumptions(pairs: SubsumptionPair[], matrix?: EvaluationMatrix, options: { tau?: number } = {}): PruneReport {
  const report: PruneReport = { kept: [], refuted: [], skipped: [], implied: [] };
  const known = matrix ? new Set(matrix.assertions) : undefined;
  const at = new Map((matrix?.assertions ?? []).map((id, k) => [id, k]));
  const stats = matrix ? assertionStats(matrix) : undefined;
  const seen = new Set<string>();
  for (const raw of pairs) {
    const p = { subsumer: raw.subsumer, subsumed: raw.subsumed };
    if (p.subsumer === p.subsumed) {
      report.skipped.push({ ...p, reason: 'self' });
      continue;
    }
    if (known && (!known.has(p.subsumer) || !known.has(p.subsumed))) {
      report.skipped.push({ ...p, reason: 'unknown' });
      continue;
    }
    if (seen.has(key(p))) {
      report.skipped.push({ ...p, reason: 'duplicate' });
      continue;
    }
    seen.add(key(p));
    if (matrix && stats) {
      const i = at.get(p.subsumer)!;
      const j = at.get(p.subsumed)!;
      const A = matrix.assertions.length;
      const e = matrix.examples.findIndex((_, e) => matrix.cells[e * A + j] === Outcome.FAIL && matrix.cells[e * A + i] === Outcome.PASS);
      if (e >= 0) {
        report.refuted.push({ ...p, example: matrix.examples[e].id });
        continue;
      }
      const tau = options.tau;
      if (tau !== undefined && ((stats[i].ffr ?? 0) > tau || (stats[j].ffr ?? 0) > tau)) {
        report.skipped.push({ ...p, reason: 'ffr' });
        continue;
      }
    }
    report.kept.push(p);
  }
  report.implied = transitiveAdditions(report.kept);
  pushAll(report.kept, report.implied);
  return report;
}

/** Pairs implied by transitivity that are not already in `pairs` (self-pairs from cycles excluded). */
export function transitiveAdditions(pairs: SubsumptionPair[]): SubsumptionPair[] {
  const out = new Map<string, Set<string>>();
  for (const p of pairs) {
    if (!out.has(p.subsumer)) out.set(p.subsumer, new Set());
    out.get(p.subsumer)!.add(p.subsumed);
  }
  const have = new Set(pairs.map(key));
  const added: SubsumptionPair[] = [];
  for (const start of out.keys()) {
    const stack = [...out.get(start)!];
    const reached = new Set<string>(stack);
    while (stack.length) {
      const n = stack.pop()!;
      for (const m of out.get(n) ?? []) {
        if (!reached.has(m)) {
          reached.add(m);
          stack.push(m);
        }
      }
    }
    for (const r of reached) {
      const p = { subsumer: start, subsumed: r };
      if (r !== start && !have.has(key(p))) {
        have.add(key(p));
        added.push(p);
      }
    }
  }
  return added;
}

export interface RootsResult {
  /** One assertion per root of the DAG (no incoming edge): the selection without examples. */
  roots: string[];
  /** Groups of equivalent assertions (cycles: each subsumes the other); the first is the representative. */
  equivalent: string[][];
  /** Representatives in topological order (subsumers before what they subsume). */
  order: string[];
}

/**
 * Subsumption without examples (§3.3.3): select the nodes with no incoming edge. Cycles mean
 * equivalence (the paper's "trivial case"); each is collapsed to its first member in `ids` order,
 * then the condensed DAG is sorted topologically (Kahn) and its sources are the roots.
 */
export function subsumptionRoots(ids: string[], pairs: SubsumptionPair[]): RootsResult {
  const idx = new Map(ids.map((id, k) => [id, k]));
  const adj: number[][] = ids.map(() => []);
  for (const p of pairs) {
    const i = idx.get(p.subsumer);
    const j = idx.get(p.subsumed);
    if (i !== undefined && j !== undefined && i !== j) adj[i].push(j);
  }
  // Tarjan's strongly connected components (iterative, so deep chains cannot overflow the stack).
  const n = ids.length;
  const index = new Array<number>(n).fill(-1);
  const low = new Array<number>(n).fill(0);
  const onStack = new Array<boolean>(n).fill(false);
  const comp = new Array<number>(n).fill(-1);
  const stack: number[] = [];
  let counter = 0;
  let nComp = 0;
  for (let s = 0; s < n; s++) {
    if (index[s] >= 0) continue;
    const work: [number, number][] = [[s, 0]];
    index[s] = low[s] = counter++;
    stack.push(s);
    onStack[s] = true;
    while (work.length) {
      const top = work[work.length - 1];
      const [v, k] = top;
      if (k < adj[v].length) {
        top[1]++;
        const w = adj[v][k];
        if (index[w] < 0) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = true;
          work.push([w, 0]);
        } else if (onStack[w]) low[v] = Math.min(low[v], index[w]);
      } else {
        work.pop();
        if (work.length) low[work[work.length - 1][0]] = Math.min(low[work[work.length - 1][0]], low[v]);
        if (low[v] === index[v]) {
          let w: number;
          do {
            w = stack.pop()!;
            onStack[w] = false;
            comp[w] = nComp;
          } while (w !== v);
          nComp++;
        }
      }
    }
  }
  const members: number[][] = Array.from({ length: nComp }, () => []);
  for (let v = 0; v < n; v++) members[comp[v]].push(v);
  const rep = members.map((ms) => minOf(ms));
  const indeg = new Array<number>(nComp).fill(0);
  const cadj: Set<number>[] = Array.from({ length: nComp }, () => new Set());
  for (let v = 0; v < n; v++)
    for (const w of adj[v])
      if (comp[v] !== comp[w] && !cadj[comp[v]].has(comp[w])) {
        cadj[comp[v]].add(comp[w]);
        indeg[comp[w]]++;
      }
  const roots = [...Array(nComp).keys()].filter((c) => indeg[c] === 0);
  // Kahn's algorithm, smallest representative first, for a deterministic order.
  const ready = [...roots].sort((a, b) => rep[a] - rep[b]);
  const order: number[] = [];
  const deg = [...indeg];
  while (ready.length) {
    const c = ready.shift()!;
    order.push(c);
    for (const d of cadj[c])
      if (--deg[d] === 0) {
        ready.push(d);
        ready.sort((a, b) => rep[a] - rep[b]);
      }
  }
  return {
    roots: roots.sort((a, b) => rep[a] - rep[b]).map((c) => ids[rep[c]]),
    equivalent: members.filter((ms) => ms.length > 1).map((ms) => ms.sort((a, b) => a - b).map((v) => ids[v])),
    order: order.map((c) => ids[rep[c]]),
  };
}

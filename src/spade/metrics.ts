/**
 * Coverage and false failure rate (SPADE Definitions 3.1 and 3.2) on an evaluation matrix.
 * An example fails a set S when any assertion in S fails it. Pure: no I/O.
 *
 * Errors are not failures: an ERROR cell never counts as catching a bad example nor as flagging a
 * good one (the runner keeps errors apart from failures; an assertion that cannot run cannot be
 * credited with coverage). Per-assertion figures with intervals use only the non-error cells.
 */
import { Outcome } from '../core/outcome.js';
import type { EvaluationMatrix } from './types.js';

/** The matrix as bit rows: fails[e][a] = 1 when assertion a flags example e (FAIL, not ERROR). */
export interface FailView {
  nAssertions: number;
  good: number[];
  bad: number[];
  /** fails[e] = Uint8Array over assertions. */
  fails: Uint8Array[];
}

export function failView(m: EvaluationMatrix): FailView {
  const A = m.assertions.length;
  const fails: Uint8Array[] = [];
  const good: number[] = [];
  const bad: number[] = [];
  m.examples.forEach((ex, e) => {
    const row = new Uint8Array(A);
    for (let a = 0; a < A; a++) row[a] = m.cells[e * A + a] === Outcome.FAIL ? 1 : 0;
    fails.push(row);
    (ex.label === 'good' ? good : bad).push(e);
  });
  return { nAssertions: A, good, bad, fails };
}

export interface SetMetrics {
  /** Good examples the set fails / good examples (null when there are no good examples). */
  ffr: number | null;
  /** Bad examples the set fails / bad examples (null when there are no bad examples). */
  coverage: number | null;
  falseFailures: number;
  caught: number;
  nGood: number;
  nBad: number;
}

/** Metrics of the conjunction of the assertions at `selected` (column indices). */
export function setMetrics(v: FailView, selected: number[]): SetMetrics {
  const flagged = (e: number) => selected.some((a) => v.fails[e][a] === 1);
  const falseFailures = v.good.filter(flagged).length;
  const caught = v.bad.filter(flagged).length;
  return {
    ffr: v.good.length ? falseFailures / v.good.length : null,
    coverage: v.bad.length ? caught / v.bad.length : null,
    falseFailures,
    caught,
    nGood: v.good.length,
    nBad: v.bad.length,
  };
}

export interface AssertionStats {
  id: string;
  /** Over all labelled examples (errors count as not flagged), as the selection programs see it. */
  ffr: number | null;
  coverage: number | null;
  /** Counts over the non-error cells, for intervals. */
  goodFailed: number;
  goodRun: number;
  badFailed: number;
  badRun: number;
  errors: number;
}

export function assertionStats(m: EvaluationMatrix): AssertionStats[] {
  const A = m.assertions.length;
  return m.assertions.map((id, a) => {
    let goodFailed = 0;
    let goodRun = 0;
    let badFailed = 0;
    let badRun = 0;
    let errors = 0;
    let nGood = 0;
    let nBad = 0;
    m.examples.forEach((ex, e) => {
      const c = m.cells[e * A + a];
      if (ex.label === 'good') nGood++;
      else nBad++;
      if (c === Outcome.ERROR || c === Outcome.PENDING) {
        errors++;
        return;
      }
      const failed = c === Outcome.FAIL ? 1 : 0;
      if (ex.label === 'good') {
        goodRun++;
        goodFailed += failed;
      } else {
        badRun++;
        badFailed += failed;
      }
    });
    return {
      id,
      ffr: nGood ? goodFailed / nGood : null,
      coverage: nBad ? badFailed / nBad : null,
      goodFailed,
      goodRun,
      badFailed,
      badRun,
      errors,
    };
  });
}

/** Build a matrix from boolean pass results (true = pass) per assertion, in example order. */
export function matrixFromResults(
  examples: { id: string; label: 'good' | 'bad' }[],
  assertions: string[],
  pass: (e: number, a: number) => boolean | null,
): EvaluationMatrix {
  const cells = new Uint8Array(examples.length * assertions.length);
  for (let e = 0; e < examples.length; e++) {
    for (let a = 0; a < assertions.length; a++) {
      const p = pass(e, a);
      cells[e * assertions.length + a] = p === null ? Outcome.ERROR : p ? Outcome.PASS : Outcome.FAIL;
    }
  }
  return { assertions, examples, cells };
}

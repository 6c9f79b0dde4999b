import { compareProportions, type ProportionComparison } from '../core/significance.js';
import { summarize } from '../core/summarize.js';
import type { Counts, RunSummary } from '../core/summary-types.js';
import type { ReliabilityTensor } from '../core/tensor.js';
import type { InputValue } from '../core/validator.js';
import type { RunRecord } from '../store/types.js';

/**
 * Run A (baseline) against run B (candidate): per validator (matched by name) and per input (matched by
 * content), B's rate minus A's with Newcombe's interval and a test (Fisher or z, see compareProportions).
 * Per-input figures pool one input's samples, which are correlated: read them as a guide, not a gate.
 */
export interface ComparisonRow extends ProportionComparison {
  label: string;
}

export interface RunComparison {
  a: { id: string; name: string; createdAt: string; shape: string };
  b: { id: string; name: string; createdAt: string; shape: string };
  level: number;
  validators: ComparisonRow[];
  inputs: (ComparisonRow & { iA: number; iB: number })[];
  /** Validators of one run only (not compared). */
  onlyInA: string[];
  onlyInB: string[];
  /** Inputs present in one run only. */
  inputsOnlyInA: number;
  inputsOnlyInB: number;
  /** Validators whose rate got significantly worse in B: the CI regression gate. */
  regressions: string[];
}

function decided(c: Counts): { pass: number; n: number } {
  return { pass: c.pass, n: c.pass + c.fail };
}

function inputKey(input: InputValue): string {
  return typeof input === 'string' ? `s:${input}` : `o:${JSON.stringify(input)}`;
}

function side(run: RunRecord, t: ReliabilityTensor) {
  return { id: run.id, name: run.name, createdAt: run.createdAt, shape: `${t.N}×${t.M}×${t.K}` };
}

export function compareRuns(
  runA: RunRecord,
  tensorA: ReliabilityTensor,
  runB: RunRecord,
  tensorB: ReliabilityTensor,
  level = 0.95,
  summaries?: { a: RunSummary; b: RunSummary },
): RunComparison {
  const sa = summaries?.a ?? summarize(tensorA, runA.validators, { level });
  const sb = summaries?.b ?? summarize(tensorB, runB.validators, { level });
  const byNameB = new Map(sb.validators.map((v) => [v.name, v]));
  const namesA = new Set(sa.validators.map((v) => v.name));

  const validators: ComparisonRow[] = [];
  for (const va of sa.validators) {
    const vb = byNameB.get(va.name);
    if (!vb) continue;
    validators.push({ label: va.name, ...compareProportions(decided(va.counts), decided(vb.counts), level) });
  }

  const indexB = new Map<string, number>();
  runB.inputs.forEach((input, i) => {
    const key = inputKey(input);
    if (!indexB.has(key)) indexB.set(key, i);
  });
  const inputs: RunComparison['inputs'] = [];
  const matchedB = new Set<number>();
  runA.inputs.forEach((input, iA) => {
    const iB = indexB.get(inputKey(input));
    if (iB === undefined || matchedB.has(iB)) return;
    matchedB.add(iB);
    const label = typeof input === 'string' ? input : JSON.stringify(input);
    inputs.push({ label, iA, iB, ...compareProportions(decided(sa.inputs[iA].counts), decided(sb.inputs[iB].counts), level) });
  });

  return {
    a: side(runA, tensorA),
    b: side(runB, tensorB),
    level,
    validators,
    inputs,
    onlyInA: sa.validators.filter((v) => !byNameB.has(v.name)).map((v) => v.name),
    onlyInB: sb.validators.filter((v) => !namesA.has(v.name)).map((v) => v.name),
    inputsOnlyInA: runA.inputs.length - inputs.length,
    inputsOnlyInB: runB.inputs.length - inputs.length,
    regressions: validators.filter((v) => v.direction === 'worse').map((v) => v.label),
  };
}

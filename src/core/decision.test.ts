import { describe, expect, it } from 'vitest';
import { Outcome } from './outcome.js';
import { ReliabilityTensor } from './tensor.js';
import type { ValidatorMeta } from './validator.js';
import { UsageError } from '../errors.js';
import { checkResumedDecision, decisionChanges, decisionOfRun, summarizeRun, type DecisionParameters } from './decision.js';

const metas: ValidatorMeta[] = [
  { name: 'short', message: 'm', minSuccess: 0.95, weight: 1, kind: 'validator', expect: 0.98 },
  { name: 'polite', message: 'm', minSuccess: 0.8, weight: 1, kind: 'verifier', maxErrorShare: 0.1 },
];
const decision: DecisionParameters = {
  confidence: 0.9,
  interval: 'wilson',
  verdict: 'confident',
  maxErrorShare: 0.02,
  stopping: 'fixed',
  rules: [
    { name: 'short', minSuccess: 0.95, expect: 0.98 },
    { name: 'polite', minSuccess: 0.8, maxErrorShare: 0.1 },
  ],
};

/** One input, 20 samples: short passes 19 (one fails), polite passes all. */
function tensor(): ReliabilityTensor {
  const t = new ReliabilityTensor(1, 20, 2);
  for (let j = 0; j < 20; j++) {
    t.set(0, j, 0, j === 7 ? Outcome.FAIL : Outcome.PASS);
    t.set(0, j, 1, Outcome.PASS);
  }
  return t;
}

describe('decisionOfRun: the stored parameters of a run, one source for every command', () => {
  it('reads the block stored at creation', () => {
    expect(decisionOfRun({ config: { verdict: 'point', decision }, validators: metas })).toEqual(decision);
  });

  it('a run stored before the block existed is read from its stored config, as it was decided then', () => {
    expect(
      decisionOfRun({ config: { confidence: 0.99, interval: 'wald', verdict: 'point', maxErrorShare: 0.1, stopping: 'fixed' }, validators: metas }),
    ).toEqual({
      confidence: 0.99,
      interval: 'wald',
      verdict: 'point',
      maxErrorShare: 0.1,
      stopping: 'fixed',
      rules: decision.rules,
    });
    // No config at all: the defaults of the time (point verdicts); a sequential run always decided confidently.
    expect(decisionOfRun({ config: null, validators: metas })).toMatchObject({
      verdict: 'point',
      confidence: 0.95,
      interval: 'clopper-pearson',
      maxErrorShare: 0.05,
    });
    expect(decisionOfRun({ config: { stopping: 'sequential', verdict: 'point' }, validators: metas })).toMatchObject({
      stopping: 'sequential',
      verdict: 'confident',
    });
    // A damaged block is not trusted: the legacy reading takes over.
    expect(decisionOfRun({ config: { verdict: 'confident', decision: { ...decision, confidence: 7 } }, validators: metas })).toMatchObject({
      confidence: 0.95,
      verdict: 'confident',
    });
  });
});

describe('summarizeRun decides by the stored parameters', () => {
  it('the stored level, interval, verdict mode and thresholds, whatever the validators or defaults say', () => {
    const s = summarizeRun({ config: { decision }, validators: metas }, tensor());
    expect(s.options).toMatchObject({ level: 0.9, interval: 'wilson', verdict: 'confident', maxErrorShare: 0.02, stopping: 'fixed' });
    expect(s.validators.map((v) => [v.name, v.minSuccess, v.maxErrorShare])).toEqual([
      ['short', 0.95, 0.02],
      ['polite', 0.8, 0.1],
    ]);
    // 19/20 vs 0.95: a point pass (95% ≥ 95%), not a confident one.
    expect(s.validators[0].verdict).toBe('inconclusive');
    const point = summarizeRun({ config: { decision: { ...decision, verdict: 'point' } }, validators: metas }, tensor());
    expect(point.validators[0].verdict).toBe('pass');
  });
});

describe('a resume may not change how the run is decided', () => {
  it('names every changed field, old → new, rules by name', () => {
    const now: DecisionParameters = {
      ...decision,
      confidence: 0.5,
      verdict: 'point',
      rules: [
        { name: 'short', minSuccess: 0.9 },
        { name: 'polite', minSuccess: 0.8, maxErrorShare: 0.2 },
      ],
    };
    expect(decisionChanges(decision, now)).toEqual([
      'confidence: 0.9 → 0.5',
      'verdict: confident → point',
      '"short".minSuccess: 0.95 → 0.9',
      '"short".expect: 0.98 → unset',
      '"polite".maxErrorShare: 0.1 → 0.2',
    ]);
    expect(decisionChanges(decision, structuredClone(decision))).toEqual([]);
  });

  it('the estimand is a decision parameter: a resume that changes it is named; a run stored without one is about the inputs run', () => {
    expect(decisionChanges(decision, { ...decision, estimand: 'population' })).toEqual(['estimand: inputs → population']);
    expect(decisionChanges({ ...decision, estimand: 'inputs' }, decision)).toEqual([]);
    const run = { id: 'r1', config: { decision: { ...decision, estimand: 'population' } }, validators: metas };
    expect(decisionOfRun(run).estimand).toBe('population');
    expect(decisionOfRun({ ...run, config: { decision: { ...decision, estimand: 'everyone' } } }).estimand).toBeUndefined();
  });

  it('refuses with a UsageError (exit 2) naming the run, the config and the changes; accepts the same parameters', () => {
    const run = { id: 'r1', config: { decision }, validators: metas };
    expect(() => checkResumedDecision(run, decision, 'a.yaml')).not.toThrow();
    let err: unknown;
    try {
      checkResumedDecision(run, { ...decision, stopping: 'sequential' }, 'a.yaml');
    } catch (e) {
      err = e;
    }
    expect(UsageError.isInstance(err)).toBe(true);
    expect((err as UsageError).exitCode).toBe(2);
    // Named by the option's key (the CLI shows it as --resume, cli/flag-names.ts).
    expect((err as UsageError).where).toMatchObject({ key: 'runId' });
    expect((err as Error).message).toMatch(
      /^runId r1: the config a\.yaml \(or an override\) changes how the run is decided: stopping: fixed → sequential\. A run keeps/,
    );
  });
});

describe('per-input floors are decision parameters (issue 19)', () => {
  it('a changed, added or dropped floor is a change, named by rule', () => {
    const withFloor: DecisionParameters = { ...decision, rules: decision.rules.map((r) => ({ ...r, perInput: { minSuccess: 0.8 } })) };
    expect(decisionChanges(decision, withFloor)).toEqual(['"short".perInput: unset → {"minSuccess":0.8}', '"polite".perInput: unset → {"minSuccess":0.8}']);
    const lower = { ...withFloor, rules: [{ ...withFloor.rules[0], perInput: { minSuccess: 0.7 } }, withFloor.rules[1]] };
    expect(decisionChanges(withFloor, lower)).toEqual(['"short".perInput: {"minSuccess":0.8} → {"minSuccess":0.7}']);
    expect(decisionChanges(withFloor, structuredClone(withFloor))).toEqual([]);
  });

  it('a stored floor decides the stored run (summarizeRun), whatever its stored validators say', () => {
    const t = new ReliabilityTensor(2, 30, 2);
    for (let i = 0; i < 2; i++) for (let j = 0; j < 30; j++) for (let k = 0; k < 2; k++) t.set(i, j, k, i === 0 ? Outcome.PASS : Outcome.FAIL);
    const stored = { ...decision, rules: [{ ...decision.rules[0], perInput: { minSuccess: 0.5 } }, decision.rules[1]] };
    const s = summarizeRun({ config: { decision: stored }, validators: metas }, t);
    expect(s.validators[0].perInput).toMatchObject({ minSuccess: 0.5, failing: [1] });
    expect(s.validators[1].perInput).toBeUndefined();
  });
});

describe('pass^k is a decision parameter (issue 25)', () => {
  it('a changed, added or dropped passK is a change, named by rule; a stored one decides the stored run', () => {
    const withK: DecisionParameters = { ...decision, rules: [{ ...decision.rules[0], passK: { k: 5, minSuccess: 0.8 } }, decision.rules[1]] };
    expect(decisionChanges(decision, withK)).toEqual(['"short".passK: unset → {"k":5,"minSuccess":0.8}']);
    const laxer = { ...withK, rules: [{ ...withK.rules[0], passK: { k: 5, minSuccess: 0.5 } }, withK.rules[1]] };
    expect(decisionChanges(withK, laxer)).toEqual(['"short".passK: {"k":5,"minSuccess":0.8} → {"k":5,"minSuccess":0.5}']);
    expect(decisionChanges(withK, structuredClone(withK))).toEqual([]);
    const t = new ReliabilityTensor(2, 30, 2);
    for (let i = 0; i < 2; i++) for (let j = 0; j < 30; j++) for (let k = 0; k < 2; k++) t.set(i, j, k, Outcome.PASS);
    const s = summarizeRun({ config: { decision: withK }, validators: metas }, t);
    expect(s.validators[0].passK).toMatchObject({ k: 5, minSuccess: 0.8, passK: 1 });
    expect(s.validators[1].passK).toBeUndefined();
    // A stored block with a malformed passK is not this version's: read the legacy way, from the stored validators.
    expect(
      decisionOfRun({ config: { decision: { ...withK, rules: [{ ...withK.rules[0], passK: { k: 0 } }, withK.rules[1]] } }, validators: metas }).rules[0].passK,
    ).toBeUndefined();
  });
});

import { Outcome, type OutcomeCode } from '../../core/outcome.js';
import type { GuardAttemptRecord, GuardCallRecord, NewGrade, NewRun, SampleRecord, Store } from '../types.js';

/** What the Store contract suites (store/*.case.ts) and other store tests build their data from. */

export const P = Outcome.PASS;
export const F = Outcome.FAIL;
export const E = Outcome.ERROR;

/** A fresh, empty store of one adapter. */
export type MakeStore = () => Promise<Store>;

export function newRun(overrides: Partial<NewRun> = {}): NewRun {
  return {
    name: 'exp',
    config: { name: 'exp', samples: 3, nested: { a: [1, 2] } },
    configPath: 'assay.yaml',
    inputs: ['first', { prompt: 'second', lang: 'fr' }],
    samples: 3,
    validators: [
      { name: 'v0', message: 'm0', minSuccess: 0.9, weight: 1, kind: 'validator', source: 'o => true' },
      { name: 'v1', message: 'm1', minSuccess: 0.5, weight: 2, kind: 'verifier' },
    ],
    systemId: 'simulated',
    ...overrides,
  };
}

export function sample(i: number, j: number, outcomes: OutcomeCode[], extra: Partial<SampleRecord> = {}): SampleRecord {
  return { i, j, outcomes, output: `out ${i},${j}`, latencyMs: 12.5, attempts: 1, ...extra };
}

export function guardAttempt(callId: string, n: number, extra: Partial<GuardAttemptRecord> = {}): GuardAttemptRecord {
  return {
    callId,
    n,
    systemId: 'sys',
    status: 'rejected',
    input: { prompt: 'Invite', lang: 'en' },
    output: `Call 555 (${n})`,
    validators: [
      { name: 'no_digits', outcome: 'fail' },
      { name: 'short', outcome: 'error', error: 'timed out after 5 ms' },
    ],
    verifier: { outcome: 'fail', reasons: ['has digits', 'too curt'] },
    reasons: ['has digits'],
    latencyMs: 12.75,
    usage: { system: { promptTokens: 100, completionTokens: 7 }, verifier: { promptTokens: 50, completionTokens: 3 } },
    startedAt: '2026-01-02T03:04:05.000Z',
    ...extra,
  };
}

export function guardCall(callId: string, extra: Partial<GuardCallRecord> = {}): GuardCallRecord {
  return {
    callId,
    systemId: 'sys',
    input: 'Invite',
    accepted: true,
    reason: 'accepted',
    output: 'Call us',
    attempts: 2,
    usage: { promptTokens: 300, completionTokens: 20 },
    cost: 0.0125,
    latencyMs: 40.5,
    finishedAt: '2026-01-02T03:04:06.000Z',
    ...extra,
  };
}

export function grade(i: number, j: number, extra: Partial<NewGrade> = {}): NewGrade {
  return { i, j, rule: 'v1', grade: 'fail', grader: 'reviewer-1', ...extra };
}

/**
 * A run of newRun() with outputs (0, 0), (0, 1), (1, 0), (1, 2) stored, (1, 1) a failed generation and
 * (0, 2) not run: what the grades suite grades.
 */
export async function gradedRun(store: Store): Promise<string> {
  const runId = (await store.runs.create(newRun())).id;
  for (const [i, j] of [
    [0, 0],
    [0, 1],
    [1, 0],
    [1, 2],
  ])
    await store.samples.record(runId, sample(i, j, [P, F]));
  await store.samples.record(runId, sample(1, 1, [E, E], { output: undefined, generationError: 'HTTP 503' }));
  return runId;
}

/**
 * Evaluation (SPADE §3.1): every candidate over every labelled example → the assertion × example
 * pass/fail matrix. Infrastructure errors (a JS function that throws, times out or runs out of
 * memory, a judge that cannot be reached) are ERROR cells with their reason, never failures.
 */
import { Outcome, type OutcomeCode } from '../core/outcome.js';
import type { InputValue } from '../core/validator.js';
import type { JudgeMaker } from '../judge/config.js';
import { createOpenAIJudge } from '../judge/openai-judge.js';
import type { Judge } from '../judge/types.js';
import type { Sandbox, SandboxLimits } from '../sandbox/types.js';
import { buildCheck } from '../validators/builtin.js';
import { requireBoolean } from '../validators/sandboxed.js';
import type { CandidateAssertion, EvaluationMatrix, LabelledExample } from './types.js';
import { thrownMessage } from '../errors.js';

export interface JudgeSettings {
  model: string;
  baseURL?: string;
  apiKey?: string;
  timeoutMs?: number;
}

export interface EvaluateOptions {
  /** Runs `js` assertions; required when there are any. */
  sandbox?: Sandbox;
  sandboxLimits?: Partial<SandboxLimits>;
  /**
   * Answers `llm` yes/no assertions: an OpenAI-compatible endpoint, or judges on any provider (judgeMakerFromConfig
   * over a `judge:` provider object). Without it their cells are ERROR.
   */
  judge?: JudgeSettings | JudgeMaker;
  /** Parallel judge calls (default 4). */
  concurrency?: number;
}

/** The judge instruction of an `llm` assertion: the same at evaluation and in the exported config. */
export function llmInstruction(question: string): string {
  return `Answer this yes/no question about the output; "yes" means PASS: ${question}`;
}

type Cell = (output: string, input: InputValue) => Promise<{ code: OutcomeCode; error?: string }>;

const verdict = (pass: boolean) => ({ code: pass ? Outcome.PASS : Outcome.FAIL });
const failure = (err: unknown) => ({ code: Outcome.ERROR, error: thrownMessage(err) });

async function cellFor(c: CandidateAssertion, options: EvaluateOptions, judges: Map<string, Judge>): Promise<Cell> {
  const form = c.form;
  switch (form.kind) {
    case 'check': {
      const { predicate } = buildCheck(form.check);
      return async (o) => {
        try {
          return verdict(predicate(o));
        } catch (err) {
          return failure(err);
        }
      };
    }
    case 'js': {
      if (!options.sandbox) return async () => failure('no sandbox to run JavaScript assertions');
      let fn: Awaited<ReturnType<Sandbox['compile']>>;
      try {
        fn = await options.sandbox.compile(form.source, options.sandboxLimits);
      } catch (err) {
        return async () => failure(err);
      }
      return async (o, i) => {
        try {
          return verdict(requireBoolean(await fn(o, i)));
        } catch (err) {
          return failure(err);
        }
      };
    }
    case 'llm': {
      const js = options.judge;
      if (!js) return async () => failure('no judge configured for llm assertions');
      let judge = judges.get(form.question);
      if (!judge) {
        const instructions = [llmInstruction(form.question)];
        judge =
          typeof js === 'function'
            ? js({ instructions })
            : createOpenAIJudge({
                model: js.model,
                baseURL: js.baseURL,
                apiKey: js.apiKey,
                timeoutMs: js.timeoutMs,
                instructions,
                retry: { retries: 2, baseMs: 200, maxMs: 2000 },
              });
        judges.set(form.question, judge);
      }
      const j = judge;
      return async (o, i) => {
        const v = await j.verify(i, o);
        return v.outcome === 'error' ? { code: Outcome.ERROR, error: v.error ?? 'judge error' } : verdict(v.outcome === 'pass');
      };
    }
  }
}

export async function evaluateCandidates(
  candidates: CandidateAssertion[],
  examples: LabelledExample[],
  options: EvaluateOptions = {},
): Promise<EvaluationMatrix> {
  const A = candidates.length;
  const cells = new Uint8Array(examples.length * A);
  const errors: Record<string, string> = {};
  const judges = new Map<string, Judge>();
  const tasks: (() => Promise<void>)[] = [];
  for (let a = 0; a < A; a++) {
    const run = await cellFor(candidates[a], options, judges);
    for (let e = 0; e < examples.length; e++) {
      tasks.push(async () => {
        const ex = examples[e];
        const r = await run(ex.output, ex.input ?? '');
        cells[e * A + a] = r.code;
        if (r.error !== undefined) errors[`${e}:${a}`] = r.error;
      });
    }
  }
  // The sandbox runs one evaluation at a time anyway; the concurrency is for judge calls.
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]();
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, worker));
  return {
    assertions: candidates.map((c) => c.id),
    examples: examples.map((x) => ({ id: x.id, label: x.label })),
    cells,
    errors,
  };
}

import type { Trajectory } from '../core/trajectory.js';
import type { InputValue } from '../core/validator.js';
import type { TokenUsage } from '../providers/types.js';

/** A verifier's verdict on one (input, output) pair (white paper §4): PASS/FAIL with reasons, or an error. */
export interface JudgeVerdict {
  /** `error`: the judge could not be reached or its answer could not be read. Never a FAIL. */
  outcome: 'pass' | 'fail' | 'error';
  reasons: string[];
  error?: string;
  usage?: TokenUsage;
  /** USD of the judge's calls at the configured prices, when its model has a price (0 when cached). */
  costUsd?: number;
  /** The verdict came from the response cache. */
  cached?: boolean;
  latencyMs: number;
  /** The judge's raw answer (content or tool arguments), for logs. */
  raw?: string;
}

/** An LLM judge behind the smallest interface the guard and the runner need. */
export interface Judge {
  /** e.g. "openai:gpt-4o-mini@http://127.0.0.1:8080/v1" */
  readonly id: string;
  /**
   * Never throws for infrastructure problems: those come back as an `error` verdict. An agent's output comes with
   * its steps (`trajectory`), which the judge sees rendered, its tool results quoted as untrusted data.
   */
  verify(input: InputValue, output: string, signal?: AbortSignal, trajectory?: Trajectory): Promise<JudgeVerdict>;
}

/** How the judge is asked for structure: a JSON schema response_format (default), a forced tool call, or plain JSON in text. */
export type StructuredMode = 'json_schema' | 'tool' | 'json_object' | 'text';

/** Standalone use: judge one (input, output) pair. */
export function verify(judge: Judge, input: InputValue, output: string, signal?: AbortSignal, trajectory?: Trajectory): Promise<JudgeVerdict> {
  return judge.verify(input, output, signal, trajectory);
}

/**
 * The same judge, adding the tokens of every verdict it returns into `usage` (a guard attempt's account).
 * A verdict that arrives after its signal was aborted is discarded by the caller, so it is not counted.
 */
export function meterJudge(judge: Judge, usage: TokenUsage): Judge {
  return {
    id: judge.id,
    async verify(input, output, signal, trajectory) {
      const v = await judge.verify(input, output, signal, trajectory);
      if (!signal?.aborted) {
        usage.promptTokens += v.usage?.promptTokens ?? 0;
        usage.completionTokens += v.usage?.completionTokens ?? 0;
      }
      return v;
    },
  };
}

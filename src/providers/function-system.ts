import { agentAnswer } from '../core/trajectory-from.js';
import type { InputValue } from '../core/validator.js';
import { runInCallContext } from './ai-sdk-cache.js';
import type { CacheSettings } from './cache.js';
import { readError } from './classify.js';
import { ProviderError, type SystemUnderTest } from './types.js';

/** What a system function is given besides the input: the call's abort signal, sample index j and input index i. */
export interface SystemCallContext {
  /** Aborted on the per-call time limit (timeoutMs) or when the run stops; pass it on to your client. */
  signal: AbortSignal;
  /** Sample index j (0 … samples − 1). */
  sample: number;
  /** Input index i. */
  inputIndex: number;
}

/**
 * Any async function from an input to the system's answer: text, the AI SDK's `generateText` result as it is (an
 * agent: its steps, tool calls and results become the sample's trajectory), or a plain `{ output, steps }`.
 */
export type SystemFunction = (input: InputValue, ctx: SystemCallContext) => unknown;

/**
 * A function system (assay/vitest's, or a TypeScript config's `system:`) behind the runner's SystemUnderTest. Its
 * value is read by the one converter (core/trajectory-from.ts); a value it cannot read is an `invalid_response`
 * error outcome, never a FAIL. What it throws is read as every provider's errors are (classify.ts).
 */
const WHO = 'system function';
const EXPECTED = "expected a string (or an agent's result: the AI SDK's generateText result, or { output, steps })";

export interface FunctionSystemOptions {
  /** The run's response cache: the models the function calls through `withAssayCache`/`assayCache()` read it (ai-sdk-cache.ts). */
  cache?: CacheSettings;
}

export function functionSystem(fn: SystemFunction, options: FunctionSystemOptions = {}): SystemUnderTest {
  return {
    id: `function:${fn.name || 'anonymous'}`,
    async generate(input, { signal, sample, inputIndex }) {
      const t0 = performance.now();
      let value: unknown;
      try {
        // Its own outputs are never cached (they are its code's); the model calls it makes may be, by their request.
        value = await runInCallContext({ sample, inputIndex, ...(options.cache ? { cache: options.cache } : {}) }, () =>
          fn(input, { signal, sample, inputIndex }),
        );
      } catch (err) {
        // Read as a provider's own error (classify.ts): a 429 is retried, a 401 counts toward fail fast; an error
        // nobody recognises (a bug in the function) keeps its own message and is not retried.
        throw readError(WHO, err, signal) ?? err;
      }
      if (value === null || (typeof value !== 'string' && typeof value !== 'object') || Array.isArray(value))
        throw new ProviderError(
          'invalid_response',
          `the system function returned ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}, ${EXPECTED}`,
        );
      const answer = agentAnswer(value);
      if ('problem' in answer)
        throw new ProviderError('invalid_response', `the system function returned an object assay cannot read as an agent's result: ${answer.problem}`);
      return {
        text: answer.text,
        ...(answer.trajectory ? { trajectory: answer.trajectory } : {}),
        ...(answer.usage ? { usage: answer.usage } : {}),
        ...(answer.costUsd !== undefined ? { costUsd: answer.costUsd } : {}),
        latencyMs: performance.now() - t0,
      };
    },
  };
}

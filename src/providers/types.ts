import type { Trajectory } from '../core/trajectory.js';
import type { InputValue } from '../core/validator.js';
import type { TokenUsage } from './chat-model.js';

export type { TokenUsage } from './chat-model.js';
export { ProviderError, type ProviderErrorKind } from './provider-error.js';

export interface Generation {
  /** The answer: for an agent, its final text (what text checks read); its steps are in `trajectory`. */
  text: string;
  usage?: TokenUsage;
  /** Wall time of the call that produced this text, in ms. */
  latencyMs: number;
  /** USD of the call at the configured prices, when priced (0 when served from the cache). */
  costUsd?: number;
  /** Served from the response cache: no call was made. */
  cached?: boolean;
  trajectory?: Trajectory;
}

export interface GenerateOptions {
  /** Aborted on per-call timeout or Ctrl-C; providers must stop promptly and reject. */
  signal: AbortSignal;
  /** Sample index j, for providers that need it (replay, simulated, the response cache). */
  sample: number;
  /** Input index i, for providers that need it (replay, simulated). */
  inputIndex: number;
}

/** A system under test (an LLM-based system) behind the smallest interface the runner needs. */
export interface SystemUnderTest {
  /** e.g. "openai:gpt-4o-mini", "simulated", "command:./app" */
  readonly id: string;
  generate(input: InputValue, options: GenerateOptions): Promise<Generation>;
  close?(): Promise<void>;
}

/** An input to the system under test: a plain prompt, or an object whose fields a provider or predicate may use. */
export type InputValue = string | Record<string, unknown>;

/**
 * A validator's rule (white paper §2): the one-argument form `(output) => boolean` or the
 * two-argument form `(output, input) => boolean`. May be async. Throwing is an `error` outcome.
 */
export type Predicate = (output: string, input: InputValue) => boolean | Promise<boolean>;

export interface Validator {
  name: string;
  /** Shown when the rule fails. */
  message: string;
  predicate: Predicate;
  /** Minimum success rate required for the validator's verdict to be `pass` (0..1). */
  minSuccess: number;
  /** Weight in the weighted aggregation (§3.3.2); default 1. */
  weight?: number;
  /** Per-evaluation time limit for the predicate in ms. */
  timeoutMs?: number;
}

/** What a report needs to know about a validator, without its (non-serialisable) predicate. */
export interface ValidatorMeta {
  name: string;
  message: string;
  minSuccess: number;
  weight: number;
  /** 'validator' (a rule) or 'verifier' (an LLM judge, one more column k of the tensor). */
  kind: 'validator' | 'verifier';
  /** Human-readable description of the rule: the predicate source, or the built-in check. */
  source?: string;
}

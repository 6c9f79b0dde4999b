import type { InputValue } from '../core/validator.js';
import { abortableSleep, abortError, messageOf } from './errors.js';
import { inputKey, renderTemplate } from './template.js';
import { ProviderError, type GenerateOptions, type Generation, type SystemUnderTest } from './types.js';

/**
 * A SIMULATOR, not a model: a seeded stochastic system that answers with weighted canned outputs after a
 * simulated latency, optionally failing a fraction of calls with retryable errors. It exists for demos,
 * tests and benchmarks, where the true success rate must be known in advance.
 */

export interface SimulatedOutput {
  /** The canned answer; `{{field}}` placeholders are filled from the input (`{{input}}` is the whole input). */
  text: string;
  /** Relative weight; default 1. */
  weight?: number;
}

export type TransientKind = 'server' | 'rate_limit' | 'timeout' | 'connection';

export interface SimulatedSystemOptions {
  seed?: number;
  /** Fixed latency, or mean ± uniform jitter, in ms. */
  latencyMs?: number | { mean: number; jitter?: number };
  outputs: SimulatedOutput[];
  /** Outputs for particular inputs, keyed by the input text (object inputs: their JSON with sorted keys). */
  byInput?: Record<string, SimulatedOutput[]>;
  /** Fraction of calls (0..1) that throw a retryable ProviderError, to exercise retries. */
  errorRate?: number;
  /** Kind of the injected errors; default 'server'. */
  errorKind?: TransientKind;
  /** Token usage to report: fixed counts, or `true` to estimate 4 characters per token. */
  tokens?: boolean | { prompt: number; completion: number };
}

/** Streams of random numbers drawn for one call, kept apart so adding one draw never shifts another. */
const STREAM = { output: 1, error: 2, latency: 3 } as const;

/** A 32-bit avalanche hash of integers (murmur3's finaliser, chained). */
export function hashInts(...xs: number[]): number {
  let h = 0x9e3779b9 ^ xs.length;
  for (const x of xs) {
    // Seeds may exceed 32 bits: fold the high part in.
    for (const part of [x >>> 0, Math.floor(x / 0x100000000) >>> 0]) {
      h = Math.imul(h ^ part, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      h ^= h >>> 16;
    }
  }
  return h >>> 0;
}

/** A uniform draw in [0, 1) that depends only on its arguments. */
export function uniform(...xs: number[]): number {
  return hashInts(...xs) / 0x100000000;
}

/** Index of a weighted choice for a uniform draw u ∈ [0, 1). */
export function pickWeighted(weights: readonly number[], u: number): number {
  const total = weights.reduce((a, b) => a + b, 0);
  let x = u * total;
  for (let k = 0; k < weights.length; k++) {
    x -= weights[k];
    if (x < 0) return k;
  }
  return weights.length - 1;
}

export class SimulatedSystem implements SystemUnderTest {
  readonly id = 'simulated';
  private readonly seed: number;
  /** Calls made so far per cell (i, j): the attempt number of the next call. */
  private readonly attempts = new Map<string, number>();
  private readonly overrides: Map<string, SimulatedOutput[]>;

  constructor(private readonly options: SimulatedSystemOptions) {
    if (options.outputs.length === 0) throw new Error('simulated: at least one output is required');
    this.seed = Math.trunc(options.seed ?? 0);
    this.overrides = new Map(Object.entries(options.byInput ?? {}));
  }

  /**
   * Deterministic per (seed, inputIndex, sample, attempt): the same cell gives the same answer in a fresh
   * or resumed run. The attempt counts earlier calls for the cell on this instance, so retries (and
   * run-time guards that ask again) draw anew.
   */
  async generate(input: InputValue, { signal, inputIndex, sample }: GenerateOptions): Promise<Generation> {
    if (signal.aborted) throw abortError(signal, this.id);
    const cell = `${inputIndex}:${sample}`;
    const attempt = this.attempts.get(cell) ?? 0;
    this.attempts.set(cell, attempt + 1);
    const draw = (stream: number) => uniform(this.seed, inputIndex, sample, attempt, stream);

    const started = performance.now();
    await abortableSleep(this.latency(draw(STREAM.latency)), signal, this.id);

    const errorRate = this.options.errorRate ?? 0;
    if (errorRate > 0 && draw(STREAM.error) < errorRate) {
      const kind = this.options.errorKind ?? 'server';
      const status = kind === 'server' ? 503 : kind === 'rate_limit' ? 429 : undefined;
      // One message for every injected error of a kind, so they group in reports (the cell says which sample it was).
      throw new ProviderError(kind, `simulated: injected ${kind} error`, { status });
    }

    const outputs = this.overrides.get(inputKey(input)) ?? this.options.outputs;
    const chosen =
      outputs[
        pickWeighted(
          outputs.map((o) => o.weight ?? 1),
          draw(STREAM.output),
        )
      ];
    let text: string;
    try {
      text = chosen.text.includes('{{') ? renderTemplate(chosen.text, input) : chosen.text;
    } catch (err) {
      throw new ProviderError('client', `simulated: ${messageOf(err)}`, { cause: err });
    }
    return { text, latencyMs: performance.now() - started, usage: this.usage(input, text) };
  }

  private latency(u: number): number {
    const l = this.options.latencyMs ?? 0;
    if (typeof l === 'number') return l;
    return Math.max(0, l.mean + (2 * u - 1) * (l.jitter ?? 0));
  }

  private usage(input: InputValue, text: string): Generation['usage'] {
    const t = this.options.tokens;
    if (!t) return undefined;
    if (t === true) {
      const prompt = typeof input === 'string' ? input : JSON.stringify(input);
      return { promptTokens: Math.ceil(prompt.length / 4), completionTokens: Math.ceil(text.length / 4) };
    }
    return { promptTokens: t.prompt, completionTokens: t.completion };
  }
}

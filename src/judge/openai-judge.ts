import { OpenAIChatModel } from '../providers/openai.js';
import { limitModel, type CallLimiter } from '../providers/rate-limit.js';
import type { RetryOptions } from '../providers/retry.js';
import { createJudge } from './judge.js';
import type { Judge, StructuredMode } from './types.js';

/** A judge on an OpenAI-compatible endpoint: createJudge over an OpenAIChatModel (kept for existing callers). */
export interface OpenAIJudgeOptions {
  baseURL?: string;
  model: string;
  apiKey?: string;
  temperature?: number;
  instructions: string | readonly string[];
  /** How to ask for structure; default 'json_schema'. */
  mode?: StructuredMode;
  /** Budget of one judgement in ms, retries included; default 60 000. */
  timeoutMs?: number;
  attemptTimeoutMs?: number;
  retry?: Omit<RetryOptions, 'signal' | 'attemptTimeoutMs'>;
  /** Spaces the calls (a rateLimit); every attempt, a retry too, waits its turn. */
  limiter?: CallLimiter;
}

export function createOpenAIJudge(opts: OpenAIJudgeOptions): Judge {
  const { baseURL, model, apiKey, limiter, ...rest } = opts;
  const base = new OpenAIChatModel({ model, ...(baseURL ? { baseURL } : {}), ...(apiKey ? { apiKey } : {}) });
  return createJudge({ ...rest, model: limiter ? limitModel(base, limiter) : base });
}

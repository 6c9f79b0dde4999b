import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { InputValue } from '../core/validator.js';
import { mapOpenAIError } from '../providers/openai.js';
import type { CallLimiter } from '../run/rate-limit.js';
import { callWithRetry, type RetryOptions } from '../run/retry.js';
import { parseVerdict } from './parse.js';
import { buildJudgeMessages, VERDICT_SCHEMA } from './prompt.js';
import type { Judge, JudgeVerdict, StructuredMode } from './types.js';

export interface OpenAIJudgeOptions {
  baseURL?: string;
  model: string;
  apiKey?: string;
  temperature?: number;
  /** The verifier's instruction set: what an output must satisfy. */
  instructions: string | readonly string[];
  /** How to ask for structure; default 'json_schema'. */
  mode?: StructuredMode;
  /** Per-call time limit in ms; default 60 000. */
  timeoutMs?: number;
  /** Backoff for transient errors (429, 5xx, timeouts, resets); the client's own retries are off. */
  retry?: RetryOptions;
  /** Spaces the calls (a rateLimit); every attempt, a retry too, waits its turn. */
  limiter?: CallLimiter;
}

const TOOL_NAME = 'submit_verdict';

function requestBody(opts: OpenAIJudgeOptions, system: string, user: string): ChatCompletionCreateParamsNonStreaming {
  const body: ChatCompletionCreateParamsNonStreaming = {
    model: opts.model,
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: user },
    ],
  };
  if (opts.temperature !== undefined) body.temperature = opts.temperature;
  const mode = opts.mode ?? 'json_schema';
  if (mode === 'json_schema') {
    body.response_format = { type: 'json_schema', json_schema: { name: 'verdict', strict: true, schema: { ...VERDICT_SCHEMA } } };
  } else if (mode === 'json_object') {
    body.response_format = { type: 'json_object' };
  } else if (mode === 'tool') {
    body.tools = [
      {
        type: 'function',
        function: { name: TOOL_NAME, description: 'Submit the verdict on the output, with reasons.', parameters: { ...VERDICT_SCHEMA }, strict: true },
      },
    ];
    body.tool_choice = { type: 'function', function: { name: TOOL_NAME } };
  }
  return body;
}

/** An LLM judge through any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server). */
export function createOpenAIJudge(opts: OpenAIJudgeOptions): Judge {
  const instructions = typeof opts.instructions === 'string' ? [opts.instructions] : [...opts.instructions];
  const timeoutMs = opts.timeoutMs ?? 60_000;
  // The client's built-in retries are off: callWithRetry is the one place that decides what to retry.
  const client = new OpenAI({ baseURL: opts.baseURL, apiKey: opts.apiKey ?? 'not-needed', maxRetries: 0, timeout: timeoutMs });
  const id = `openai:${opts.model}${opts.baseURL ? `@${opts.baseURL}` : ''}`;

  return {
    id,
    async verify(input: InputValue, output: string, signal?: AbortSignal): Promise<JudgeVerdict> {
      const started = performance.now();
      const { system, user } = buildJudgeMessages(instructions, input, output);
      const body = requestBody(opts, system, user);
      const usage = { promptTokens: 0, completionTokens: 0 };
      const callSignal = signal ?? new AbortController().signal;
      try {
        const res = await callWithRetry(
          async () => {
            try {
              await opts.limiter?.acquire(signal);
              const answer = await client.chat.completions.create(body, { signal, timeout: timeoutMs });
              await opts.limiter?.spend((answer.usage?.prompt_tokens ?? 0) + (answer.usage?.completion_tokens ?? 0));
              return answer;
            } catch (err) {
              throw mapOpenAIError('judge', err, callSignal);
            }
          },
          { retries: 2, baseMs: 250, ...opts.retry, signal },
        );
        usage.promptTokens += res.usage?.prompt_tokens ?? 0;
        usage.completionTokens += res.usage?.completion_tokens ?? 0;
        const message = res.choices?.[0]?.message;
        const call = message?.tool_calls?.find((c) => c.type === 'function');
        const raw = call && call.type === 'function' ? call.function.arguments : (message?.content ?? '');
        const parsed = parseVerdict(raw);
        const latencyMs = performance.now() - started;
        if ('error' in parsed) return { outcome: 'error', reasons: [], error: parsed.error, usage, latencyMs, raw };
        return { outcome: parsed.verdict, reasons: parsed.reasons, usage, latencyMs, raw };
      } catch (err) {
        const e = mapOpenAIError('judge', err, callSignal);
        return { outcome: 'error', reasons: [], error: `${e.kind}: ${e.message}`, usage, latencyMs: performance.now() - started };
      }
    },
  };
}

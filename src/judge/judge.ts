import type { Trajectory } from '../core/trajectory.js';
import type { InputValue } from '../core/validator.js';
import { canonicalJson } from '../providers/cache.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../providers/chat-model.js';
import { ProviderError } from '../providers/types.js';
import { callWithRetry, type RetryOptions } from '../providers/retry.js';
import { answerFormatOf, parseVerdictLine } from './binding.js';
import { parseStructuredVerdict } from './parse.js';
import { buildJudgeMessages, VERDICT_SCHEMA } from './prompt.js';
import type { Judge, JudgeVerdict, StructuredMode } from './types.js';

/**
 * An LLM judge on any ChatModel (openai, anthropic, google, bedrock, azure, mistral, ollama, or your own).
 *
 * Resisting planted verdicts: the content is delimited as data with a fresh nonce (prompt.ts) and the
 * instructions come again after it; the verdict counts only when it carries that nonce (binding.ts), in
 * every mode: the JSON object's `nonce` field (json_schema, tool, json_object: the one object is the
 * verdict, nothing quoted around it counts), or the last line `VERDICT <nonce>: PASS|FAIL` (text). A
 * verdict quoted from the output, or an echo of the request, is an `error`, never a PASS or a FAIL.
 *
 * Time: `timeoutMs` is the budget of one judgement, retries included; each attempt has its own limit
 * (`attemptTimeoutMs`, default half the budget), so a timed-out attempt is retried while the budget lasts.
 */
export interface JudgeOptions {
  model: ChatModel;
  /** The verifier's instruction set: what an output must satisfy. */
  instructions: string | readonly string[];
  temperature?: number;
  maxTokens?: number;
  /** How to ask for structure; default `json_schema` where the model supports it, else `text`. */
  mode?: StructuredMode;
  /** Budget of one judgement in ms, retries included; default 60 000. */
  timeoutMs?: number;
  /** Limit of one attempt in ms; default half the budget (the whole budget when retries are off). */
  attemptTimeoutMs?: number;
  /** Backoff for retryable errors (429, 5xx, timeouts, resets); default 2 retries from 250 ms. */
  retry?: Omit<RetryOptions, 'signal' | 'attemptTimeoutMs'>;
}

const TOOL_NAME = 'submit_verdict';

export function defaultMode(model: ChatModel): StructuredMode {
  return model.capabilities.jsonSchema ? 'json_schema' : 'text';
}

function request(mode: StructuredMode, system: string, user: string, o: JudgeOptions): ChatRequest {
  const r: ChatRequest = {
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: user },
    ],
    ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    ...(o.maxTokens !== undefined ? { maxTokens: o.maxTokens } : {}),
  };
  if (mode === 'json_schema')
    r.responseFormat = { type: 'json', name: 'verdict', description: 'The verdict on the output, with reasons.', schema: { ...VERDICT_SCHEMA } };
  else if (mode === 'json_object') r.responseFormat = { type: 'json', name: 'verdict' };
  else if (mode === 'tool') {
    r.tools = [{ name: TOOL_NAME, description: 'Submit the verdict on the output, with reasons.', parameters: { ...VERDICT_SCHEMA } }];
    r.toolChoice = { tool: TOOL_NAME };
  }
  return r;
}

/** The judge's own answer: the forced tool's arguments in tool mode, else the text. */
function answerOf(mode: StructuredMode, r: ChatResponse): string {
  if (mode === 'tool') return r.toolCalls?.find((c) => c.name === TOOL_NAME)?.arguments ?? r.text;
  return r.text;
}

export function createJudge(o: JudgeOptions): Judge {
  const instructions = typeof o.instructions === 'string' ? [o.instructions] : [...o.instructions];
  const mode = o.mode ?? defaultMode(o.model);
  if (mode === 'tool' && !o.model.capabilities.tools)
    throw new Error(`judge ${o.model.id}: mode "tool" needs a model that can be forced to call a tool; use json_schema or text`);
  const budgetMs = o.timeoutMs ?? 60_000;
  const retries = o.retry?.retries ?? 2;
  const attemptTimeoutMs = o.attemptTimeoutMs ?? (retries > 0 ? Math.ceil(budgetMs / 2) : budgetMs);
  const format = answerFormatOf(mode);
  const id = `${o.model.id}${o.model.baseURL ? `@${o.model.baseURL}` : ''}`;

  return {
    id,
    async verify(input: InputValue, output: string, signal?: AbortSignal, trajectory?: Trajectory): Promise<JudgeVerdict> {
      const started = performance.now();
      const { system, user, nonce } = buildJudgeMessages(instructions, input, output, undefined, format, trajectory);
      const req = request(mode, system, user, o);
      // The prompt carries a fresh nonce; the cache keys on what is judged, not on how it was wrapped, and keeps
      // the nonce an answer was given under (a cached answer is bound to its own call's). v2: nonce-bound answers.
      // An agent's steps are part of what is judged (a text answer keys as it always did).
      const cacheKey = canonicalJson({
        judge: 'verdict/2',
        mode,
        instructions,
        input,
        output,
        ...(trajectory ? { trajectory } : {}),
        temperature: o.temperature ?? null,
      });
      let boundTo = nonce;
      const usage = { promptTokens: 0, completionTokens: 0 };
      let costUsd: number | undefined;
      let cached = false;
      const budget = AbortSignal.timeout(budgetMs);
      const overall = signal ? AbortSignal.any([signal, budget]) : budget;
      const done = (v: Omit<JudgeVerdict, 'usage' | 'latencyMs'>): JudgeVerdict => ({
        ...v,
        ...(usage.promptTokens + usage.completionTokens > 0 ? { usage } : {}),
        ...(costUsd !== undefined ? { costUsd } : {}),
        ...(cached ? { cached } : {}),
        latencyMs: performance.now() - started,
      });
      try {
        const r = await callWithRetry(
          async (_attempt, attemptSignal) => {
            const res = await o.model.generate(req, { signal: attemptSignal, cacheKey, nonce });
            usage.promptTokens += res.usage?.promptTokens ?? 0;
            usage.completionTokens += res.usage?.completionTokens ?? 0;
            if (res.costUsd !== undefined) costUsd = (costUsd ?? 0) + res.costUsd;
            cached ||= res.cached === true;
            // An answer from the cache was given to an earlier call: it must carry that call's nonce (none kept: unbound).
            boundTo = res.cached ? (res.nonce ?? '') : nonce;
            return res;
          },
          // Timeouts are retried too: the judge's budget (`overall`) bounds the attempts, not their number.
          { retries, timeoutRetries: retries, baseMs: 250, ...o.retry, signal: overall, attemptTimeoutMs },
        );
        const raw = answerOf(mode, r);
        const parsed = format === 'json' ? parseStructuredVerdict(raw, boundTo) : parseVerdictLine(raw, boundTo);
        if ('error' in parsed) return done({ outcome: 'error', reasons: [], error: parsed.error, raw });
        return done({ outcome: parsed.verdict, reasons: parsed.reasons, raw });
      } catch (err) {
        const e = ProviderError.isInstance(err) ? err : new ProviderError('invalid_response', String(err), { cause: err });
        const kind = budget.aborted && !signal?.aborted ? 'timeout' : e.kind;
        const why = budget.aborted && !signal?.aborted ? `no verdict within the judge's budget of ${budgetMs} ms (${e.message})` : e.message;
        return done({ outcome: 'error', reasons: [], error: `${kind}: ${why}` });
      }
    },
  };
}

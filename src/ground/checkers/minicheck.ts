import type { ChatModel } from '../../providers/chat-model.js';
import { OllamaChatModel, type OllamaSettings } from '../../providers/ollama.js';
import type { ClaimCheck, ClaimCheckBatch, ClaimCheckItem, ClaimChecker } from './types.js';
import { thrownMessage } from '../../errors.js';

/**
 * The MiniCheck claim checker: a grounded fact-checking model asked, claim by claim, in MiniCheck's own prompt
 * ("Document: …\nClaim: …"), answering "Yes" (the document supports the claim) or "No". Bespoke-MiniCheck-7B runs
 * in Ollama as `bespoke-minicheck`; any chat model that answers this prompt with Yes or No fits. "No" means not
 * supported, not "contradicted": MiniCheck does not tell the two apart, so a claim it rejects is UNSUPPORTED, never
 * shown red on its word. An answer that is neither Yes nor No, or a call that fails, is that claim's error (left
 * out of every figure), never a verdict. The model reads the claim's evidence chunk, as an LLM judge does.
 */

/** MiniCheck's prompt, as its model card gives it. */
export function miniCheckPrompt(document: string, claim: string): string {
  return `Document: ${document}\nClaim: ${claim}`;
}

/** "Yes" → entailed, "No" → neutral (not supported); anything else → null. Case, punctuation and a trailing explanation are ignored. */
export function readMiniCheckAnswer(text: string): 'entailed' | 'neutral' | null {
  const m = /^[\s"'*_.:>-]*(yes|no)\b/i.exec(text);
  return m ? (m[1].toLowerCase() === 'yes' ? 'entailed' : 'neutral') : null;
}

export interface MiniCheckOptions {
  /** The model that answers the MiniCheck prompt (an Ollama `bespoke-minicheck`, or another chat model). */
  model: ChatModel;
  /** Claims checked at once (default 2: a local model serves one or two requests at a time). */
  concurrency?: number;
  /** Per-claim timeout in ms (default 60,000): a claim that takes longer is an error claim. */
  timeoutMs?: number;
}

export function createMiniCheckChecker(options: MiniCheckOptions): ClaimChecker {
  const { model } = options;
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const one = async (item: ClaimCheckItem, signal?: AbortSignal): Promise<{ check: ClaimCheck; prompt: number; completion: number }> => {
    const call = signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    try {
      const r = await model.generate(
        { messages: [{ role: 'user', content: miniCheckPrompt(item.evidence, item.claim) }], temperature: 0, maxTokens: 8 },
        { signal: call },
      );
      const verdict = readMiniCheckAnswer(r.text);
      const tokens = { prompt: r.usage?.promptTokens ?? 0, completion: r.usage?.completionTokens ?? 0 };
      if (verdict === null) return { check: { error: `expected "Yes" or "No", the model answered ${JSON.stringify(r.text.slice(0, 80))}` }, ...tokens };
      return { check: { verdict, score: verdict === 'entailed' ? 1 : 0 }, ...tokens };
    } catch (err) {
      signal?.throwIfAborted();
      return { check: { error: thrownMessage(err) }, prompt: 0, completion: 0 };
    }
  };
  return {
    id: `minicheck:${model.id}`,
    // network calls, as an LLM judge's: made on the calling thread, the evidence chunk as the document
    kind: 'llm',
    async check(items: readonly ClaimCheckItem[], signal?: AbortSignal): Promise<ClaimCheckBatch> {
      const out: Awaited<ReturnType<typeof one>>[] = new Array(items.length);
      let next = 0;
      const lane = async () => {
        while (next < items.length) {
          signal?.throwIfAborted();
          const i = next++;
          out[i] = await one(items[i], signal);
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
      const usage = { promptTokens: 0, completionTokens: 0 };
      for (const o of out) {
        usage.promptTokens += o.prompt;
        usage.completionTokens += o.completion;
      }
      return { checks: out.map((o) => o.check), ...(usage.promptTokens + usage.completionTokens > 0 ? { usage } : {}) };
    },
    close: async () => model.close?.(),
  };
}

/** Bespoke-MiniCheck through Ollama's API (default model `bespoke-minicheck`, server http://127.0.0.1:11434). */
export function createOllamaMiniCheckChecker(settings: Partial<OllamaSettings> & { concurrency?: number; timeoutMs?: number } = {}): ClaimChecker {
  const { concurrency, timeoutMs, ...rest } = settings;
  return createMiniCheckChecker({ model: new OllamaChatModel({ ...rest, model: rest.model ?? 'bespoke-minicheck' }), concurrency, timeoutMs });
}

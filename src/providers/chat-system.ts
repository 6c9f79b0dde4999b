import type { InputValue } from '../core/validator.js';
import type { ChatMessage, ChatModel } from './chat-model.js';
import { abortError, messageOf } from './errors.js';
import { renderTemplate } from './template.js';
import { ProviderError, type GenerateOptions, type Generation, type SystemUnderTest } from './types.js';

export interface ChatSystemOptions {
  temperature?: number;
  maxTokens?: number;
  /** System prompt, sent first. */
  system?: string;
  /** Prompt for object inputs, e.g. "Summarise: {{text}}"; string inputs are sent as they are. */
  template?: string;
}

/** The system under test as one chat model call per sample: system prompt, then the (templated) input. */
export class ChatSystem implements SystemUnderTest {
  readonly id: string;

  constructor(
    readonly model: ChatModel,
    private readonly options: ChatSystemOptions = {},
  ) {
    this.id = model.id;
  }

  /** The chat messages for one input: system prompt, then the prompt (object inputs through the template). */
  messages(input: InputValue): ChatMessage[] {
    const out: ChatMessage[] = [];
    if (this.options.system) out.push({ role: 'system', content: this.options.system });
    if (typeof input === 'string') out.push({ role: 'user', content: input });
    else if (this.options.template !== undefined) out.push({ role: 'user', content: renderTemplate(this.options.template, input) });
    else out.push({ role: 'user', content: JSON.stringify(input) });
    return out;
  }

  async generate(input: InputValue, { signal, sample }: GenerateOptions): Promise<Generation> {
    if (signal.aborted) throw abortError(signal, this.id);
    let messages: ChatMessage[];
    try {
      messages = this.messages(input);
    } catch (err) {
      throw new ProviderError('client', `${this.id}: ${messageOf(err)}`, { cause: err });
    }
    const { temperature, maxTokens } = this.options;
    const r = await this.model.generate(
      { messages, ...(temperature !== undefined ? { temperature } : {}), ...(maxTokens !== undefined ? { maxTokens } : {}) },
      { signal, sample },
    );
    // A tool-calling system's answer is its calls; kept as text so validators can read them.
    const text = r.text === '' && r.toolCalls?.length ? JSON.stringify(r.toolCalls) : r.text;
    return {
      text,
      latencyMs: r.latencyMs,
      ...(r.usage ? { usage: r.usage } : {}),
      ...(r.costUsd !== undefined ? { costUsd: r.costUsd } : {}),
      ...(r.cached ? { cached: true } : {}),
    };
  }

  async close(): Promise<void> {
    await this.model.close?.();
  }
}

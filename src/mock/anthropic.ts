import { callsOf, contentText, mockId, resultText, startMockServer, toolInput, type Dialect } from './server.js';
import type { MockMessage, MockServer, MockServerOptions } from './types.js';

/**
 * Anthropic's Messages API (POST /v1/messages): `system` apart from `messages`, content blocks, the key in
 * `x-api-key`, a required `max_tokens`, tool_use blocks, and errors as { type: "error", error: { type, message } }.
 */

interface MessagesBody {
  model?: string;
  system?: string | { type: string; text?: string }[];
  messages?: { role: string; content: unknown }[];
  max_tokens?: number;
  temperature?: number;
  tools?: { name: string; input_schema?: unknown }[];
  tool_choice?: { type: string; name?: string };
  output_config?: { format?: { type?: string; schema?: unknown } };
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

interface Block {
  type?: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
}

/** Content blocks as messages: `tool_use` blocks are the assistant's calls, each `tool_result` block a tool message. */
function anthropicMessages(list: { role: string; content: unknown }[]): MockMessage[] {
  const names = new Map<string, string>();
  return list.flatMap((m) => {
    if (!Array.isArray(m.content)) return [{ role: m.role, content: contentText(m.content) }];
    const blocks = m.content as Block[];
    const out: MockMessage[] = [];
    for (const r of blocks.filter((b) => b.type === 'tool_result')) {
      const name = r.tool_use_id !== undefined ? names.get(r.tool_use_id) : undefined;
      out.push({ role: 'tool', content: resultText(r.content), ...(name !== undefined ? { toolName: name } : {}) });
    }
    const calls = blocks.filter((b) => b.type === 'tool_use');
    for (const c of calls) if (c.id) names.set(c.id, String(c.name ?? ''));
    const text = contentText(blocks.filter((b) => b.type === 'text'));
    if (text || calls.length || !out.length)
      out.push({
        role: m.role,
        content: text,
        ...(calls.length ? { toolCalls: calls.map((c) => ({ name: String(c.name ?? ''), arguments: c.input ?? {} })) } : {}),
      });
    return out;
  });
}

export const anthropicDialect: Dialect = {
  name: 'anthropic',
  basePath: '/v1',
  route: (method, path) => (method === 'POST' && path === '/v1/messages' ? 'chat' : undefined),
  chatView: (raw) => {
    const b = raw as MessagesBody;
    if (!b || !Array.isArray(b.messages)) throw new Error('messages: Field required');
    if (typeof b.max_tokens !== 'number') throw new Error('max_tokens: Field required');
    const tools = (b.tools ?? []).map((t) => t.name);
    const forcedTool = b.tool_choice?.type === 'tool' ? b.tool_choice.name : b.tool_choice?.type === 'any' && tools.length === 1 ? tools[0] : undefined;
    const format = b.output_config?.format;
    const forcedSchema = forcedTool !== undefined ? b.tools?.find((t) => t.name === forcedTool)?.input_schema : undefined;
    const system = typeof b.system === 'string' ? b.system : Array.isArray(b.system) ? b.system.map((p) => p.text ?? '').join('\n') : undefined;
    return {
      model: String(b.model ?? ''),
      ...(system ? { system } : {}),
      messages: anthropicMessages(b.messages),
      ...(typeof b.temperature === 'number' ? { temperature: b.temperature } : {}),
      maxTokens: b.max_tokens,
      json: format?.type === 'json_schema' || forcedTool !== undefined,
      ...(format?.schema !== undefined ? { schema: format.schema } : forcedSchema !== undefined ? { schema: forcedSchema } : {}),
      tools,
      ...(forcedTool !== undefined ? { forcedTool } : {}),
    };
  },
  chatBody: (a, view, n, usage) => {
    const given = callsOf(a).map((c) => ({ name: c.name, input: toolInput(c.arguments) }));
    const calls = given.length ? given : view.forcedTool !== undefined ? [{ name: view.forcedTool, input: toolInput(a.content) }] : [];
    const call = calls[0];
    return {
      id: mockId('msg_', n),
      type: 'message',
      role: 'assistant',
      model: view.model,
      content: call ? calls.map((c, k) => ({ type: 'tool_use', id: mockId(k ? `toolu_${k}_` : 'toolu_', n), ...c })) : [{ type: 'text', text: a.content }],
      stop_reason: a.finishReason ?? (call ? 'tool_use' : 'end_turn'),
      stop_sequence: null,
      usage: { input_tokens: usage.prompt, output_tokens: usage.completion },
    };
  },
  errorBody: (status, message) => ({
    body: { type: 'error', error: { type: ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), message } },
  }),
  authorized: (req, key) => req.headers['x-api-key'] === key,
};

export function startMockAnthropic(options: MockServerOptions = {}): Promise<MockServer> {
  return startMockServer(anthropicDialect, options);
}

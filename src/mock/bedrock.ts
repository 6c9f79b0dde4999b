import { callsOf, mockId, resultText, startMockServer, toolInput, type Dialect } from './server.js';
import type { MockMessage, MockServer, MockServerOptions } from './types.js';

/**
 * Amazon Bedrock's Converse API (POST /model/{modelId}/converse): `messages` of content blocks, `system`
 * blocks, `inferenceConfig`, `toolConfig`; requests signed with AWS Signature V4 (or a bearer API key);
 * errors as { message } with the exception's name in `x-amzn-errortype`.
 */

interface ConverseBody {
  messages?: { role: string; content?: Block[] }[];
  system?: { text?: string }[];
  inferenceConfig?: { maxTokens?: number; temperature?: number };
  toolConfig?: {
    tools?: { toolSpec?: { name: string; inputSchema?: { json?: unknown } } }[];
    toolChoice?: { tool?: { name: string }; any?: object; auto?: object };
  };
}

const ROUTE = /^\/model\/([^/]+)\/converse$/;
const EXCEPTION: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};
interface Block {
  text?: string;
  toolUse?: { toolUseId?: string; name?: string; input?: unknown };
  toolResult?: { toolUseId?: string; content?: { text?: string; json?: unknown }[]; status?: string };
}

/** Blocks as messages: `toolUse` blocks are the assistant's calls, each `toolResult` block a tool message. */
function bedrockMessages(m: { role: string; content?: Block[] }, _n: number, all: { role: string; content?: Block[] }[]): MockMessage[] {
  const blocks = m.content ?? [];
  const out: MockMessage[] = blocks.flatMap((b) => {
    if (!b.toolResult) return [];
    const id = b.toolResult.toolUseId;
    // The call it answers, for the tool's name: Converse's results carry only the call's id.
    const call = all.flatMap((x) => x.content ?? []).find((x) => x.toolUse && x.toolUse.toolUseId === id)?.toolUse;
    const content = (b.toolResult.content ?? []).map((c) => (c.text !== undefined ? c.text : resultText(c.json))).join('');
    return [{ role: 'tool', content, ...(call?.name ? { toolName: call.name } : {}) }];
  });
  const calls = blocks.flatMap((b) => (b.toolUse ? [{ name: String(b.toolUse.name ?? ''), arguments: b.toolUse.input ?? {} }] : []));
  const said = text(blocks);
  if (said || calls.length || !out.length) out.push({ role: m.role, content: said, ...(calls.length ? { toolCalls: calls } : {}) });
  return out;
}

const text = (blocks: { text?: string }[] | undefined) => (blocks ?? []).map((p) => p.text ?? '').join('');

export const bedrockDialect: Dialect = {
  name: 'bedrock',
  basePath: '',
  route: (method, path) => (method === 'POST' && ROUTE.test(path) ? 'chat' : undefined),
  chatView: (raw, path) => {
    const b = raw as ConverseBody;
    if (!b || !Array.isArray(b.messages)) throw new Error('messages: required');
    const specs = (b.toolConfig?.tools ?? []).flatMap((t) => (t.toolSpec ? [t.toolSpec] : []));
    const tools = specs.map((t) => t.name);
    const choice = b.toolConfig?.toolChoice;
    const forcedTool = choice?.tool?.name ?? (choice?.any && tools.length === 1 ? tools[0] : undefined);
    const system = b.system ? text(b.system) : undefined;
    const schema = forcedTool !== undefined ? specs.find((t) => t.name === forcedTool)?.inputSchema?.json : undefined;
    return {
      model: decodeURIComponent(ROUTE.exec(path)![1]),
      ...(system ? { system } : {}),
      messages: b.messages.flatMap(bedrockMessages),
      ...(typeof b.inferenceConfig?.temperature === 'number' ? { temperature: b.inferenceConfig.temperature } : {}),
      ...(typeof b.inferenceConfig?.maxTokens === 'number' ? { maxTokens: b.inferenceConfig.maxTokens } : {}),
      json: forcedTool !== undefined,
      ...(schema !== undefined ? { schema } : {}),
      tools,
      ...(forcedTool !== undefined ? { forcedTool } : {}),
    };
  },
  chatBody: (a, view, n, usage) => {
    const given = callsOf(a).map((c) => ({ name: c.name, input: toolInput(c.arguments) }));
    const calls = given.length ? given : view.forcedTool !== undefined ? [{ name: view.forcedTool, input: toolInput(a.content) }] : [];
    const call = calls[0];
    return {
      output: {
        message: {
          role: 'assistant',
          content: call ? calls.map((c, k) => ({ toolUse: { toolUseId: mockId(k ? `tooluse_${k}_` : 'tooluse_', n), ...c } })) : [{ text: a.content }],
        },
      },
      stopReason: a.finishReason ?? (call ? 'tool_use' : 'end_turn'),
      usage: { inputTokens: usage.prompt, outputTokens: usage.completion, totalTokens: usage.prompt + usage.completion },
      metrics: { latencyMs: 1 },
    };
  },
  errorBody: (status, message) => {
    const name = EXCEPTION[status] ?? (status >= 500 ? 'InternalServerException' : 'ValidationException');
    return { body: { message }, headers: { 'x-amzn-errortype': `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/` } };
  },
  // A signed request names the access key in its credential scope; a Bedrock API key is a bearer token.
  authorized: (req, key) => {
    const auth = req.headers.authorization ?? '';
    return auth === `Bearer ${key}` || (auth.startsWith('AWS4-HMAC-SHA256 ') && auth.includes(`Credential=${key}/`));
  },
};

export function startMockBedrock(options: MockServerOptions = {}): Promise<MockServer> {
  return startMockServer(bedrockDialect, options);
}

import { callsOf, resultText, roughTokens, startMockServer, toolInput, type Dialect } from './server.js';
import type { MockMessage, MockServer, MockServerOptions } from './types.js';

/**
 * Google's Gemini API (POST /v1beta/models/{model}:generateContent, :batchEmbedContents): `contents` of
 * `parts`, a `systemInstruction`, `generationConfig`, the key in `x-goog-api-key`, errors as
 * { error: { code, message, status } }.
 */

interface GenerateBody {
  contents?: { role?: string; parts?: Part[] }[];
  systemInstruction?: { parts?: { text?: string }[] };
  generationConfig?: { temperature?: number; maxOutputTokens?: number; responseMimeType?: string; responseSchema?: unknown; responseJsonSchema?: unknown };
  tools?: { functionDeclarations?: { name: string }[] }[];
  toolConfig?: { functionCallingConfig?: { mode?: string; allowedFunctionNames?: string[] } };
}

const ROUTE = /^\/v1beta\/models\/([^/:]+):(generateContent|batchEmbedContents|embedContent)$/;
const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};
interface Part {
  text?: string;
  functionCall?: { name?: string; args?: unknown };
  functionResponse?: { name?: string; response?: unknown };
}

/** Parts as messages: `functionCall` parts are the model's calls, each `functionResponse` part a tool message. */
function geminiMessages(c: { role?: string; parts?: Part[] }): MockMessage[] {
  const parts = c.parts ?? [];
  const out: MockMessage[] = parts.flatMap((p) => {
    if (!p.functionResponse) return [];
    const r = p.functionResponse.response as { content?: unknown } | undefined;
    // The AI SDK wraps a result as { name, content }; other clients send the result object itself.
    const content = r && typeof r === 'object' && 'content' in r ? r.content : r;
    return [{ role: 'tool', content: resultText(content), ...(p.functionResponse.name ? { toolName: p.functionResponse.name } : {}) }];
  });
  const calls = parts.flatMap((p) => (p.functionCall ? [{ name: String(p.functionCall.name ?? ''), arguments: p.functionCall.args ?? {} }] : []));
  const said = text(parts);
  if (said || calls.length || !out.length)
    out.push({ role: c.role === 'model' ? 'assistant' : (c.role ?? 'user'), content: said, ...(calls.length ? { toolCalls: calls } : {}) });
  return out;
}

const text = (parts: { text?: string }[] | undefined) => (parts ?? []).map((p) => p.text ?? '').join('');

export const geminiDialect: Dialect = {
  name: 'google',
  basePath: '/v1beta',
  route: (method, path) => {
    const m = method === 'POST' ? ROUTE.exec(path) : null;
    return m ? (m[2] === 'generateContent' ? 'chat' : 'embed') : undefined;
  },
  chatView: (raw, path) => {
    const b = raw as GenerateBody;
    if (!b || !Array.isArray(b.contents)) throw new Error('contents: required');
    const g = b.generationConfig ?? {};
    const tools = (b.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
    const fc = b.toolConfig?.functionCallingConfig;
    const forcedTool =
      fc?.mode === 'ANY' ? (fc.allowedFunctionNames?.length === 1 ? fc.allowedFunctionNames[0] : tools.length === 1 ? tools[0] : undefined) : undefined;
    const system = b.systemInstruction ? text(b.systemInstruction.parts) : undefined;
    return {
      model: decodeURIComponent(ROUTE.exec(path)![1]),
      ...(system ? { system } : {}),
      messages: b.contents.flatMap(geminiMessages),
      ...(typeof g.temperature === 'number' ? { temperature: g.temperature } : {}),
      ...(typeof g.maxOutputTokens === 'number' ? { maxTokens: g.maxOutputTokens } : {}),
      json: g.responseMimeType === 'application/json' || forcedTool !== undefined,
      ...((g.responseSchema ?? g.responseJsonSchema) !== undefined ? { schema: g.responseSchema ?? g.responseJsonSchema } : {}),
      tools,
      ...(forcedTool !== undefined ? { forcedTool } : {}),
    };
  },
  chatBody: (a, view, _n, usage) => {
    const given = callsOf(a).map((c) => ({ name: c.name, args: toolInput(c.arguments) }));
    const calls = given.length ? given : view.forcedTool !== undefined ? [{ name: view.forcedTool, args: toolInput(a.content) }] : [];
    const call = calls[0];
    return {
      candidates: [
        {
          content: { parts: call ? calls.map((c) => ({ functionCall: c })) : [{ text: a.content }], role: 'model' },
          finishReason: a.finishReason ?? 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: usage.prompt, candidatesTokenCount: usage.completion, totalTokenCount: usage.prompt + usage.completion },
      modelVersion: view.model,
    };
  },
  embedView: (raw, path) => {
    const b = raw as { requests?: { content?: { parts?: { text?: string }[] } }[]; content?: { parts?: { text?: string }[] } };
    const input = b?.requests ? b.requests.map((r) => text(r.content?.parts)) : [text(b?.content?.parts)];
    return { model: decodeURIComponent(ROUTE.exec(path)![1]), input };
  },
  embedBody: (vectors, view) =>
    view.path.endsWith(':embedContent')
      ? { embedding: { values: vectors[0] } }
      : { embeddings: vectors.map((values) => ({ values })), usageMetadata: { promptTokenCount: roughTokens(view.input.join(' ')) } },
  errorBody: (status, message) => ({
    body: { error: { code: status, message, status: STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION') } },
  }),
  authorized: (req, key) => req.headers['x-goog-api-key'] === key || new URL(req.url ?? '/', 'http://x').searchParams.get('key') === key,
};

export function startMockGemini(options: MockServerOptions = {}): Promise<MockServer> {
  return startMockServer(geminiDialect, options);
}

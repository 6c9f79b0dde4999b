import { openaiChatBody, openaiChatView, openaiEmbedBody, openaiEmbedView } from './openai.js';
import { bearer, startMockServer, type Dialect } from './server.js';
import type { MockServer, MockServerOptions } from './types.js';

/** Mistral's chat and embeddings API (POST /v1/chat/completions, /v1/embeddings): OpenAI-shaped bodies, its own errors. */
export const mistralDialect: Dialect = {
  name: 'mistral',
  basePath: '/v1',
  route: (method, path) => (method !== 'POST' ? undefined : path === '/v1/chat/completions' ? 'chat' : path === '/v1/embeddings' ? 'embed' : undefined),
  chatView: (body) => openaiChatView(body),
  chatBody: openaiChatBody,
  embedView: (body) => openaiEmbedView(body),
  embedBody: openaiEmbedBody,
  errorBody: (status, message) => ({
    body: {
      object: 'error',
      message,
      type: status === 429 ? 'rate_limited' : status >= 500 ? 'internal_server_error' : 'invalid_request_error',
      param: null,
      code: String(status),
    },
  }),
  authorized: (req, key) => bearer(req) === key,
};

export function startMockMistral(options: MockServerOptions = {}): Promise<MockServer> {
  return startMockServer(mistralDialect, options);
}

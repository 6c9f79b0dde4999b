import { openaiChatBody, openaiChatView, openaiEmbedBody, openaiEmbedView } from './openai.js';
import { startMockServer, type Dialect } from './server.js';
import type { MockServer, MockServerOptions } from './types.js';

/**
 * Azure OpenAI: OpenAI's bodies on deployment routes (POST /openai/deployments/{deployment}/chat/completions
 * ?api-version=…), the key in an `api-key` header. The deployment name is the model.
 */
const DEPLOYMENT = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|embeddings)$/;

export const azureDialect: Dialect = {
  name: 'azure',
  basePath: '/openai',
  route: (method, path) => {
    const m = method === 'POST' ? DEPLOYMENT.exec(path) : null;
    return m ? (m[2] === 'embeddings' ? 'embed' : 'chat') : undefined;
  },
  chatView: (body, path, req) => {
    if (!/[?&]api-version=/.test(req.url ?? '')) throw new Error('the api-version query parameter is required');
    return { ...openaiChatView(body), model: decodeURIComponent(DEPLOYMENT.exec(path)![1]) };
  },
  chatBody: openaiChatBody,
  embedView: (body, path) => ({ ...openaiEmbedView(body), model: decodeURIComponent(DEPLOYMENT.exec(path)![1]) }),
  embedBody: openaiEmbedBody,
  errorBody: (status, message) => ({ body: { error: { code: String(status), message } } }),
  authorized: (req, key) => req.headers['api-key'] === key,
};

export function startMockAzure(options: MockServerOptions = {}): Promise<MockServer> {
  return startMockServer(azureDialect, options);
}

import type { LanguageModelV3Middleware } from '@ai-sdk/provider';
import { cachedGenerate } from './ai-sdk-cache.js';

/**
 * assay's cache as an AI SDK language-model middleware: `wrapLanguageModel({ model, middleware: assayCache() })`
 * (ai-sdk-cache.ts: keyed by the request and the sample j, inside a run's function system only). In
 * `assay/providers`; `assay/vitest` has `withAssayCache`, which names no type of the SDK.
 */
export function assayCache(): LanguageModelV3Middleware {
  return {
    specificationVersion: 'v3',
    wrapGenerate: ({ doGenerate, params, model }) => cachedGenerate(model, params, doGenerate),
  };
}

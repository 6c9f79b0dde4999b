import type { ChatModel } from './chat-model.js';
import { AiSdkChatModel } from './ai-sdk.js';

/**
 * The providers reached through the Vercel AI SDK's provider packages: Anthropic (Messages API), Google
 * (Gemini generateContent), Amazon Bedrock (Converse), Azure OpenAI and Mistral. Each package is imported
 * on the model's first call. Keys and settings arrive resolved (chat-factory.ts reads the environment).
 */

export interface SdkModelSettings {
  model: string;
  baseURL?: string;
  apiKey?: string;
  headers?: Record<string, string>;
}

export function anthropicChatModel(s: SdkModelSettings): ChatModel {
  return new AiSdkChatModel({
    provider: 'anthropic',
    modelId: s.model,
    baseURL: s.baseURL,
    load: async (fetch) => {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic({ apiKey: s.apiKey ?? 'not-needed', baseURL: s.baseURL, headers: s.headers, fetch }).languageModel(s.model);
    },
  });
}

export function googleChatModel(s: SdkModelSettings): ChatModel {
  return new AiSdkChatModel({
    provider: 'google',
    modelId: s.model,
    baseURL: s.baseURL,
    load: async (fetch) => {
      const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
      return createGoogleGenerativeAI({ apiKey: s.apiKey ?? 'not-needed', baseURL: s.baseURL, headers: s.headers, fetch }).languageModel(s.model);
    },
  });
}

export function mistralChatModel(s: SdkModelSettings): ChatModel {
  return new AiSdkChatModel({
    provider: 'mistral',
    modelId: s.model,
    baseURL: s.baseURL,
    load: async (fetch) => {
      const { createMistral } = await import('@ai-sdk/mistral');
      return createMistral({ apiKey: s.apiKey ?? 'not-needed', baseURL: s.baseURL, headers: s.headers, fetch }).languageModel(s.model);
    },
  });
}

export interface AzureModelSettings extends SdkModelSettings {
  /** The resource's name (https://{resourceName}.openai.azure.com), unless baseURL is given. */
  resourceName?: string;
  /** Default 2024-10-21. */
  apiVersion?: string;
}

/** Azure OpenAI's deployment routes: `model` is the deployment's name. */
export function azureChatModel(s: AzureModelSettings): ChatModel {
  return new AiSdkChatModel({
    provider: 'azure',
    modelId: s.model,
    baseURL: s.baseURL ?? (s.resourceName ? `https://${s.resourceName}.openai.azure.com/openai` : undefined),
    load: async (fetch) => {
      const { createAzure } = await import('@ai-sdk/azure');
      return createAzure({
        apiKey: s.apiKey ?? 'not-needed',
        ...(s.baseURL ? { baseURL: s.baseURL } : { resourceName: s.resourceName }),
        apiVersion: s.apiVersion ?? AZURE_API_VERSION,
        useDeploymentBasedUrls: true,
        headers: s.headers,
        fetch,
      }).chat(s.model);
    },
  });
}

export const AZURE_API_VERSION = '2024-10-21';

export interface BedrockModelSettings {
  model: string;
  baseURL?: string;
  region: string;
  headers?: Record<string, string>;
  /** A Bedrock API key (bearer token); otherwise requests are signed with AWS Signature V4. */
  apiKey?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

export function bedrockChatModel(s: BedrockModelSettings): ChatModel {
  return new AiSdkChatModel({
    provider: 'bedrock',
    modelId: s.model,
    baseURL: s.baseURL,
    load: async (fetch) => {
      const { createAmazonBedrock } = await import('@ai-sdk/amazon-bedrock');
      return createAmazonBedrock({ region: s.region, baseURL: s.baseURL, headers: s.headers, fetch, ...(s.apiKey ? { apiKey: s.apiKey } : { ...s.credentials }) }).languageModel(s.model);
    },
  });
}

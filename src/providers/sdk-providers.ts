import type { ChatModel } from './chat-model.js';
import { AiSdkChatModel } from './ai-sdk.js';
import { loadPackage } from './package.js';

/**
 * The providers reached through the Vercel AI SDK's provider packages: Anthropic (Messages API), Google
 * (Gemini generateContent), Amazon Bedrock (Converse), Azure OpenAI and Mistral. Each package is an optional
 * peer, loaded when a model of its provider is built (package.ts). Keys and settings arrive resolved (chat-factory.ts reads the environment).
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
    load: (fetch) => {
      const { createAnthropic } = loadPackage<typeof import('@ai-sdk/anthropic')>('@ai-sdk/anthropic', 'the anthropic provider');
      return createAnthropic({ apiKey: s.apiKey ?? 'not-needed', baseURL: s.baseURL, headers: s.headers, fetch }).languageModel(s.model);
    },
  });
}

export function googleChatModel(s: SdkModelSettings): ChatModel {
  return new AiSdkChatModel({
    provider: 'google',
    modelId: s.model,
    baseURL: s.baseURL,
    load: (fetch) => {
      const { createGoogleGenerativeAI } = loadPackage<typeof import('@ai-sdk/google')>('@ai-sdk/google', 'the google provider');
      return createGoogleGenerativeAI({ apiKey: s.apiKey ?? 'not-needed', baseURL: s.baseURL, headers: s.headers, fetch }).languageModel(s.model);
    },
  });
}

export function mistralChatModel(s: SdkModelSettings): ChatModel {
  return new AiSdkChatModel({
    provider: 'mistral',
    modelId: s.model,
    baseURL: s.baseURL,
    load: (fetch) => {
      const { createMistral } = loadPackage<typeof import('@ai-sdk/mistral')>('@ai-sdk/mistral', 'the mistral provider');
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
    load: (fetch) => {
      const { createAzure } = loadPackage<typeof import('@ai-sdk/azure')>('@ai-sdk/azure', 'the azure provider');
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
    load: (fetch) => {
      const { createAmazonBedrock } = loadPackage<typeof import('@ai-sdk/amazon-bedrock')>('@ai-sdk/amazon-bedrock', 'the bedrock provider');
      return createAmazonBedrock({
        region: s.region,
        baseURL: s.baseURL,
        headers: s.headers,
        fetch,
        ...(s.apiKey ? { apiKey: s.apiKey } : { ...s.credentials }),
      }).languageModel(s.model);
    },
  });
}

import { fileURLToPath } from 'node:url';
import { loadMockRules, mockResponder, startMock } from 'assay/testing';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    llmBaseURL: string;
  }
}

/**
 * A stand-in for a paid model: `assay mock` answering by the rules in mock-rules.yaml (the same script the YAML
 * config runs against), in OpenAI's tool-calling format. Tests reach it at inject('llmBaseURL').
 */
export default async function setup(project: TestProject) {
  const rules = loadMockRules(fileURLToPath(new URL('./mock-rules.yaml', import.meta.url)));
  const mock = await startMock('openai', { chat: mockResponder({ rules }) });
  project.provide('llmBaseURL', mock.baseURL);
  return () => mock.close();
}

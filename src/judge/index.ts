export * from './types.js';
export { buildJudgeMessages, escapeDelimiters, newNonce, VERDICT_SCHEMA, type JudgeMessages } from './prompt.js';
export { parseVerdict, jsonObjectCandidates, verdictFromObject, type ParsedVerdict } from './parse.js';
export { createOpenAIJudge, type OpenAIJudgeOptions } from './openai-judge.js';
export {
  isVerifierConfig,
  parseVerifierConfig,
  verifierConfigSchema,
  verifierFromConfig,
  verifierFromJudge,
  type VerifierConfig,
  type VerifierContext,
  type VerifierValidator,
} from './config.js';

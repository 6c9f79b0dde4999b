export * from './types.js';
export { buildJudgeMessages, escapeDelimiters, newNonce, REMINDER_HEAD, VERDICT_SCHEMA, type JudgeMessages } from './prompt.js';
export { createJudge, defaultMode, type JudgeOptions } from './judge.js';
export { answerFormatOf, boundAnswer, judgeCallOf, NOT_BOUND, parseVerdictLine, verdictLine, type AnswerFormat, type BoundVerdict } from './binding.js';
export { parseVerdict, parseStructuredVerdict, jsonObjectCandidates, verdictFromObject, type ParsedVerdict } from './parse.js';
export { createOpenAIJudge, type OpenAIJudgeOptions } from './openai-judge.js';
export {
  isVerifierConfig,
  judgeMakerFromConfig,
  parseJudgeConfig,
  parseVerifierConfig,
  verifierConfigSchema,
  verifierFromConfig,
  verifierFromJudge,
  type JudgeConfig,
  type JudgeMaker,
  type JudgeSpec,
  type VerifierConfig,
  type VerifierContext,
  type VerifierValidator,
} from './config.js';

/**
 * `assay/judges`: LLM verifiers — a judge on any chat model, one over an OpenAI-compatible endpoint, and the
 * verifier columns an experiment gets from a config's `verifiers` entry or from a judge. Listed in docs/api.md.
 */
export { createJudge, type JudgeOptions } from '../judge/judge.js';
export { createOpenAIJudge, type OpenAIJudgeOptions } from '../judge/openai-judge.js';
export type { Judge, JudgeVerdict } from '../judge/types.js';
export { verifierFromConfig, verifierFromJudge } from '../judge/config.js';

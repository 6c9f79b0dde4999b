export * from './types.js';
export { CommandSystem, type CommandSystemOptions } from './command.js';
export { HttpSystem, type HttpSystemOptions } from './http.js';
export { OpenAISystem, mapOpenAIError, type OpenAISystemOptions } from './openai.js';
export { ReplaySystem, loadReplayFile, recordedInputs, parseReplayCsv, parseReplayJsonl, type ReplayRow, type ReplaySystemOptions } from './replay.js';
export { SimulatedSystem, type SimulatedOutput, type SimulatedSystemOptions, type TransientKind } from './simulated.js';
export { createSystem, parseSystemConfig, type SystemContext } from './factory.js';
export {
  commandOptionsSchema,
  httpOptionsSchema,
  openaiOptionsSchema,
  replayOptionsSchema,
  simulatedOptionsSchema,
  systemSchema,
  PROVIDER_NAMES,
  type ProviderName,
  type SystemConfig,
} from './schemas.js';
export { abortKind, parseRetryAfter, statusKind } from './errors.js';

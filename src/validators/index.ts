export {
  builtinValidator,
  buildCheck,
  checkSchema,
  CheckOptionError,
  CHECK_TYPES,
  countMatches,
  countSentences,
  countWords,
  type CheckSpec,
  type CheckType,
  type ValidatorHeader,
} from './builtin.js';
export { sandboxedValidator, requireBoolean } from './sandboxed.js';
export { evaluateValidator, DEFAULT_VALIDATOR_TIMEOUT_MS, DEFAULT_VERIFIER_TIMEOUT_MS, type EvaluateOptions } from './evaluate.js';

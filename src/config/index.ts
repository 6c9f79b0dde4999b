export { defineConfig, loadExperiment, type Experiment, type LoadOptions } from './load.js';
export {
  experimentConfigSchema,
  overridesSchema,
  validatorConfigSchema,
  type ExperimentConfig,
  type ExperimentOverrides,
  type ParsedExperimentConfig,
  type ValidatorConfig,
} from './schema.js';
export { loadInputsFile } from './inputs.js';
// The verifier entry of an experiment config is validated in full by judge/config.ts (exported from there).

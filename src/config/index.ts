export { defineConfig, loadExperiment, type Experiment, type LoadOptions } from './load.js';
export {
  experimentConfigSchema,
  overridesSchema,
  validatorConfigSchema,
  verifierConfigSchema,
  type ExperimentConfig,
  type ExperimentOverrides,
  type ParsedExperimentConfig,
  type ValidatorConfig,
  type VerifierConfig,
} from './schema.js';
export { loadInputsFile } from './inputs.js';

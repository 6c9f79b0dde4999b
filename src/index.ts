// Public library API of assay. Each area adds its exports here.
export * from './core/outcome.js';
export * from './core/tensor.js';
export * from './core/validator.js';
export * from './providers/types.js';
export * from './store/types.js';
export * from './errors.js';

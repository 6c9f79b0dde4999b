// Public library API of assay: one barrel per area.
export * from './core/index.js';
export * from './errors.js';
export * from './store/index.js';
export * from './providers/index.js';
export * from './sandbox/index.js';
export * from './validators/index.js';
export * from './config/index.js';
export * from './judge/index.js';
export * from './guard/index.js';
export * from './server/index.js';
export * from './ground/index.js';
export * from './run/index.js';
export * from './report/index.js';
// SPADE has its own vocabulary (candidates, deltas, selection); keep it in a namespace.
export * as spade from './spade/index.js';

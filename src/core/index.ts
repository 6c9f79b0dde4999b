// Public library API of the pure core: contracts, views, statistics, verdicts, aggregation, comparisons.
export * from './outcome.js';
export * from './tensor.js';
export * from './validator.js';
export * from './summary-types.js';
export * from './distributions.js';
export * from './intervals.js';
export * from './verdict.js';
export * from './views.js';
export * from './aggregate.js';
export * from './summarize.js';
export * from './significance.js';
export * from './retry.js';
export * from './retry-tensor.js';
export * from './independence.js';
export * from './compare.js';
export * from './prng.js';

import type { FeatureName } from './claim-features.js';

/** Placeholder until the selection is frozen. */
export const DETECTOR = { features: ['support'] as FeatureName[], aggregate: 'max' as 'max' | 'mean', coef: [0, -1], threshold: 0.5 };

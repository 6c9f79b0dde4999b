/**
 * The comparison the dashboard serves is computed in core/compare.ts (statistics) and shaped in
 * report/compare.ts (with the runs' identities); re-exported here for the server's public API.
 */
export { compareRuns, type RunComparison, type ComparisonRow, type InputComparisonRow } from '../report/compare.js';

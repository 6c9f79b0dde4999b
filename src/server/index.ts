export { createApp, type AppOptions } from './app.js';
export { startServer, type StartOptions, type ServerHandle } from './start.js';
export { defaultLimits, resolveLimits, RateLimiter, type ServerLimits } from './limits.js';
export { isLoopbackHost } from './auth.js';
export { validateAnalyzeRequest, type ApiError } from './analyze.js';
export { compareRuns, type RunComparison, type ComparisonRow } from '../report/compare.js';
export { buildTrend, type Trend, type TrendEntry } from './trend.js';
export { DashboardData, type RunListItem } from './data.js';
export type { LogSink } from './log.js';

export { buildJsonReport, renderJsonReport, writeJsonReport, REPORT_SCHEMA_VERSION, type JsonReport, type JsonRate } from './json.js';
export { renderJunitReport, writeJunitReport } from './junit.js';
export { renderMarkdownReport, writeMarkdownReport } from './markdown.js';
export { formatTerminalSummary, sparkline, verdictLine, type TerminalOptions } from './terminal.js';
export { reportMeta, exitCodeFor, verdictPasses, type ReportMeta } from './meta.js';
export { loadStoredRun, type StoredRunReport } from './load.js';
export { writeReports, type ReportTargets } from './write.js';
export { renderHtmlReport, writeHtmlReport } from './html.js';
export { compareRuns, formatComparison, type RunComparison, type ComparisonRow, type InputComparisonRow } from './compare.js';

// Prints vitest's totals as plain lines for CI logs, whether or not vitest passed (npm test runs it after vitest
// either way), and exits non-zero when anything failed. The counts are the ones vitest prints: tests, and test
// *files* (the JSON's numFailedTestSuites also counts every describe block around a failed test, so one failed
// test in a nested describe made it say "3 suites failed"). Then the suite's wall time, from vitest's start to
// its report.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';

const file = process.argv[2] ?? 'test-output/vitest.json';
if (!existsSync(file)) {
  console.log(`tests: no results (${file} was not written: vitest did not finish)`);
  process.exit(1);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
const results = r.testResults ?? [];
const failedFiles = results.filter((t) => t.status === 'failed');
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
const end = Math.max(statSync(file).mtimeMs, ...results.map((t) => t.endTime ?? 0));
const seconds = Math.max(0, (end - r.startTime) / 1000);
const wall = seconds >= 60 ? `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s` : `${seconds.toFixed(1)} s`;

console.log(
  `tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped; ` +
    `test files: ${results.length - failedFiles.length} passed, ${failedFiles.length} failed; wall time ${wall}`,
);
for (const t of failedFiles) {
  const failed = (t.assertionResults ?? []).filter((a) => a.status === 'failed').length;
  console.log(`  failed: ${relative(process.cwd(), t.name)} (${failed ? `${failed} test(s)` : (t.message ?? 'did not run').split('\n')[0]})`);
}
process.exit(r.numFailedTests > 0 || failedFiles.length > 0 || r.numTotalTests === 0 || r.success === false ? 1 : 0);

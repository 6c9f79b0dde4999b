// Prints vitest's totals as one plain line ("N passed, N failed, N skipped") for CI logs, whether or not vitest
// passed (npm test runs it after vitest either way), and exits non-zero when anything failed.
import { existsSync, readFileSync } from 'node:fs';
const file = process.argv[2] ?? 'test-output/vitest.json';
if (!existsSync(file)) {
  console.log(`tests: no results (${file} was not written: vitest did not finish)`);
  process.exit(1);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
const files = r.numFailedTestSuites > 0 ? `; ${r.numFailedTestSuites} test file(s) or suite(s) failed` : '';
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped${files}`);
process.exit(r.numFailedTests > 0 || r.numFailedTestSuites > 0 || r.numTotalTests === 0 || r.success === false ? 1 : 0);

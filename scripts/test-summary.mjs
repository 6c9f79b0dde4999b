// Prints vitest's totals as one plain line ("N passed, N failed, N skipped") for CI logs.
import { readFileSync } from 'node:fs';
const r = JSON.parse(readFileSync(process.argv[2] ?? 'test-output/vitest.json', 'utf8'));
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
process.exit(r.numFailedTests > 0 || r.numTotalTests === 0 ? 1 : 0);

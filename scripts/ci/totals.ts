// Prints the totals of a vitest JSON report as `N passed, N failed[, N skipped]` (CI's last line).
import { readFileSync } from 'node:fs';

interface VitestJsonReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: { name: string; status: string; assertionResults: unknown[] }[];
}

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: totals.ts REPORT.json\n');
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, 'utf8')) as VitestJsonReport;
// A test file that fails to load has no tests to count; count it as one failure so it cannot pass silently.
const unloadable = report.testResults.filter((r) => r.status === 'failed' && r.assertionResults.length === 0).length;
const failed = report.numFailedTests + unloadable;
const skipped = report.numPendingTests + report.numTodoTests;
process.stdout.write(`${report.numPassedTests} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`);

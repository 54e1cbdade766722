import type { Reporter, TestModule } from 'vitest/node';
import { SKIP_PREFIX } from './skip-reason.ts';

/**
 * After vitest's own summary: how many tests were skipped, and each reason a test file gave for it
 * (reportSkip), with the command that runs them. Without it the reasons are scattered through the
 * run's output, and "N skipped" says nothing about why.
 */
export default class SkipSummaryReporter implements Reporter {
  private readonly reasons = new Map<string, Set<string>>();

  onUserConsoleLog(log: { content: string; origin?: string; taskId?: string }): void {
    for (const line of log.content.split('\n')) {
      if (!line.startsWith(SKIP_PREFIX)) continue;
      const reason = line.slice(SKIP_PREFIX.length).trim();
      const files = this.reasons.get(reason) ?? new Set<string>();
      files.add(log.taskId ?? '');
      this.reasons.set(reason, files);
    }
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) if (test.result().state === 'skipped') skipped += 1;
    }
    if (skipped === 0 && this.reasons.size === 0) return;
    const lines = [`\n Skipped: ${skipped} test${skipped === 1 ? '' : 's'}${this.reasons.size > 0 ? ', because:' : ''}`];
    for (const reason of [...this.reasons.keys()].sort()) lines.push(`   - ${reason}`);
    if (this.reasons.size === 0) lines.push('   (no test file said why; they are marked .skip or .todo in their files)');
    process.stdout.write(`${lines.join('\n')}\n\n`);
  }
}

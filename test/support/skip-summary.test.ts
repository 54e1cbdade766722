import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

it('npm test ends with how many tests were skipped, why, and how to run them', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tg-skip-summary-'));
  try {
    const config = join(dir, 'vitest.config.mjs');
    writeFileSync(config, `export default { root: ${JSON.stringify(root)}, test: { include: ['test/support/fixtures/skips.fixture.ts'], pool: 'forks', reporters: ['default', ${JSON.stringify(join(root, 'test/support/skip-summary-reporter.ts'))}] } };\n`);
    const run = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--config', config], { cwd: root, encoding: 'utf8', env: { ...process.env, CI: '', NO_COLOR: '1' } });
    expect(run.status, run.stderr).toBe(0);
    // After vitest's own totals, the summary: the count and each reason with its command.
    const totals = run.stdout.lastIndexOf('Tests ');
    const summary = run.stdout.slice(run.stdout.indexOf('Skipped: ', totals));
    expect(totals).toBeGreaterThan(0);
    expect(summary).toContain('Skipped: 2 tests, because:');
    expect(summary).toContain("- The fixture's widget tests: WIDGET_URL is unset. To run them: WIDGET_URL=http://127.0.0.1:1 npm test");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

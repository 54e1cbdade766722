import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real peers (IdP, PostgreSQL, gateways) on loopback; give them room.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // CI reads the JSON report for its closing `N passed, N failed` line.
    reporters: process.env['CI'] ? ['default', 'json'] : ['default'],
    outputFile: { json: '.tmp/vitest-report.json' },
  },
});

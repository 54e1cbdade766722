import { defineConfig } from 'vitest/config';

export default defineConfig({
  // graphql ships CJS (main) and ESM (module): Vite would pick the ESM copy for our imports while
  // CJS packages (@apollo/subgraph) load the other, and graphql refuses types from "another realm".
  // Node itself loads the CJS one everywhere; so do the tests.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real peers (IdP, PostgreSQL, gateways) on loopback; give them room.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // CI reads the JSON report for its closing `N passed, N failed` line; the skip summary closes
    // every run with why tests were skipped and how to run them.
    reporters: [...(process.env['CI'] ? ['default', 'json'] : ['default']), './test/support/skip-summary-reporter.ts'],
    outputFile: { json: '.tmp/vitest-report.json' },
  },
});

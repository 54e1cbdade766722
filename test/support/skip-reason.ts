/** Marks a console line the skip summary (test/support/skip-summary-reporter.ts) collects. */
export const SKIP_PREFIX = '[skipped] ';

/**
 * Says, once per test file, that some tests will not run: what, why, and the command that runs them.
 * The reporter repeats each reason under the run's summary, so `npm test` ends saying what it left out.
 */
export function reportSkip(what: string, why: string, howToRun: string): void {
  console.warn(`${SKIP_PREFIX}${what}: ${why}. To run them: ${howToRun}`);
}

export const POSTGRES_HOW_TO_RUN = 'TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test npm test (a PostgreSQL the tests may create schemas in; .ci/run sets it and starts the cluster)';

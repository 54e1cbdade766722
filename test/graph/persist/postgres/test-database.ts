import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { POSTGRES_HOW_TO_RUN, reportSkip } from '../../../support/skip-reason.ts';

/** The PostgreSQL URL for tests (CI sets it); undefined skips the PostgreSQL suites. */
export const TEST_DATABASE_URL = process.env['TEST_DATABASE_URL'] || undefined;

export const SKIP_MESSAGE = 'PostgreSQL persistence tests are skipped because TEST_DATABASE_URL is unset (CI sets it)';

if (!TEST_DATABASE_URL) reportSkip('PostgreSQL persistence tests', 'TEST_DATABASE_URL is unset', POSTGRES_HOW_TO_RUN);

/** A schema name of its own for each test, so parallel runs never share tables or a NOTIFY channel. */
export function freshSchema(): string {
  return `tg_test_${randomBytes(6).toString('hex')}`;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

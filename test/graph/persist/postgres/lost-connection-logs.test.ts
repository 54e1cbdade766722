import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../../src/config/index.ts';
import { startToolgraph, type RunningToolgraph } from '../../../../src/serve/index.ts';
import { captureLogger } from '../../../support/capture-logger.ts';
import { until } from '../../../support/until.ts';
import { SKIP_MESSAGE, TEST_DATABASE_URL, dropSchema, freshSchema } from './test-database.ts';

/**
 * Issue 28, F8: when PostgreSQL ended a pooled connection, `an idle PostgreSQL connection failed`
 * logged the error pg-pool hands over, which carries the whole pg Client (`err.client`: the backend's
 * cancel `secretKey` and `processID`, user, database, the text of prepared statements). A server on
 * PostgreSQL has its every connection ended by pg_terminate_backend, as an operator's failover or a
 * restart would; no line may then carry anything of a client, only what failed (code and message).
 */

/** Every connection of this test's server carries this name (the URL's application_name wins over the adapter's). */
const APPLICATION = `tg-lost-${randomBytes(4).toString('hex')}`;
const schema = freshSchema();
/** A statement only this test sends, so its text in a log line can only have come from a client's internals. */
const MARKER = `lost_connection_marker_${randomBytes(4).toString('hex')}`;

let running: RunningToolgraph;
let lines: string[];

function databaseUrl(): string {
  const url = new URL(TEST_DATABASE_URL!);
  url.searchParams.set('application_name', APPLICATION);
  return url.toString();
}

async function dispatch(query: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${running.origin}/dispatch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 1, graph: 'demo', method: { Cypher: { query } } }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Ends every backend of this test's server; answers how many. */
async function terminateBackends(): Promise<number> {
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ ended: boolean }>('SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1', [APPLICATION]);
    return rows.filter((r) => r.ended).length;
  } finally {
    await admin.end();
  }
}

describe.skipIf(!TEST_DATABASE_URL)(TEST_DATABASE_URL ? 'PostgreSQL connections ended under a running server' : SKIP_MESSAGE, () => {
  beforeAll(async () => {
    const captured = captureLogger('trace');
    lines = captured.lines;
    running = await startToolgraph({
      config: resolveConfig({ env: {
        HOME: mkdtempSync(join(tmpdir(), 'tg-home-')), PORT: '0', LOG_LEVEL: 'trace',
        TOOLGRAPH_PERSISTENCE: 'postgres', DATABASE_URL: databaseUrl(), TOOLGRAPH_DATABASE_SCHEMA: schema,
      } }),
      logger: captured.logger,
    });
  });
  afterAll(async () => {
    await running?.close();
    await dropSchema(schema);
  });

  it('an idle PostgreSQL connection failed: the log says what failed (code, message), never the client', async () => {
    // Writes leave pooled connections idle, the NOTIFY connection open and the follower listening.
    expect((await dispatch(`CREATE (:Marker {id: '${MARKER}'})`)).status).toBe(200);
    expect((await dispatch(`MATCH (m:Marker {id: '${MARKER}'}) RETURN m.id`)).body).toMatchObject({ result: { rows: [[MARKER]] } });
    const before = lines.length;
    expect(await terminateBackends()).toBeGreaterThan(0);
    await until('the server logged the lost connections', () => lines.slice(before).some((l) => l.includes('PostgreSQL')), 5_000);
    // The server goes on: the next write reconnects.
    expect((await dispatch(`CREATE (:Marker {id: '${MARKER}-after'})`)).status).toBe(200);

    const lost = lines.slice(before).filter((l) => l.includes('PostgreSQL'));
    const idle = lost.map((l) => JSON.parse(l) as { msg: string; err?: Record<string, unknown> }).find((l) => l.msg === 'an idle PostgreSQL connection failed');
    expect(idle, lost.join('\n')).toBeDefined();
    // 57P01: admin_shutdown, what pg_terminate_backend makes the backend say.
    expect(idle!.err).toEqual({ code: '57P01', message: 'terminating connection due to administrator command' });
    const all = lines.join('\n');
    for (const internal of ['secretKey', 'processID', 'connectionParameters', '"client"', 'queryQueue', 'pg_notify', MARKER]) {
      expect(all, `a log line carries ${internal}`).not.toContain(internal);
    }
  });
});

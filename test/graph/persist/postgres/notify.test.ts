import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../../../src/graph/engine/index.ts';
import { PostgresPersistence } from '../../../../src/graph/persist/postgres/index.ts';
import { batchRecord, createRecord } from '../contract-suite.ts';
import { SKIP_MESSAGE, TEST_DATABASE_URL, dropSchema, freshSchema } from './test-database.ts';
import { until } from '../../../support/until.ts';

const lastVersion = (seen: readonly LogRecord[], graph: string): number =>
  Math.max(0, ...seen.flatMap((r) => (r.kind === 'batch' && r.batch.graph === graph ? [r.batch.version] : [])));

// Polling is off in the follower, so only a NOTIFY can bring a change over.
describe.skipIf(!TEST_DATABASE_URL)(TEST_DATABASE_URL ? 'postgres NOTIFY (throttled, on its own connection)' : SKIP_MESSAGE, () => {
  let schema: string;
  let adapters: PostgresPersistence[];

  async function open(notifyEveryMs?: number, instanceId?: string): Promise<PostgresPersistence> {
    const adapter = new PostgresPersistence({ connectionString: TEST_DATABASE_URL!, schema, maxConnections: 2, pollIntervalMs: 0, notifyEveryMs, instanceId });
    adapters.push(adapter);
    await adapter.load();
    return adapter;
  }

  beforeEach(() => {
    schema = freshSchema();
    adapters = [];
  });
  afterEach(async () => {
    for (const a of adapters) await a.close();
    await dropSchema(schema);
  });

  it('names every graph written during a throttle interval in a later NOTIFY', async () => {
    const writer = await open(50);
    const follower = await open();
    const seen: LogRecord[] = [];
    await follower.follow!((r) => seen.push(r));
    const graphs = ['a', 'b', 'c', 'd'];
    for (const g of graphs) await writer.append(createRecord(g));
    // Writes on several graphs at once, well inside one 50 ms interval after the first NOTIFY.
    await Promise.all(graphs.map(async (g) => {
      for (let v = 1; v <= 5; v++) await writer.append(batchRecord(g, v));
    }));
    await until('the follower has every batch', () => graphs.every((g) => lastVersion(seen, g) === 5), 5_000);
    for (const g of graphs) {
      expect(seen.filter((r) => r.kind === 'batch' && r.batch.graph === g).map((r) => r.kind === 'batch' && r.batch.version)).toEqual([1, 2, 3, 4, 5]);
    }
  });

  it('sends the notifications of appends still in flight when the adapter closes', async () => {
    const writer = await open(10_000);
    const follower = await open();
    const seen: LogRecord[] = [];
    await follower.follow!((r) => seen.push(r));
    await writer.append(createRecord('g')); // the first NOTIFY goes at once; the next would wait 10 s
    await writer.append(batchRecord('g', 1));
    const started = Date.now();
    await writer.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    await until('the follower has the batch', () => lastVersion(seen, 'g') === 1, 2_000);
  });

  it('replaces a NOTIFY connection that was cut', async () => {
    const writer = await open(0, `cut-${schema}`);
    const follower = await open();
    const seen: LogRecord[] = [];
    await follower.follow!((r) => seen.push(r));
    await writer.append(createRecord('g'));
    await writer.append(batchRecord('g', 1));
    await until('the follower has version 1', () => lastVersion(seen, 'g') === 1, 5_000);
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      const cut = await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [`toolgraph notify cut-${schema}`]);
      expect(cut.rowCount).toBe(1);
    } finally {
      await admin.end();
    }
    // The NOTIFY for version 2 may die with the old connection; a later one goes out on a new one.
    for (let v = 2; v <= 4; v++) {
      await writer.append(batchRecord('g', v));
      await new Promise((r) => setTimeout(r, 20));
    }
    await until('the follower has version 4', () => lastVersion(seen, 'g') === 4, 5_000);
  });
});

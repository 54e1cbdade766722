import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isToolgraphError } from '../../../../src/errors/index.ts';
import { PostgresPersistence } from '../../../../src/graph/persist/postgres/index.ts';
import { batchRecord, createRecord } from '../contract-suite.ts';
import { SKIP_MESSAGE, TEST_DATABASE_URL, dropSchema, freshSchema } from './test-database.ts';

const AT = '2026-11-22T00:00:00.000Z';

// Two adapters on one schema stand for two instances; neither follows the other.
describe.skipIf(!TEST_DATABASE_URL)(TEST_DATABASE_URL ? 'postgres appends racing drops and re-creations' : SKIP_MESSAGE, () => {
  let schema: string;
  let a: PostgresPersistence;
  let b: PostgresPersistence;
  let admin: pg.Client;

  beforeEach(async () => {
    schema = freshSchema();
    a = new PostgresPersistence({ connectionString: TEST_DATABASE_URL!, schema, maxConnections: 2, pollIntervalMs: 0 });
    b = new PostgresPersistence({ connectionString: TEST_DATABASE_URL!, schema, maxConnections: 2, pollIntervalMs: 0 });
    await a.load();
    await b.load();
    admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    await admin.end();
    await dropSchema(schema);
  });

  it('a drop racing a stream of batches leaves no batch behind, and every batch before it was acknowledged or refused', async () => {
    let orphans = 0;
    for (let round = 0; round < 30; round++) {
      const graph = `d${round}`;
      await b.append(createRecord(graph));
      let stored = 0;
      let refusal: unknown;
      const writer = (async () => {
        for (let v = 1; ; v++) {
          try {
            await a.append(batchRecord(graph, v));
            stored = v;
          } catch (error) {
            refusal = error;
            return;
          }
        }
      })();
      await new Promise((r) => setTimeout(r, round % 4));
      await b.append({ kind: 'dropGraph', graph, at: AT });
      await writer;
      expect(isToolgraphError(refusal) && refusal.code).toBe('TG_GRAPH_NOT_FOUND');
      const left = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".toolgraph_batches WHERE graph = $1`, [graph]);
      orphans += left.rows[0]!.n;
      // The name starts over: nothing of the dropped incarnation shows through.
      await b.append(createRecord(graph));
      await a.append(batchRecord(graph, 1, 'fresh'));
      expect(stored).toBeGreaterThanOrEqual(0);
    }
    expect(orphans).toBe(0);
    const state = await (async () => {
      const c = new PostgresPersistence({ connectionString: TEST_DATABASE_URL!, schema, maxConnections: 1, pollIntervalMs: 0 });
      try {
        return await c.load();
      } finally {
        await c.close();
      }
    })();
    // Each graph: its latest createGraph and the one fresh batch, nothing from before the drop.
    expect(state.records.filter((r) => r.kind === 'batch').map((r) => r.kind === 'batch' && [r.batch.version, r.batch.mutations[0]]))
      .toEqual(Array.from({ length: 30 }, () => [1, expect.objectContaining({ id: 'fresh' })]));
  });

  it('refuses a stale writer a version in a re-created graph (no gap is ever stored)', async () => {
    await a.append(createRecord('g'));
    await a.append(batchRecord('g', 1));
    await a.append(batchRecord('g', 2));
    // Another instance drops and re-creates the graph; this one still thinks it is at version 2.
    await b.append({ kind: 'dropGraph', graph: 'g', at: AT });
    await b.append(createRecord('g'));
    await expect(a.append(batchRecord('g', 3))).rejects.toMatchObject({ code: 'TG_VERSION_CONFLICT' });
    await b.append(batchRecord('g', 1, 'fresh'));
    const state = await b.load();
    expect(state.records).toEqual([createRecord('g'), batchRecord('g', 1, 'fresh')]);
  });

  it('gives exactly one of many instances racing for one version the win', async () => {
    const others = await Promise.all(Array.from({ length: 3 }, async () => {
      const p = new PostgresPersistence({ connectionString: TEST_DATABASE_URL!, schema, maxConnections: 1, pollIntervalMs: 0 });
      await p.load();
      return p;
    }));
    try {
      const all = [a, b, ...others];
      await a.append(createRecord('r'));
      for (let v = 1; v <= 20; v++) {
        const results = await Promise.allSettled(all.map((p, i) => p.append(batchRecord('r', v, `p${i}v${v}`))));
        expect(results.filter((r) => r.status === 'fulfilled').length).toBe(1);
        for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'TG_VERSION_CONFLICT' });
      }
      const rows = await admin.query<{ n: number; top: number }>(`SELECT count(*)::int AS n, max(version)::int AS top FROM "${schema}".toolgraph_batches WHERE graph = 'r'`);
      expect(rows.rows[0]).toEqual({ n: 20, top: 20 });
    } finally {
      for (const p of others) await p.close();
    }
  });
});

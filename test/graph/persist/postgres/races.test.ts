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
  /** Holds locks in an open transaction; `admin` observes (pg_stat_activity is frozen inside a transaction). */
  let holder: pg.Client;

  beforeEach(async () => {
    schema = freshSchema();
    a = new PostgresPersistence({ connectionString: TEST_DATABASE_URL!, schema, maxConnections: 2, pollIntervalMs: 0 });
    b = new PostgresPersistence({ connectionString: TEST_DATABASE_URL!, schema, maxConnections: 2, pollIntervalMs: 0 });
    await a.load();
    await b.load();
    admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    holder = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await holder.connect();
  });
  afterEach(async () => {
    // First, so that appends a failed test left waiting on its locks can finish.
    await holder.query('ROLLBACK').catch(() => undefined);
    await holder.end();
    await a.close();
    await b.close();
    await admin.end();
    await dropSchema(schema);
  });

  /** Backends of this database that wait on a lock, with who blocks them. */
  async function waiters(): Promise<{ pid: number; blockers: number[]; query: string }[]> {
    const { rows } = await admin.query<{ pid: number; blockers: number[]; query: string }>(
      `SELECT pid, pg_blocking_pids(pid) AS blockers, query FROM pg_stat_activity
        WHERE datname = current_database() AND cardinality(pg_blocking_pids(pid)) > 0`);
    return rows;
  }

  /** Polls until `found` picks a waiter (true), or gives up after 5 s (false). */
  async function waitFor(found: (w: { pid: number; blockers: number[]; query: string }[]) => boolean): Promise<boolean> {
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      if (found(await waiters())) return true;
      await new Promise((r) => setTimeout(r, 10));
    }
    return false;
  }

  const isAppend = (q: string): boolean => q.includes('INSERT INTO') && q.includes('toolgraph_batches') && q.includes('head');
  const isDrop = (q: string): boolean => q.includes('LOCK TABLE') || q.includes('UPDATE');

  async function batchesLeft(graph: string): Promise<number> {
    const left = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".toolgraph_batches WHERE graph = $1`, [graph]);
    return left.rows[0]!.n;
  }

  it('an append already in flight when a drop starts is acknowledged, and the drop waits for it and removes it', async () => {
    await b.append(createRecord('g'));
    await a.append(batchRecord('g', 1));
    // Hold the append mid-statement: an uncommitted row with the same key makes its INSERT wait.
    await holder.query('BEGIN');
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await holder.query(
      `INSERT INTO "${schema}".toolgraph_batches (graph, generation, version, mutations, committed_at, origin)
       SELECT 'g', generation, 2, '[]', $1, 'test' FROM "${schema}".toolgraph_graphs WHERE name = 'g'`, [AT]);
    const settled: string[] = [];
    const append = a.append(batchRecord('g', 2)).then(() => { settled.push('append acknowledged'); }, (e: unknown) => { settled.push(`append refused ${String(e)}`); });
    let appendPid = 0;
    expect(await waitFor((ws) => ws.some((w) => isAppend(w.query) && w.blockers.includes(holderPid) && (appendPid = w.pid) > 0))).toBe(true);
    const drop = b.append({ kind: 'dropGraph', graph: 'g', at: AT }).then(() => { settled.push('drop'); });
    // The race is real: the drop is running while the append is, and waits for it.
    expect(await waitFor((ws) => ws.some((w) => isDrop(w.query) && w.blockers.includes(appendPid)))).toBe(true);
    expect(settled).toEqual([]);
    await holder.query('ROLLBACK');
    await Promise.all([append, drop]);
    // (The two replies may reach this process in either order; the database ordered them as observed above.)
    expect(settled.sort()).toEqual(['append acknowledged', 'drop']);
    // Acknowledged before the drop, so it went with the graph: nothing is left in the dead generation.
    expect(await batchesLeft('g')).toBe(0);
    await expect(a.append(batchRecord('g', 3))).rejects.toMatchObject({ code: 'TG_GRAPH_NOT_FOUND' });
  });

  it('an append that arrives while a drop is running waits for it, then is refused and stores nothing', async () => {
    await b.append(createRecord('g'));
    await a.append(batchRecord('g', 1));
    // Hold the drop after it has taken its table lock: its UPDATE waits on this row lock.
    await holder.query('BEGIN');
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await holder.query(`SELECT 1 FROM "${schema}".toolgraph_graphs WHERE name = 'g' FOR UPDATE`);
    const settled: string[] = [];
    const drop = b.append({ kind: 'dropGraph', graph: 'g', at: AT }).then(() => { settled.push('drop'); });
    let dropPid = 0;
    expect(await waitFor((ws) => ws.some((w) => isDrop(w.query) && w.blockers.includes(holderPid) && (dropPid = w.pid) > 0))).toBe(true);
    let refusal: unknown;
    const append = a.append(batchRecord('g', 2)).then(() => { settled.push('append acknowledged'); }, (e: unknown) => {
      refusal = e;
      settled.push('append refused');
    });
    // The race is real: the append is running while the drop is, and waits for it.
    expect(await waitFor((ws) => ws.some((w) => isAppend(w.query) && w.blockers.includes(dropPid)))).toBe(true);
    expect(settled).toEqual([]);
    await holder.query('COMMIT');
    await Promise.all([append, drop]);
    expect(settled.sort()).toEqual(['append refused', 'drop']);
    expect(refusal).toMatchObject({ code: 'TG_GRAPH_NOT_FOUND' });
    expect(await batchesLeft('g')).toBe(0);
  });

  it('a drop racing a stream of batches leaves no batch behind, and every batch before it was acknowledged or refused', async () => {
    let orphans = 0;
    for (let round = 0; round < 30; round++) {
      const graph = `d${round}`;
      await b.append(createRecord(graph));
      let refusal: unknown;
      const writer = (async () => {
        for (let v = 1; ; v++) {
          try {
            await a.append(batchRecord(graph, v));
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

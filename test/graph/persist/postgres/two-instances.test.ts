import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GraphEngine, type ChangeEvent } from '../../../../src/graph/engine/index.ts';
import { PostgresPersistence } from '../../../../src/graph/persist/postgres/index.ts';
import { engineState } from '../engine-state.ts';
import { SKIP_MESSAGE, TEST_DATABASE_URL, dropSchema, freshSchema } from './test-database.ts';
import { until } from '../../../support/until.ts';

function versionOf(engine: GraphEngine, graph: string): number {
  return engine.listGraphs().find((g) => g.name === graph)?.version ?? -1;
}

describe.skipIf(!TEST_DATABASE_URL)(TEST_DATABASE_URL ? 'two engine instances on one PostgreSQL database' : SKIP_MESSAGE, () => {
  let schema: string;
  let engines: GraphEngine[];

  async function instance(snapshotEvery = 1000, pollIntervalMs = 5_000): Promise<GraphEngine> {
    const persistence = new PostgresPersistence({ connectionString: TEST_DATABASE_URL!, schema, maxConnections: 4, pollIntervalMs });
    const engine = await GraphEngine.open({ persistence, snapshotEvery });
    engines.push(engine);
    return engine;
  }

  beforeEach(() => {
    schema = freshSchema();
    engines = [];
  });
  afterEach(async () => {
    for (const e of engines) await e.close();
    await dropSchema(schema);
  });

  it('shows a write on one instance on the other', async () => {
    const a = await instance();
    const b = await instance();
    await a.createGraph('shared');
    await a.commit({ graph: 'shared', mutations: [
      { op: 'createNode', id: 'ada', label: 'Person', props: { name: 'Ada', langs: ['en', 'fr'], born: 1815 } },
      { op: 'createNode', id: 'charles', label: 'Person', props: { name: 'Charles', height: 1.75 } },
      { op: 'addEdge', src: 'ada', tgt: 'charles', type: 'KNOWS' },
    ] });
    await until('b has version 1', () => versionOf(b, 'shared') === 1);
    expect(engineState(b)).toEqual(engineState(a));
    // And back the other way, including a drop.
    await b.commit({ graph: 'shared', mutations: [{ op: 'updateNode', id: 'ada', set: { born: 1816 } }] });
    await b.createGraph('other');
    await until('a sees both', () => versionOf(a, 'shared') === 2 && a.hasGraph('other'));
    expect(engineState(a)).toEqual(engineState(b));
    await a.dropGraph('other');
    await until('b sees the drop', () => !b.hasGraph('other'));
    // A third instance starting now loads the same state.
    const c = await instance();
    expect(engineState(c)).toEqual(engineState(a));
  });

  it('lets exactly one of two racing conflicting batches win; the other gets TG_VERSION_CONFLICT, and both converge', async () => {
    const a = await instance();
    const b = await instance();
    await a.createGraph('race');
    await until('b has the graph', () => b.hasGraph('race'));
    for (let round = 1; round <= 15; round++) {
      const results = await Promise.allSettled([
        a.commit({ graph: 'race', mutations: [{ op: 'createNode', id: `a${round}`, label: 'Win', props: { by: 'a', round } }] }),
        b.commit({ graph: 'race', mutations: [{ op: 'createNode', id: `b${round}`, label: 'Win', props: { by: 'b', round } }] }),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won.length).toBe(1);
      expect(lost.length).toBe(1);
      expect(lost[0]!.reason).toMatchObject({ code: 'TG_VERSION_CONFLICT' });
      await until(`both reach version ${round}`, () => versionOf(a, 'race') === round && versionOf(b, 'race') === round);
      expect(engineState(a)).toEqual(engineState(b));
    }
    expect(a.view('race').scan('Win').length).toBe(15);
  });

  it('delivers every followed batch once, in version order, while several graphs are written at once', async () => {
    const a = await instance(25);
    const b = await instance();
    const seen: ChangeEvent[] = [];
    b.subscribe((event) => seen.push(event));
    const graphs = ['p', 'q', 'r'];
    for (const g of graphs) await a.createGraph(g);
    await Promise.all(graphs.map(async (graph) => {
      for (let i = 1; i <= 60; i++) await a.commit({ graph, mutations: [{ op: 'createNode', id: `n${i}`, label: 'N', props: { i } }] });
    }));
    await until('b caught up', () => graphs.every((g) => versionOf(b, g) === 60));
    for (const graph of graphs) {
      const versions = seen.filter((e) => e.graph === graph && e.kind === 'batch').map((e) => e.version);
      expect(versions).toEqual(Array.from({ length: 60 }, (_v, i) => i + 1));
    }
    expect(engineState(b)).toEqual(engineState(a));
    // Snapshots were written along the way (at 25 and 50), batches up to the previous one pruned;
    // a fresh instance starts from them.
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      const snaps = await admin.query(`SELECT graph, version::int FROM "${schema}".toolgraph_snapshots ORDER BY graph`);
      expect(snaps.rows).toEqual(graphs.map((graph) => ({ graph, version: 50 })));
      const oldest = await admin.query(`SELECT min(version)::int AS v FROM "${schema}".toolgraph_batches`);
      expect(oldest.rows[0].v).toBe(26);
    } finally {
      await admin.end();
    }
    const c = await instance();
    expect(engineState(c)).toEqual(engineState(a));
  });

  it('catches up after its LISTEN connection is cut', async () => {
    const a = await instance();
    const b = await instance();
    await a.createGraph('cut');
    await until('b has the graph', () => b.hasGraph('cut'));
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      const cut = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1 AND pid <> pg_backend_pid()`,
        [`LISTEN "toolgraph_changes_${schema}"`]);
      expect(cut.rowCount).toBe(2);
    } finally {
      await admin.end();
    }
    // Written while b is (probably) not listening: found by the catch-up after it reconnects.
    for (let i = 1; i <= 5; i++) await a.commit({ graph: 'cut', mutations: [{ op: 'createNode', id: `n${i}`, label: 'N', props: {} }] });
    await until('b caught up', () => versionOf(b, 'cut') === 5);
    await b.commit({ graph: 'cut', mutations: [{ op: 'deleteNode', id: 'n1' }] });
    await until('a sees b again', () => versionOf(a, 'cut') === 6);
    expect(engineState(a)).toEqual(engineState(b));
  });

  it('finds a commit whose NOTIFY never went out (its writer died in between) by polling', async () => {
    const a = await instance(1000, 100);
    await a.createGraph('quiet');
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      // What a writer leaves when it dies right after COMMIT: the row, and no NOTIFY.
      await admin.query(
        `INSERT INTO "${schema}".toolgraph_batches (graph, generation, version, mutations, committed_at, origin)
         VALUES ('quiet', 1, 1, $1::json, '2026-11-22T00:00:00.000Z', 'a-dead-instance')`,
        [JSON.stringify([{ op: 'createNode', id: 'late', label: 'N', props: { ok: true } }])]);
    } finally {
      await admin.end();
    }
    await until('a polled it in', () => versionOf(a, 'quiet') === 1);
    expect(a.view('quiet').node('late')?.props).toEqual({ ok: true });
  });
});

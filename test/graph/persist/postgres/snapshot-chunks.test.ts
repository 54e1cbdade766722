import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  GraphEngine, type PersistenceAdapter, type SnapshotChunk, type SnapshotStream,
} from '../../../../src/graph/engine/index.ts';
import { PostgresPersistence } from '../../../../src/graph/persist/postgres/index.ts';
import { engineState } from '../engine-state.ts';
import { SKIP_MESSAGE, TEST_DATABASE_URL, dropSchema, freshSchema } from './test-database.ts';
import { buildSnapshotGraph, nodeId } from '../../snapshot-graph.ts';

const id = nodeId;

function build(engine: GraphEngine): Promise<void> {
  return buildSnapshotGraph(engine, (i) => ({ i, s: `v${i}`, tags: ['t', String(i % 5)] }));
}

/** Passes everything through, but pauses the snapshot writer after its first chunk until released. */
function gated(inner: PostgresPersistence): { adapter: PersistenceAdapter; reached: Promise<void>; release: () => void } {
  let reach!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((r) => { reach = r; });
  const released = new Promise<void>((r) => { release = r; });
  const adapter: PersistenceAdapter = {
    kind: inner.kind,
    load: () => inner.load(),
    append: (r) => inner.append(r),
    close: () => inner.close(),
    writeSnapshot: (stream: SnapshotStream) => inner.writeSnapshot({
      header: stream.header,
      async *chunks(): AsyncGenerator<SnapshotChunk> {
        let first = true;
        for await (const chunk of stream.chunks()) {
          yield chunk;
          if (first) {
            first = false;
            reach();
            await released;
          }
        }
      },
    }),
  };
  return { adapter, reached, release };
}

describe.skipIf(!TEST_DATABASE_URL)(TEST_DATABASE_URL ? 'postgres: chunked snapshots' : SKIP_MESSAGE, () => {
  let schema: string;
  let admin: pg.Client;
  beforeEach(async () => {
    schema = freshSchema();
    admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
  });
  afterEach(async () => {
    await admin.end();
    await dropSchema(schema);
  });

  const persistence = (): PostgresPersistence =>
    new PostgresPersistence({ connectionString: TEST_DATABASE_URL!, schema, maxConnections: 4, pollIntervalMs: 0 });

  async function chunkSets(): Promise<{ chunk_set: string; n: number }[]> {
    const { rows } = await admin.query<{ chunk_set: string; n: number }>(
      `SELECT chunk_set, count(*)::int AS n FROM "${schema}".toolgraph_snapshot_chunks WHERE graph = 'g' GROUP BY chunk_set`);
    return rows;
  }

  it('stores a snapshot in chunks while commits go on, and a new instance recovers the same graph from it', async () => {
    const gate = gated(persistence());
    const engine = await GraphEngine.open({ persistence: gate.adapter, snapshotEvery: 0 });
    await build(engine);
    let written = false;
    const snapshot = engine.snapshot('g').then(() => { written = true; });
    await gate.reached;
    for (let k = 0; k < 10; k++) {
      await engine.commit({ graph: 'g', mutations: [{ op: 'updateNode', id: id(k * 400), set: { s: `during ${k}` } }, { op: 'deleteNode', id: id(4500 + k) }] });
    }
    expect(written).toBe(false);
    gate.release();
    await snapshot;

    const { rows: [row] } = await admin.query<{ version: number; chunk_set: string; chunks: number }>(
      `SELECT version::int, chunk_set, chunks FROM "${schema}".toolgraph_snapshots WHERE graph = 'g'`);
    expect(row!.version).toBe(2);
    expect(row!.chunks).toBeGreaterThan(3);
    expect(await chunkSets()).toEqual([{ chunk_set: row!.chunk_set, n: row!.chunks }]);

    const reader = persistence();
    const other = await GraphEngine.open({ persistence: reader, snapshotEvery: 0 });
    expect(engineState(other)).toEqual(engineState(engine));
    await other.close();

    // A newer snapshot replaces the chunk set; a drop removes it.
    await engine.snapshot('g');
    const sets = await chunkSets();
    expect(sets.length).toBe(1);
    expect(sets[0]!.chunk_set).not.toBe(row!.chunk_set);
    await engine.dropGraph('g');
    expect(await chunkSets()).toEqual([]);
    await engine.close();
  });

  it('still loads a snapshot stored whole by an earlier version', async () => {
    const first = persistence();
    await first.load();
    await first.append({ kind: 'createGraph', graph: 'g', version: 0, at: 'x' });
    await first.append({ kind: 'batch', batch: { graph: 'g', version: 1, committedAt: 'x', mutations: [{ op: 'createNode', id: 'a', label: 'A', props: { s: 'old' } }] } });
    await admin.query(
      `INSERT INTO "${schema}".toolgraph_snapshots (graph, generation, version, body, written_at) VALUES ('g', 1, 1, $1::json, 'x')`,
      [JSON.stringify({ graph: 'g', version: 1, at: 'x', nodes: [{ id: 'a', label: 'A', props: { s: 'old' } }], edges: [],
        catalogue: { labels: [{ label: 'A', properties: { s: 'String' } }], edgeTypes: [] } })]);
    await first.close();
    const engine = await GraphEngine.open({ persistence: persistence(), snapshotEvery: 0 });
    expect(engine.view('g').node('a')?.props).toEqual({ s: 'old' });
    await engine.close();
  });
});

import { describe, expect, it } from 'vitest';
import {
  GraphEngine, SNAPSHOT_EDGES_PER_CHUNK, SNAPSHOT_NODES_PER_CHUNK, readSnapshot,
  type PersistenceAdapter, type SnapshotChunk, type SnapshotStream,
} from '../../../src/graph/engine/index.ts';
import { MemoryPersistence, MemoryStore } from '../../../src/graph/persist/index.ts';
import { engineState } from '../persist/engine-state.ts';
import { SNAPSHOT_NODES, buildSnapshotGraph, nodeId } from '../snapshot-graph.ts';

const N = SNAPSHOT_NODES;
const id = nodeId;

/** Memory persistence whose snapshot writer stops after chunk `k` of each `pauses` until released. */
class GatedPersistence extends MemoryPersistence {
  readonly paused: { chunk: number; reached: Promise<void>; reach: () => void; release: () => void; released: Promise<void> }[];
  readonly chunkKinds: string[] = [];

  constructor(store: MemoryStore, pauseAfter: readonly number[]) {
    super({ store });
    this.paused = pauseAfter.map((chunk) => {
      let reach!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((r) => { reach = r; });
      const released = new Promise<void>((r) => { release = r; });
      return { chunk, reached, reach, release, released };
    });
  }

  override writeSnapshot(stream: SnapshotStream): Promise<void> {
    const gates = this.paused;
    const kinds = this.chunkKinds;
    return super.writeSnapshot({
      header: stream.header,
      async *chunks(): AsyncGenerator<SnapshotChunk> {
        let k = 0;
        for await (const chunk of stream.chunks()) {
          kinds.push(chunk.kind);
          yield chunk;
          const gate = gates.find((g) => g.chunk === k);
          k++;
          if (gate) {
            gate.reach();
            await gate.released;
          }
        }
      },
    });
  }
}

function build(engine: GraphEngine): Promise<void> {
  return buildSnapshotGraph(engine, (i) => ({ i, s: `v${i}` }));
}

/** The graph as a snapshot must show it. */
function current(engine: GraphEngine): { version: number; nodes: unknown[]; edges: unknown[] } {
  const view = engine.view('g');
  return {
    version: view.version,
    nodes: [...view.allNodes()].map((n) => ({ id: n.id, label: n.label, props: n.props })),
    edges: [...view.allEdges()].map((e) => ({ ...e })),
  };
}

const opts = { newId: (): string => 'unused', now: (): Date => new Date('2026-11-22T00:00:00.000Z'), snapshotEvery: 0 };

describe('streamed snapshots', () => {
  it('lets commits to the graph proceed while a snapshot is written, and the snapshot shows none of them', async () => {
    // The test needs several chunks of each kind.
    expect(N).toBeGreaterThan(2 * SNAPSHOT_NODES_PER_CHUNK);
    expect(3 * N).toBeGreaterThan(SNAPSHOT_EDGES_PER_CHUNK);
    const store = new MemoryStore();
    const nodeChunks = Math.ceil(N / SNAPSHOT_NODES_PER_CHUNK);
    // Pause after the first node chunk, and after the first edge chunk.
    const persistence = new GatedPersistence(store, [0, nodeChunks]);
    const engine = await GraphEngine.open({ persistence, ...opts });
    await build(engine);
    const before = current(engine);

    let written = false;
    const snapshot = engine.snapshot('g').then(() => { written = true; });
    await persistence.paused[0]!.reached;
    // Nodes both written already (n00000…) and not yet (n04…), their edges, new nodes.
    await engine.commit({ graph: 'g', mutations: [
      { op: 'updateNode', id: id(0), set: { s: 'changed' } },
      { op: 'updateNode', id: id(4999), set: { s: 'changed' }, unset: ['i'] },
      { op: 'deleteNode', id: id(4000) },
      { op: 'addEdge', src: id(1), tgt: id(4500), type: 'LATE' },
      { op: 'removeEdge', src: id(4998), tgt: id(4999), type: 'NEXT' },
      { op: 'createNode', id: 'new1', label: 'A', props: { i: -1 } },
      { op: 'addEdge', src: 'new1', tgt: id(10), type: 'LATE' },
      { op: 'addEdge', src: id(4900), tgt: 'new1', type: 'LATE' },
    ] });
    expect(written).toBe(false);
    persistence.paused[0]!.release();
    await persistence.paused[1]!.reached;
    // Now the edges of the first nodes are written; change some on both sides of that line.
    await engine.commit({ graph: 'g', mutations: [
      { op: 'deleteNode', id: id(2) },
      { op: 'deleteNode', id: id(4444) },
      { op: 'removeEdge', src: id(4990), tgt: id(4991), type: 'NEXT' },
      { op: 'addEdge', src: id(3), tgt: 'new1', type: 'LATE' },
      { op: 'updateNode', id: id(3000), set: { s: 'changed' } },
    ] });
    for (let k = 0; k < 20; k++) await engine.commit({ graph: 'g', mutations: [{ op: 'updateNode', id: id(4001 + k), set: { s: `again ${k}` } }] });
    expect(written).toBe(false);
    persistence.paused[1]!.release();
    await snapshot;
    expect(persistence.chunkKinds.filter((k) => k === 'nodes').length).toBe(nodeChunks);
    expect(persistence.chunkKinds.filter((k) => k === 'edges').length).toBeGreaterThan(1);

    const loaded = await new MemoryPersistence({ store }).load();
    expect(loaded.snapshots.length).toBe(1);
    const stored = await readSnapshot(loaded.snapshots[0]!);
    expect(stored.version).toBe(before.version);
    expect(stored.nodes).toEqual(before.nodes);
    expect(stored.edges).toEqual(before.edges);

    // Recovery (the snapshot, then the batches after it) gives back the graph as it is now.
    const reopened = await GraphEngine.open({ persistence: new MemoryPersistence({ store }), ...opts });
    expect(engineState(reopened)).toEqual(engineState(engine));
    await reopened.close();
    await engine.close();
  });

  it('writes one snapshot of a graph at a time: snapshot() waits for the one being written, then writes a newer one', async () => {
    const store = new MemoryStore();
    const persistence = new GatedPersistence(store, [0]);
    const engine = await GraphEngine.open({ persistence, ...opts });
    await build(engine);
    const first = engine.snapshot('g');
    await persistence.paused[0]!.reached;
    await engine.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'late', label: 'A', props: {} }] });
    const second = engine.snapshot('g');
    persistence.paused[0]!.release();
    await Promise.all([first, second]);
    const loaded = await new MemoryPersistence({ store }).load();
    const stored = await readSnapshot(loaded.snapshots[0]!);
    expect(stored.version).toBe(engine.view('g').version);
    expect(stored.nodes.some((n) => n.id === 'late')).toBe(true);
    await engine.close();
  });

  it('restores a snapshot through freezeProps (lone surrogates read as U+FFFD) and refuses nodes after edges', async () => {
    const store = new MemoryStore();
    const adapter: PersistenceAdapter = new MemoryPersistence({ store });
    await adapter.append({ kind: 'createGraph', graph: 'g', version: 0, at: 'x' });
    const header = { graph: 'g', version: 0, at: 'x', catalogue: { labels: [{ label: 'A', properties: { s: 'String' as const } }], edgeTypes: [] } };
    const broken: SnapshotStream = {
      header,
      async *chunks() {
        yield { kind: 'nodes', nodes: [{ id: 'a', label: 'A', props: { s: '\uD800' } }] };
        yield { kind: 'edges', edges: [{ src: 'a', tgt: 'a', type: 'SELF' }] };
        yield { kind: 'nodes', nodes: [{ id: 'b', label: 'A', props: {} }] };
      },
    };
    const failing: PersistenceAdapter = { ...adapter, kind: 'test', load: async () => ({ snapshots: [broken], records: [] }),
      append: (r) => adapter.append(r), writeSnapshot: (s) => adapter.writeSnapshot(s), close: () => adapter.close() };
    await expect(GraphEngine.open({ persistence: failing, ...opts })).rejects.toMatchObject({ code: 'TG_STORAGE_CORRUPT' });
    const good: SnapshotStream = {
      header,
      async *chunks() {
        yield { kind: 'nodes', nodes: [{ id: 'a', label: 'A', props: { s: '\uD800' } }] };
      },
    };
    const engine = await GraphEngine.open({ persistence: { ...failing, load: async () => ({ snapshots: [good], records: [] }) }, ...opts });
    expect(engine.view('g').node('a')?.props).toEqual({ s: '\uFFFD' });
    await engine.close();
  });
});

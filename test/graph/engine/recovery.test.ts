import { describe, expect, it, vi } from 'vitest';
import { GraphEngine, type ChangeEvent, type GraphView } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence, MemoryStore } from '../../../src/graph/persist/index.ts';
import type { LogRecord, PersistenceAdapter } from '../../../src/graph/engine/index.ts';
import { openEngine } from './helpers.ts';

/** How long a follower may take to apply what another instance wrote, checked every 2 ms. */
const FOLLOW = { timeout: 10_000, interval: 2 };

function dump(view: GraphView) {
  return { version: view.version, catalogue: view.catalogue, nodes: [...view.allNodes()].map((n) => JSON.stringify(n)), edges: [...view.allEdges()] };
}

async function build(store: MemoryStore, snapshotEvery: number) {
  const engine = await openEngine({ store, snapshotEvery });
  await engine.createGraph('g');
  await engine.createGraph('gone');
  for (let i = 0; i < 7; i++) {
    await engine.commit({ graph: 'g', mutations: [
      { op: 'createNode', id: `n${i}`, label: i % 2 ? 'A' : 'B', props: { i, f: i + 0.5, tags: [`t${i}`] } },
      ...(i > 0 ? [{ op: 'addEdge' as const, src: `n${i}`, tgt: `n${i - 1}`, type: 'PREV' }] : []),
    ] });
  }
  await engine.commit({ graph: 'g', mutations: [{ op: 'updateNode', id: 'n0', set: { f: 3 } }, { op: 'deleteNode', id: 'n3' }] });
  await engine.dropGraph('gone');
  return engine;
}

describe('recovery and following', () => {
  it.each([0, 3])('rebuilds the same graphs from the log (snapshot every %i)', async (every) => {
    const store = new MemoryStore();
    const engine = await build(store, every);
    const before = dump(engine.view('g'));
    await engine.close();
    const again = await openEngine({ store });
    expect(again.listGraphs().map((g) => g.name)).toEqual(['g']);
    expect(dump(again.view('g'))).toEqual(before);
    // A Float property that holds only an integer stays Float (the snapshot carries the catalogue).
    expect(again.view('g').catalogue.labels.find((l) => l.label === 'B')?.properties.f).toBe('Float');
    const next = await again.commit({ graph: 'g', mutations: [{ op: 'createNode', label: 'A' }] });
    expect(next.version).toBe(9);
    await again.close();
    if (every > 0) expect(store.graphs.get('g')?.snapshot?.version).toBe(6);
  });

  it.each([0, 2])('replays Int-to-Float widening to the same catalogue and epoch (snapshot every %i)', async (every) => {
    const store = new MemoryStore();
    const engine = await openEngine({ store, snapshotEvery: every });
    await engine.createGraph('g');
    await engine.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'a', label: 'Item', props: { price: 0, ticks: [1] } }] });
    await engine.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'b', label: 'Item', props: { price: 0.29 } }] });
    await engine.commit({ graph: 'g', mutations: [{ op: 'updateNode', id: 'a', set: { ticks: [1, 1.5] } }] });
    await engine.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'c', label: 'Item', props: { price: 2 } }] });
    const before = dump(engine.view('g'));
    expect(before.catalogue.labels[0]!.properties).toEqual({ price: 'Float', ticks: '[Float]' });
    await engine.close();
    if (every > 0) expect(store.graphs.get('g')?.snapshot?.version).toBe(4);
    const again = await openEngine({ store });
    expect(dump(again.view('g'))).toEqual(before);
    expect(again.view('g').catalogue.epoch).toBe(before.catalogue.epoch);
    await again.close();
  });

  it('applies a batch to memory only after append resolves, and nothing when append fails', async () => {
    let release!: () => void;
    let fail = false;
    // Resolves when the engine is inside `append` for a batch: the write is then in flight.
    let entered!: () => void;
    let appending = new Promise<void>((resolve) => { entered = resolve; });
    const inner = new MemoryPersistence();
    const gated: PersistenceAdapter = {
      kind: 'gated',
      load: () => inner.load(),
      writeSnapshot: (s) => inner.writeSnapshot(s),
      close: () => inner.close(),
      append: async (r: LogRecord) => {
        if (r.kind === 'batch') {
          const gate = new Promise<void>((resolve) => { release = resolve; });
          entered();
          await gate;
        }
        if (fail) throw new Error('disk full');
        return inner.append(r);
      },
    };
    const engine = await GraphEngine.open({ persistence: gated });
    await engine.createGraph('g');
    const pending = engine.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'a', label: 'P' }] });
    await appending;
    expect(engine.view('g').node('a')).toBeUndefined();
    release();
    await pending;
    expect(engine.view('g').node('a')).toBeDefined();
    fail = true;
    appending = new Promise<void>((resolve) => { entered = resolve; });
    const failing = engine.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'b', label: 'P' }] });
    await appending;
    expect(engine.view('g').node('b')).toBeUndefined();
    release();
    await expect(failing).rejects.toMatchObject({ code: 'TG_STORAGE_FAILED' });
    expect(engine.view('g').node('b')).toBeUndefined();
    expect(engine.view('g').version).toBe(1);
  });

  it('follows another instance over shared storage and publishes what it applies', async () => {
    const store = new MemoryStore();
    const a = await openEngine({ store });
    const b = await openEngine({ store });
    const seen: ChangeEvent[] = [];
    b.subscribe((e) => seen.push(e));
    await a.createGraph('g');
    await a.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'x', label: 'P', props: { v: 1 } }] });
    await a.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'y', label: 'P' }, { op: 'addEdge', src: 'x', tgt: 'y', type: 'K' }] });
    await vi.waitFor(() => expect(b.hasGraph('g') && b.view('g').version).toBe(2), FOLLOW);
    expect(dump(b.view('g'))).toEqual(dump(a.view('g')));
    expect(seen.map((e) => [e.kind, e.version])).toEqual([['createGraph', 0], ['batch', 1], ['batch', 2]]);
    // b is current, so its write wins the next version; a, not yet caught up, is told it lost.
    const won = b.commit({ graph: 'g', mutations: [{ op: 'deleteNode', id: 'y' }] });
    await expect(won).resolves.toMatchObject({ version: 3 });
    await vi.waitFor(() => expect(a.view('g').version).toBe(3), FOLLOW);
    expect(a.view('g').node('y')).toBeUndefined();
    await a.close();
    await b.close();
  });

  it('reports a lost race on shared storage as TG_VERSION_CONFLICT and then catches up', async () => {
    const store = new MemoryStore();
    const a = await openEngine({ store });
    const b = await openEngine({ store });
    await a.createGraph('g');
    await vi.waitFor(() => expect(b.hasGraph('g')).toBe(true), FOLLOW);
    const both = await Promise.allSettled([
      a.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'from-a', label: 'P' }] }),
      b.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'from-b', label: 'P' }] }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const lost = both.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toMatchObject({ code: 'TG_VERSION_CONFLICT' });
    await vi.waitFor(() => expect(a.view('g').version).toBe(1), FOLLOW);
    await vi.waitFor(() => expect(b.view('g').version).toBe(1), FOLLOW);
    expect(dump(a.view('g'))).toEqual(dump(b.view('g')));
    await a.close();
    await b.close();
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GraphEngine, GraphView } from '../../../src/graph/engine/index.ts';
import { MemoryStore } from '../../../src/graph/persist/index.ts';
import { openEngine } from './helpers.ts';

let engine: GraphEngine;

beforeEach(async () => {
  engine = await openEngine();
  await engine.createGraph('g');
  await engine.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'n', label: 'Counter', props: { value: 0 } }] });
});

afterEach(async () => {
  await engine.close();
});

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A read-modify-write of the counter, as a statement without an expected version does it. */
function increment(): Promise<number> {
  return engine.transact('g', async (view, commit) => {
    const value = view.node('n')!.props['value'] as number;
    await tick(); // planning may take its time: no other writer of the graph can slip in
    return (await commit({ mutations: [{ op: 'updateNode', id: 'n', set: { value: value + 1 } }] })).version;
  });
}

describe('GraphEngine.transact', () => {
  it('queues read-plan-commit steps of one graph: 16 concurrent increments lose none and get contiguous versions', async () => {
    const versions = await Promise.all(Array.from({ length: 16 }, increment));
    expect(versions.sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i + 2));
    expect(engine.view('g').node('n')!.props['value']).toBe(16);
  });

  it('still refuses an explicit stale expected version, inside a transaction as in a plain commit', async () => {
    await expect(engine.transact('g', (_view, commit) => commit({ expectedVersion: 0, mutations: [{ op: 'deleteNode', id: 'n' }] })))
      .rejects.toMatchObject({ code: 'TG_VERSION_CONFLICT', details: { expectedVersion: 0, currentVersion: 1 } });
    await expect(engine.commit({ graph: 'g', expectedVersion: 0, mutations: [{ op: 'deleteNode', id: 'n' }] }))
      .rejects.toMatchObject({ code: 'TG_VERSION_CONFLICT' });
    const ok = await engine.transact('g', (_view, commit) => commit({ expectedVersion: 1, mutations: [{ op: 'deleteNode', id: 'n' }] }));
    expect(ok.version).toBe(2);
  });

  it('shows the committed state to the rest of the transaction', async () => {
    const seen = await engine.transact('g', async (view, commit) => {
      await commit({ mutations: [{ op: 'updateNode', id: 'n', set: { value: 7 } }] });
      return [view.version, view.node('n')!.props['value']];
    });
    expect(seen).toEqual([2, 7]);
  });

  it('commits at most once, and never after it ended', async () => {
    await expect(engine.transact('g', async (_view, commit) => {
      await commit({ mutations: [{ op: 'updateNode', id: 'n', set: { value: 1 } }] });
      return commit({ mutations: [{ op: 'updateNode', id: 'n', set: { value: 2 } }] });
    })).rejects.toMatchObject({ code: 'TG_INTERNAL', message: 'A transaction committed twice.' });
    let late: ((b: { mutations: [] }) => Promise<unknown>) | undefined;
    await engine.transact('g', async (_view, commit) => {
      late = commit as never;
    });
    await expect(late!({ mutations: [] })).rejects.toMatchObject({ message: 'A transaction committed after it ended.' });
    expect(engine.view('g').version).toBe(2);
  });

  it('answers TG_GRAPH_NOT_FOUND for an unknown graph', async () => {
    await expect(engine.transact('nope', async () => 1)).rejects.toMatchObject({ code: 'TG_GRAPH_NOT_FOUND' });
  });
});

describe('GraphEngine.read', () => {
  it('holds commits back while a read that awaits is in progress; reads arriving meanwhile start after the commit', async () => {
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const long = engine.read('g', async (view: GraphView) => {
      const before = view.node('n')!.props['value'];
      await gate; // the read yields the event loop here
      events.push('long read ends');
      return [before, view.node('n')!.props['value'], view.version];
    });
    // The change feed hears of a batch the moment it is applied.
    engine.subscribe((event) => {
      if (event.kind === 'batch') events.push('commit applied');
    });
    const commit = engine.commit({ graph: 'g', mutations: [{ op: 'updateNode', id: 'n', set: { value: 5 } }] }).then((r) => r.version);
    for (let i = 0; i < 5; i++) await tick();
    expect(events).toEqual([]); // durable, but not applied under the read
    const later = engine.read('g', (view) => {
      events.push('later read');
      return view.node('n')!.props['value'];
    });
    for (let i = 0; i < 5; i++) await tick();
    expect(events).toEqual([]);
    release();
    expect(await long).toEqual([0, 0, 1]);
    expect(await commit).toBe(2);
    expect(await later).toBe(5);
    expect(events).toEqual(['long read ends', 'commit applied', 'later read']);
  });

  it('costs nothing to commits when no read is in progress', async () => {
    expect(await engine.read('g', (view) => view.version)).toBe(1);
    expect((await engine.commit({ graph: 'g', mutations: [{ op: 'updateNode', id: 'n', set: { value: 1 } }] })).version).toBe(2);
  });

  it('holds back batches followed from another instance too', async () => {
    const store = new MemoryStore();
    const a = await openEngine({ store });
    const b = await openEngine({ store });
    await a.createGraph('s');
    for (let i = 0; i < 5 && !b.hasGraph('s'); i++) await tick();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const long = b.read('s', async (view) => {
      await gate;
      return view.nodeCount;
    });
    await a.commit({ graph: 's', mutations: [{ op: 'createNode', id: 'x', label: 'X' }] });
    for (let i = 0; i < 5; i++) await tick();
    expect(b.view('s').version).toBe(0);
    release();
    expect(await long).toBe(0);
    for (let i = 0; i < 5 && b.view('s').version === 0; i++) await tick();
    expect(b.view('s').version).toBe(1);
    await a.close();
    await b.close();
  });
});

describe('GraphEngine.readNow', () => {
  it('answers a synchronous read at once, with no promise', () => {
    const answer = engine.readNow('g', (view) => view.node('n')!.props['value']);
    expect(answer).toBe(0);
  });

  it('holds commits back while its work awaits, as read does, and lets them apply once it ends', async () => {
    const events: string[] = [];
    engine.subscribe((event) => {
      if (event.kind === 'batch') events.push('commit applied');
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const long = engine.readNow('g', async (view) => {
      await gate;
      events.push('read ends');
      return view.node('n')!.props['value'];
    });
    expect(long).toBeInstanceOf(Promise);
    const commit = engine.commit({ graph: 'g', mutations: [{ op: 'updateNode', id: 'n', set: { value: 7 } }] });
    for (let i = 0; i < 5; i++) await tick();
    expect(events).toEqual([]);
    release();
    expect(await long).toBe(0);
    await commit;
    expect(events).toEqual(['read ends', 'commit applied']);
  });

  it('arriving while a commit waits for a read in progress, it reads after that commit', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const long = engine.read('g', async () => gate);
    const commit = engine.commit({ graph: 'g', mutations: [{ op: 'updateNode', id: 'n', set: { value: 3 } }] });
    for (let i = 0; i < 5; i++) await tick();
    const read = engine.readNow('g', (view) => view.node('n')!.props['value']);
    expect(read).toBeInstanceOf(Promise);
    release();
    await long;
    await commit;
    expect(await read).toBe(3);
  });

  it('throws what its work throws, and a later commit is not held back by it', async () => {
    expect(() => engine.readNow('g', () => {
      throw new Error('boom');
    })).toThrow('boom');
    expect((await engine.commit({ graph: 'g', mutations: [{ op: 'updateNode', id: 'n', set: { value: 2 } }] })).version).toBe(2);
  });
});

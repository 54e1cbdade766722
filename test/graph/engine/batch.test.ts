import { describe, expect, it } from 'vitest';
import type { ChangeEvent, MutationInput } from '../../../src/graph/engine/index.ts';
import { openEngine } from './helpers.ts';

async function seeded() {
  const engine = await openEngine();
  await engine.createGraph('kg');
  await engine.commit({
    graph: 'kg',
    mutations: [
      { op: 'createNode', id: 'a', label: 'Person', props: { name: 'Ada', age: 36, score: 1.5 } },
      { op: 'createNode', id: 'b', label: 'Person', props: { name: 'Bob' } },
      { op: 'addEdge', src: 'a', tgt: 'b', type: 'KNOWS' },
    ],
  });
  return engine;
}

describe('batches', () => {
  it('bumps the version once per batch and answers ids per mutation', async () => {
    const engine = await seeded();
    const view = engine.view('kg');
    expect(view.version).toBe(1);
    const result = await engine.commit({
      graph: 'kg',
      mutations: [
        { op: 'createNode', label: 'Person', props: { name: 'Cy' } },
        { op: 'updateNode', id: 'a', set: { age: 37 } },
        { op: 'addEdge', src: 'b', tgt: 'a', type: 'KNOWS' },
      ],
    });
    expect(result.version).toBe(2);
    expect(result.ids).toEqual(['gen-0001', 'a', null]);
    expect(view.version).toBe(2);
    expect(view.node('gen-0001')).toEqual({ id: 'gen-0001', label: 'Person', props: { name: 'Cy' } });
    expect(view.node('a')?.props).toEqual({ age: 37, name: 'Ada', score: 1.5 });
    expect(engine.listGraphs()).toEqual([{ name: 'kg', version: 2, nodes: 3, edges: 2 }]);
  });

  it('refuses a stale expectedVersion with TG_VERSION_CONFLICT and changes nothing', async () => {
    const engine = await seeded();
    await expect(engine.commit({ graph: 'kg', expectedVersion: 0, mutations: [{ op: 'deleteNode', id: 'a' }] }))
      .rejects.toMatchObject({ code: 'TG_VERSION_CONFLICT', message: expect.stringContaining('is at version 1; the batch expected version 0') });
    expect(engine.view('kg').node('a')).toBeDefined();
    expect(engine.view('kg').version).toBe(1);
    const ok = await engine.commit({ graph: 'kg', expectedVersion: 1, mutations: [{ op: 'deleteNode', id: 'a' }] });
    expect(ok.version).toBe(2);
  });

  it('lets exactly one of two racing batches with the same expectedVersion win', async () => {
    const engine = await seeded();
    const m: MutationInput[] = [{ op: 'createNode', label: 'Person' }];
    const results = await Promise.allSettled([
      engine.commit({ graph: 'kg', expectedVersion: 1, mutations: m }),
      engine.commit({ graph: 'kg', expectedVersion: 1, mutations: m }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(engine.view('kg').version).toBe(2);
  });

  it.each([
    ['a missing node', [{ op: 'updateNode', id: 'zz', set: {} }], 'TG_NODE_NOT_FOUND', 'mutations[1]: id: no node has id "zz"'],
    ['a duplicate id', [{ op: 'createNode', id: 'a', label: 'Person' }], 'TG_NODE_EXISTS', 'already exists'],
    ['a bad label', [{ op: 'createNode', label: 'not-a-name' }], 'TG_NAME_INVALID', 'A label must be a GraphQL name'],
    ['a reserved label', [{ op: 'createNode', label: '__Type' }], 'TG_NAME_INVALID', 'not starting with "__"'],
    ['a bad property name', [{ op: 'createNode', label: 'X', props: { 'a b': 1 } }], 'TG_NAME_INVALID', 'property name'],
    ['id as a property', [{ op: 'createNode', label: 'X', props: { id: 'x' } }], 'TG_NAME_INVALID', 'reserved for the node id'],
    ['a bad edge type', [{ op: 'addEdge', src: 'a', tgt: 'b', type: '1X' }], 'TG_NAME_INVALID', 'edge type'],
    ['NaN', [{ op: 'createNode', label: 'X', props: { v: Number.NaN } }], 'TG_VALUE_INVALID', 'props.v: expected a finite number'],
    ['a nested object', [{ op: 'createNode', label: 'X', props: { v: { a: 1 } } }], 'TG_VALUE_INVALID', 'nested objects'],
    ['a type change', [{ op: 'updateNode', id: 'a', set: { age: 'old' } }], 'TG_VALUE_INVALID', 'property "age" of label Person is Int (fixed by its first write; only Int widens to Float); got String "old"'],
    ['a float list into an Int property', [{ op: 'updateNode', id: 'a', set: { age: [36.5] } }], 'TG_VALUE_INVALID', 'is Int'],
    ['a float into a String property', [{ op: 'updateNode', id: 'a', set: { name: 0.5 } }], 'TG_VALUE_INVALID', 'is String'],
    ['an empty list for a new property', [{ op: 'updateNode', id: 'a', set: { tags: [] } }], 'TG_VALUE_INVALID', 'empty list cannot fix'],
    ['a missing edge', [{ op: 'removeEdge', src: 'b', tgt: 'a', type: 'KNOWS' }], 'TG_EDGE_NOT_FOUND', 'no KNOWS edge'],
    ['an unknown op', [{ op: 'mergeNode', id: 'a' }], 'TG_BAD_REQUEST', 'op one of createNode'],
    ['an unknown field', [{ op: 'deleteNode', id: 'a', cascade: true }], 'TG_BAD_REQUEST', 'unknown field "cascade"'],
    ['an empty id', [{ op: 'createNode', id: '', label: 'X' }], 'TG_VALUE_INVALID', 'node id'],
  ] as const)('refuses %s, whole batch, nothing changes', async (_name, tail, code, text) => {
    const engine = await seeded();
    const events: ChangeEvent[] = [];
    engine.subscribe((e) => events.push(e));
    const before = [...engine.view('kg').allNodes()].map((n) => JSON.stringify(n));
    const mutations = [{ op: 'createNode', id: 'fresh', label: 'Person', props: { name: 'F' } }, ...tail] as unknown as MutationInput[];
    const attempt = engine.commit({ graph: 'kg', mutations });
    await expect(attempt).rejects.toMatchObject({ code });
    await expect(attempt).rejects.toThrow(text);
    expect([...engine.view('kg').allNodes()].map((n) => JSON.stringify(n))).toEqual(before);
    expect(engine.view('kg').version).toBe(1);
    expect(events).toEqual([]);
  });

  it('sees its own earlier mutations: create then link, delete then recreate', async () => {
    const engine = await seeded();
    await engine.commit({
      graph: 'kg',
      mutations: [
        { op: 'createNode', id: 'c', label: 'Org', props: { name: 'C' } },
        { op: 'addEdge', src: 'a', tgt: 'c', type: 'WORKS_AT' },
        { op: 'deleteNode', id: 'b' },
        { op: 'createNode', id: 'b', label: 'Org' },
        { op: 'addEdge', src: 'a', tgt: 'b', type: 'WORKS_AT' },
      ],
    });
    const view = engine.view('kg');
    expect(view.node('b')?.label).toBe('Org');
    expect(view.expand(['a'], 'KNOWS', 'out').get('a')).toEqual([]);
    expect(view.expand(['a'], 'WORKS_AT', 'out').get('a')?.map((n) => n.id)).toEqual(['b', 'c']);
    // The old KNOWS edge died with the old b: removing it now is an error.
    await expect(engine.commit({ graph: 'kg', mutations: [{ op: 'removeEdge', src: 'a', tgt: 'b', type: 'KNOWS' }] }))
      .rejects.toMatchObject({ code: 'TG_EDGE_NOT_FOUND' });
  });

  it('sees edges die with a node deleted in the batch, also one re-created and linked again', async () => {
    const engine = await seeded();
    const attempt = (tail: MutationInput[]) => engine.commit({ graph: 'kg', mutations: [
      { op: 'createNode', id: 'x', label: 'P' },
      { op: 'createNode', id: 'y', label: 'P' },
      { op: 'addEdge', src: 'x', tgt: 'y', type: 'E' },
      { op: 'deleteNode', id: 'x' },
      { op: 'createNode', id: 'x', label: 'P' },
      { op: 'addEdge', src: 'x', tgt: 'y', type: 'E' },
      { op: 'addEdge', src: 'y', tgt: 'y', type: 'E' },
      { op: 'deleteNode', id: 'x' },
      { op: 'createNode', id: 'x', label: 'P' },
      ...tail,
    ] });
    await expect(attempt([{ op: 'removeEdge', src: 'x', tgt: 'y', type: 'E' }])).rejects.toMatchObject({ code: 'TG_EDGE_NOT_FOUND' });
    await expect(attempt([{ op: 'deleteNode', id: 'y' }, { op: 'createNode', id: 'y', label: 'P' }, { op: 'removeEdge', src: 'y', tgt: 'y', type: 'E' }]))
      .rejects.toMatchObject({ code: 'TG_EDGE_NOT_FOUND' });
    const ok = await attempt([{ op: 'removeEdge', src: 'y', tgt: 'y', type: 'E' }]);
    expect(ok.version).toBe(2);
    expect(engine.view('kg').edgeCount).toBe(1);
  });

  it('deleteNode removes its edges in both directions', async () => {
    const engine = await seeded();
    await engine.commit({ graph: 'kg', mutations: [{ op: 'addEdge', src: 'b', tgt: 'b', type: 'SELF' }, { op: 'deleteNode', id: 'b' }] });
    const view = engine.view('kg');
    expect(view.edgeCount).toBe(0);
    expect(view.expand(['a'], null, 'both').get('a')).toEqual([]);
  });

  it('treats null as unset and keeps a duplicate addEdge a no-op', async () => {
    const engine = await seeded();
    const r = await engine.commit({
      graph: 'kg',
      mutations: [{ op: 'updateNode', id: 'a', set: { score: null, name: 'Ada L.' } }, { op: 'addEdge', src: 'a', tgt: 'b', type: 'KNOWS' }],
    });
    expect(r.mutations[0]).toEqual({ op: 'updateNode', id: 'a', set: { name: 'Ada L.' }, unset: ['score'] });
    expect(engine.view('kg').node('a')?.props).toEqual({ age: 36, name: 'Ada L.' });
    expect(engine.view('kg').edgeCount).toBe(1);
    expect(r.version).toBe(2);
  });

  it('accepts Int values into a Float property and lists of scalars', async () => {
    const engine = await seeded();
    await engine.commit({ graph: 'kg', mutations: [
      { op: 'updateNode', id: 'a', set: { score: 2, tags: ['x', 'y'] } },
      { op: 'updateNode', id: 'b', set: { tags: [] } },
    ] });
    const cat = engine.view('kg').catalogue;
    expect(cat.labels[0]).toEqual({ label: 'Person', properties: { age: 'Int', name: 'String', score: 'Float', tags: '[String]' } });
    expect(engine.view('kg').node('b')?.props).toEqual({ name: 'Bob', tags: [] });
  });

  it('widens an Int property to Float when a non-integral number arrives (a catalogue change), never back', async () => {
    const engine = await seeded();
    const events: ChangeEvent[] = [];
    engine.subscribe((e) => events.push(e));
    const view = engine.view('kg');
    const before = view.catalogue.epoch;
    // A price whose first value was 0, then 0.29: ordinary data, not a type error.
    const first = await engine.commit({ graph: 'kg', mutations: [{ op: 'createNode', id: 'p1', label: 'Item', props: { price: 0, counts: [1, 2] } }] });
    const mid = view.catalogue.epoch;
    expect(first.catalogueChanged).toBe(true);
    expect(view.catalogue.labels.find((l) => l.label === 'Item')?.properties).toEqual({ counts: '[Int]', price: 'Int' });
    const widened = await engine.commit({ graph: 'kg', mutations: [
      { op: 'createNode', id: 'p2', label: 'Item', props: { price: 0.29 } },
      { op: 'updateNode', id: 'p1', set: { counts: [1, 2.5] } },
      { op: 'updateNode', id: 'a', set: { age: 36.5 } },
    ] });
    expect(widened.catalogueChanged).toBe(true);
    expect(widened.epoch).not.toBe(mid);
    expect(events.at(-1)).toMatchObject({ catalogueChanged: true, epoch: widened.epoch });
    expect(view.catalogue.labels.find((l) => l.label === 'Item')?.properties).toEqual({ counts: '[Float]', price: 'Float' });
    expect(view.catalogue.labels.find((l) => l.label === 'Person')?.properties.age).toBe('Float');
    expect(view.node('p1')?.props).toEqual({ counts: [1, 2.5], price: 0 });
    // Integers still fit; the type never narrows back, and other kinds are still refused.
    const again = await engine.commit({ graph: 'kg', mutations: [{ op: 'createNode', id: 'p3', label: 'Item', props: { price: 3, counts: [4] } }] });
    expect(again.catalogueChanged).toBe(false);
    expect(view.catalogue.labels.find((l) => l.label === 'Item')?.properties).toEqual({ counts: '[Float]', price: 'Float' });
    await expect(engine.commit({ graph: 'kg', mutations: [{ op: 'createNode', id: 'p4', label: 'Item', props: { price: 'free' } }] }))
      .rejects.toMatchObject({ code: 'TG_VALUE_INVALID' });
    expect(before).not.toBe(mid);
  });

  it('widens within one batch: 0 then 0.29 for the same new property', async () => {
    const engine = await seeded();
    const r = await engine.commit({ graph: 'kg', mutations: [
      { op: 'createNode', id: 's1', label: 'Score', props: { v: 0, l: [1] } },
      { op: 'createNode', id: 's2', label: 'Score', props: { v: 0.29, l: [0.5] } },
      { op: 'createNode', id: 's3', label: 'Score', props: { v: 7, l: [2] } },
    ] });
    expect(r.version).toBe(2);
    expect(engine.view('kg').catalogue.labels.find((l) => l.label === 'Score')?.properties).toEqual({ l: '[Float]', v: 'Float' });
  });

  it('validates graph names and refuses unknown graphs', async () => {
    const engine = await openEngine();
    await expect(engine.createGraph('1bad')).rejects.toMatchObject({ code: 'TG_GRAPH_NAME_INVALID' });
    await expect(engine.createGraph('a'.repeat(65))).rejects.toMatchObject({ code: 'TG_GRAPH_NAME_INVALID' });
    await engine.createGraph('ok-name_1');
    await expect(engine.createGraph('ok-name_1')).rejects.toMatchObject({ code: 'TG_GRAPH_EXISTS' });
    expect(() => engine.view('nope')).toThrow(expect.objectContaining({ code: 'TG_GRAPH_NOT_FOUND' }));
    await expect(engine.commit({ graph: 'nope', mutations: [{ op: 'createNode', label: 'X' }] })).rejects.toMatchObject({ code: 'TG_GRAPH_NOT_FOUND' });
    await engine.dropGraph('ok-name_1');
    expect(engine.listGraphs()).toEqual([]);
    await expect(engine.dropGraph('ok-name_1')).rejects.toMatchObject({ code: 'TG_GRAPH_NOT_FOUND' });
  });
});

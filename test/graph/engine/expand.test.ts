import { describe, expect, it } from 'vitest';
import { openEngine } from './helpers.ts';

async function graph() {
  const engine = await openEngine();
  await engine.createGraph('g');
  await engine.commit({ graph: 'g', mutations: [
    ...['a', 'b', 'c', 'd'].map((id) => ({ op: 'createNode' as const, id, label: 'P' })),
    { op: 'createNode', id: 'doc', label: 'Doc' },
    { op: 'addEdge', src: 'a', tgt: 'c', type: 'KNOWS' },
    { op: 'addEdge', src: 'a', tgt: 'b', type: 'KNOWS' },
    { op: 'addEdge', src: 'b', tgt: 'a', type: 'KNOWS' },
    { op: 'addEdge', src: 'a', tgt: 'b', type: 'LIKES' },
    { op: 'addEdge', src: 'a', tgt: 'a', type: 'LIKES' },
    { op: 'addEdge', src: 'a', tgt: 'doc', type: 'AUTHORED' },
    { op: 'addEdge', src: 'd', tgt: 'doc', type: 'AUTHORED' },
  ] });
  return engine.view('g');
}

const idsOf = (m: Map<string, readonly { id: string }[]>) => Object.fromEntries([...m].map(([k, v]) => [k, v.map((n) => n.id)]));

describe('frontier expansion', () => {
  it('expands a whole frontier over one type and direction, in id order', async () => {
    const view = await graph();
    expect(idsOf(view.expand(['a', 'b', 'c', 'missing'], 'KNOWS', 'out'))).toEqual({ a: ['b', 'c'], b: ['a'], c: [] });
    expect(idsOf(view.expand(['doc'], 'AUTHORED', 'in'))).toEqual({ doc: ['a', 'd'] });
  });

  it('merges every type and both directions, ties by type then out before in, a self-loop once', async () => {
    const view = await graph();
    expect(idsOf(view.expand(['a'], null, 'out'))).toEqual({ a: ['a', 'b', 'b', 'c', 'doc'] });
    expect(idsOf(view.expand(['a'], 'KNOWS', 'both'))).toEqual({ a: ['b', 'b', 'c'] });
    expect(idsOf(view.expand(['a'], 'LIKES', 'both'))).toEqual({ a: ['a', 'b'] });
    const hits = view.edges(['a'], null, 'both').get('a')!;
    expect(hits.map((h) => [h.edge.src, h.edge.type, h.edge.tgt])).toEqual([
      ['a', 'LIKES', 'a'], ['a', 'KNOWS', 'b'], ['b', 'KNOWS', 'a'], ['a', 'LIKES', 'b'], ['a', 'KNOWS', 'c'], ['a', 'AUTHORED', 'doc'],
    ]);
  });

  it('lists every edge in (src, type, tgt) order', async () => {
    const view = await graph();
    expect([...view.allEdges()].map((e) => `${e.src}-${e.type}->${e.tgt}`)).toEqual([
      'a-AUTHORED->doc', 'a-KNOWS->b', 'a-KNOWS->c', 'a-LIKES->a', 'a-LIKES->b', 'b-KNOWS->a', 'd-AUTHORED->doc',
    ]);
    expect(view.edgeCount).toBe(7);
  });
});

describe('expandEach', () => {
  it('answers one list per frontier position, from records or ids, repeats included', async () => {
    const view = await graph();
    const a = view.node('a')!;
    const lists = view.expandEach([a, 'b', 'missing', a], 'KNOWS', 'out');
    expect(lists.map((l) => l.map((n) => n.id))).toEqual([['b', 'c'], ['a'], [], ['b', 'c']]);
    expect(view.expandEach(['a'], null, 'both')[0]!.map((n) => n.id)).toEqual(['a', 'b', 'b', 'b', 'c', 'doc']);
  });
});

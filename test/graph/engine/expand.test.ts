import fc from 'fast-check';
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

describe('expandEach over every kind of frontier entry', () => {
  const types = [null, 'KNOWS', 'LIKES', 'AUTHORED', 'NONE'] as const;
  const directions = ['out', 'in', 'both'] as const;

  it('answers for a stored cell, an id and a plain copy of a record what expand answers for the id', async () => {
    const view = await graph();
    const ids = ['a', 'b', 'c', 'd', 'doc', 'missing'];
    await fc.assert(fc.property(
      fc.array(fc.tuple(fc.constantFrom(...ids), fc.constantFrom('cell', 'id', 'copy')), { maxLength: 12 }),
      fc.constantFrom(...types), fc.constantFrom(...directions),
      (picks, type, direction) => {
        const frontier = picks.map(([id, as]) => {
          const cell = view.node(id);
          if (as === 'id' || cell === undefined) return id;
          // A copy is an equal record that is not the stored cell: it must be looked up by its id.
          return as === 'cell' ? cell : { id: cell.id, label: cell.label, props: { ...cell.props } };
        });
        const lists = view.expandEach(frontier, type, direction);
        expect(lists).toHaveLength(frontier.length);
        const byId = view.expand(ids, type, direction);
        picks.forEach(([id], i) => {
          expect(lists[i]!.map((n) => n.id)).toEqual((byId.get(id) ?? []).map((n) => n.id));
        });
      },
    ));
  });
});

describe('edges of one type in one direction', () => {
  it('answers the hits the general merge answers, filtered to that type and direction, in the same order', async () => {
    const view = await graph();
    const ids = ['a', 'b', 'c', 'd', 'doc', 'missing'];
    for (const type of ['KNOWS', 'LIKES', 'AUTHORED', 'NONE']) {
      for (const direction of ['out', 'in'] as const) {
        const fast = view.edges(ids, type, direction);
        const general = view.edges(ids, null, direction);
        expect([...fast.keys()]).toEqual([...general.keys()]);
        for (const [id, hits] of general) {
          const expected = hits.filter((h) => h.edge.type === type && (direction === 'out' ? h.edge.src === id : h.edge.tgt === id));
          expect(fast.get(id)!.map((h) => [h.edge.src, h.edge.type, h.edge.tgt, h.node.id])).toEqual(expected.map((h) => [h.edge.src, h.edge.type, h.edge.tgt, h.node.id]));
        }
      }
    }
  });
});

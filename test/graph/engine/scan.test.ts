import { describe, expect, it } from 'vitest';
import { openEngine } from './helpers.ts';

async function people() {
  const engine = await openEngine();
  await engine.createGraph('g');
  const ids = ['p05', 'p01', 'p09', 'p03', 'p07', 'p02', 'p08', 'p04', 'p06', 'p10'];
  await engine.commit({
    graph: 'g',
    mutations: ids.map((id, i) => ({ op: 'createNode' as const, id, label: 'Person', props: { team: i % 2 === 0 ? 'red' : 'blue', level: i % 3, ...(i === 4 ? {} : { nick: `n${i}` }) } })),
  });
  await engine.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'o1', label: 'Org', props: { team: 'red' } }] });
  return engine;
}

const ids = (nodes: readonly { id: string }[]) => nodes.map((n) => n.id);

describe('label scans', () => {
  it('lists a label in id order, nothing of other labels, [] for an unknown label', async () => {
    const view = (await people()).view('g');
    expect(ids(view.scan('Person'))).toEqual(['p01', 'p02', 'p03', 'p04', 'p05', 'p06', 'p07', 'p08', 'p09', 'p10']);
    expect(ids(view.scan('Org'))).toEqual(['o1']);
    expect(view.scan('Nope')).toEqual([]);
    expect(view.count('Person')).toBe(10);
  });

  it('filters by equality on one or several properties, and by id', async () => {
    const view = (await people()).view('g');
    expect(ids(view.scan('Person', { filter: { team: 'red' } }))).toEqual(['p05', 'p06', 'p07', 'p08', 'p09']);
    expect(ids(view.scan('Person', { filter: { team: 'red', level: 0 } }))).toEqual(['p05', 'p08']);
    expect(view.count('Person', { team: 'blue', level: 1 })).toBe(2);
    expect(ids(view.scan('Person', { filter: { id: 'p05', team: 'red' } }))).toEqual(['p05']);
    expect(view.scan('Person', { filter: { id: 'o1' } })).toEqual([]);
    expect(view.scan('Person', { filter: { team: 'green' } })).toEqual([]);
    expect(view.scan('Person', { filter: { level: '0' } })).toEqual([]); // no coercion
  });

  it('matches null against nodes without the property', async () => {
    const view = (await people()).view('g');
    expect(ids(view.scan('Person', { filter: { nick: null } }))).toEqual(['p07']);
  });

  it('pages with keyset cursors, first and last', async () => {
    const view = (await people()).view('g');
    expect(ids(view.scan('Person', { first: 3 }))).toEqual(['p01', 'p02', 'p03']);
    expect(ids(view.scan('Person', { after: 'p03', first: 2 }))).toEqual(['p04', 'p05']);
    expect(ids(view.scan('Person', { before: 'p03' }))).toEqual(['p01', 'p02']);
    expect(ids(view.scan('Person', { before: 'p09', last: 2 }))).toEqual(['p07', 'p08']);
    expect(ids(view.scan('Person', { after: 'p02', before: 'p06', filter: { team: 'red' } }))).toEqual(['p05']);
    expect(ids(view.scan('Person', { last: 2, filter: { team: 'blue' } }))).toEqual(['p04', 'p10']);
    expect(ids(view.scan('Person', { after: 'p035', first: 1 }))).toEqual(['p04']); // a cursor need not exist
    expect(view.scan('Person', { first: 0 })).toEqual([]);
    expect(() => view.scan('Person', { first: -1 })).toThrow(expect.objectContaining({ code: 'TG_BAD_REQUEST' }));
  });

  it('keeps keyset pages stable while nodes are inserted and deleted between pages', async () => {
    const engine = await people();
    const view = engine.view('g');
    const page1 = view.scan('Person', { first: 3 });
    await engine.commit({ graph: 'g', mutations: [
      { op: 'createNode', id: 'p00', label: 'Person' }, { op: 'createNode', id: 'p035', label: 'Person' }, { op: 'deleteNode', id: 'p02' },
    ] });
    const page2 = view.scan('Person', { after: page1.at(-1)!.id, first: 3 });
    expect(ids(page2)).toEqual(['p035', 'p04', 'p05']);
  });

  it('keeps equality indexes current after updates and deletes', async () => {
    const engine = await people();
    const view = engine.view('g');
    expect(view.count('Person', { team: 'red' })).toBe(5); // builds the index
    await engine.commit({ graph: 'g', mutations: [
      { op: 'updateNode', id: 'p01', set: { team: 'red' } },
      { op: 'updateNode', id: 'p03', set: { team: null } },
      { op: 'deleteNode', id: 'p05' },
      { op: 'createNode', id: 'p11', label: 'Person', props: { team: 'red' } },
    ] });
    expect(ids(view.scan('Person', { filter: { team: 'red' } }))).toEqual(['p01', 'p06', 'p07', 'p08', 'p09', 'p11']);
    expect(ids(view.scan('Person', { filter: { team: null } }))).toEqual(['p03']);
  });

  it('orders ids by code point, astral characters after U+FFxx', async () => {
    const engine = await openEngine();
    await engine.createGraph('u');
    const all = ['b', '\u{1F600}', 'a', '\uFF21', 'ab', 'Z'];
    await engine.commit({ graph: 'u', mutations: all.map((id) => ({ op: 'createNode' as const, id, label: 'T' })) });
    const view = engine.view('u');
    expect(ids(view.scan('T'))).toEqual(['Z', 'a', 'ab', 'b', '\uFF21', '\u{1F600}']);
    expect(ids(view.scan('T', { after: '\uFF21' }))).toEqual(['\u{1F600}']);
    expect(ids([...view.allNodes()])).toEqual(['Z', 'a', 'ab', 'b', '\uFF21', '\u{1F600}']);
  });

  it('hands out plain-looking records whose props are frozen', async () => {
    const view = (await people()).view('g');
    const rec = view.node('p01')!;
    expect(JSON.parse(JSON.stringify(rec))).toEqual({ id: 'p01', label: 'Person', props: { level: 1, nick: 'n1', team: 'blue' } });
    expect(Object.keys(rec)).toEqual(['id', 'label', 'props']);
    expect(Object.isFrozen(rec.props)).toBe(true);
  });
});

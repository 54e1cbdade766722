import { describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../../src/graph/engine/index.ts';
import { openEngine } from './helpers.ts';

describe('catalogue and change feed', () => {
  it('changes the epoch only when labels, property types or edge label pairs change', async () => {
    const engine = await openEngine();
    await engine.createGraph('g');
    const view = engine.view('g');
    const epochs: string[] = [view.catalogue.epoch];
    const step = async (mutations: Parameters<typeof engine.commit>[0]['mutations']) => {
      const r = await engine.commit({ graph: 'g', mutations });
      epochs.push(r.epoch);
      return r.catalogueChanged;
    };
    expect(await step([{ op: 'createNode', id: 'a', label: 'P', props: { n: 1 } }])).toBe(true);
    expect(await step([{ op: 'createNode', id: 'b', label: 'P', props: { n: 2 } }])).toBe(false);
    expect(await step([{ op: 'updateNode', id: 'b', set: { s: 'x' } }])).toBe(true);
    expect(await step([{ op: 'addEdge', src: 'a', tgt: 'b', type: 'K' }])).toBe(true);
    expect(await step([{ op: 'addEdge', src: 'b', tgt: 'a', type: 'K' }])).toBe(false);
    expect(await step([{ op: 'deleteNode', id: 'b' }])).toBe(false); // the catalogue only grows
    expect(epochs[1]).not.toBe(epochs[0]);
    expect(epochs[2]).toBe(epochs[1]);
    expect(epochs[3]).not.toBe(epochs[2]);
    expect(epochs[5]).toBe(epochs[4]);
    expect(view.catalogue).toEqual({
      epoch: epochs[6],
      labels: [{ label: 'P', properties: { n: 'Int', s: 'String' } }],
      edgeTypes: [{ type: 'K', pairs: [{ src: 'P', tgt: 'P' }] }],
    });
  });

  it('gives equal catalogues equal epochs in different engines', async () => {
    const one = await openEngine();
    const two = await openEngine();
    for (const e of [one, two]) {
      await e.createGraph('g');
      await e.commit({ graph: 'g', mutations: [{ op: 'createNode', label: 'P', props: { x: 1.5 } }] });
    }
    expect(one.view('g').catalogue.epoch).toBe(two.view('g').catalogue.epoch);
  });

  it('publishes every committed batch once, in order, and not failed ones', async () => {
    const engine = await openEngine();
    const events: ChangeEvent[] = [];
    const stop = engine.subscribe((e) => events.push(e));
    await engine.createGraph('g');
    await engine.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'a', label: 'P' }] });
    await engine.commit({ graph: 'g', mutations: [{ op: 'deleteNode', id: 'zz' }] }).catch(() => undefined);
    await engine.commit({ graph: 'g', mutations: [{ op: 'updateNode', id: 'a', set: { v: true } }] });
    stop();
    await engine.dropGraph('g');
    expect(events.map((e) => [e.kind, e.graph, e.version, e.mutations.length, e.catalogueChanged])).toEqual([
      ['createGraph', 'g', 0, 0, true],
      ['batch', 'g', 1, 1, true],
      ['batch', 'g', 2, 1, true],
    ]);
    expect(events[1]!.mutations).toEqual([{ op: 'createNode', id: 'a', label: 'P', props: {} }]);
  });

  it('survives a listener that throws', async () => {
    const engine = await openEngine();
    engine.subscribe(() => {
      throw new Error('boom');
    });
    await engine.createGraph('g');
    const r = await engine.commit({ graph: 'g', mutations: [{ op: 'createNode', label: 'P' }] });
    expect(r.version).toBe(1);
  });
});

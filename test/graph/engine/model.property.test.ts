import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Direction, MutationInput, Scalar } from '../../../src/graph/engine/index.ts';
import { MemoryStore } from '../../../src/graph/persist/index.ts';
import { openEngine } from './helpers.ts';

/**
 * A naive model of the engine (arrays, filters, sorts) and a property: random batches applied to
 * both agree on success or error code, versions, scans, counts and expansions.
 */
type Val = string | number | boolean;
interface MNode { id: string; label: string; props: Record<string, Val> }
interface Model { version: number; nodes: MNode[]; edges: { src: string; tgt: string; type: string }[]; types: Map<string, string> }

const IDS = ['n0', 'n1', 'n2', 'n3', 'n4'];
const LABELS = ['A', 'B'];
const TYPES = ['E', 'F'];

const kind = (v: Val): string => (typeof v === 'string' ? 'String' : typeof v === 'boolean' ? 'Boolean' : Number.isInteger(v) ? 'Int' : 'Float');

function applyModel(model: Model, muts: MutationInput[], expected: number | undefined): { model: Model; code?: string } {
  if (expected !== undefined && expected !== model.version) return { model, code: 'TG_VERSION_CONFLICT' };
  const m: Model = { version: model.version + 1, nodes: model.nodes.map((n) => ({ ...n, props: { ...n.props } })), edges: [...model.edges], types: new Map(model.types) };
  const find = (id: string) => m.nodes.find((n) => n.id === id);
  const setProps = (node: MNode, props: Record<string, Scalar>): string | undefined => {
    for (const [k, v] of Object.entries(props)) {
      if (v === null) { delete node.props[k]; continue; }
      const key = `${node.label}.${k}`;
      const declared = m.types.get(key);
      const got = kind(v);
      if (declared === undefined || (declared === 'Int' && got === 'Float')) m.types.set(key, got);
      else if (declared !== got && !(declared === 'Float' && got === 'Int')) return 'TG_VALUE_INVALID';
      node.props[k] = v;
    }
    return undefined;
  };
  for (const mu of muts) {
    switch (mu.op) {
      case 'createNode': {
        if (find(mu.id!)) return { model, code: 'TG_NODE_EXISTS' };
        const node: MNode = { id: mu.id!, label: mu.label, props: {} };
        const err = setProps(node, (mu.props ?? {}) as Record<string, Scalar>);
        if (err) return { model, code: err };
        m.nodes.push(node);
        break;
      }
      case 'updateNode': {
        const node = find(mu.id);
        if (!node) return { model, code: 'TG_NODE_NOT_FOUND' };
        const err = setProps(node, mu.set as Record<string, Scalar>);
        if (err) return { model, code: err };
        break;
      }
      case 'deleteNode':
        if (!find(mu.id)) return { model, code: 'TG_NODE_NOT_FOUND' };
        m.nodes = m.nodes.filter((n) => n.id !== mu.id);
        m.edges = m.edges.filter((e) => e.src !== mu.id && e.tgt !== mu.id);
        break;
      case 'addEdge':
      case 'removeEdge': {
        if (!find(mu.src) || !find(mu.tgt)) return { model, code: 'TG_NODE_NOT_FOUND' };
        const at = m.edges.findIndex((e) => e.src === mu.src && e.tgt === mu.tgt && e.type === mu.type);
        if (mu.op === 'addEdge' && at < 0) m.edges.push({ src: mu.src, tgt: mu.tgt, type: mu.type });
        if (mu.op === 'removeEdge') {
          if (at < 0) return { model, code: 'TG_EDGE_NOT_FOUND' };
          m.edges.splice(at, 1);
        }
        break;
      }
    }
  }
  return { model: m };
}

function modelScan(model: Model, label: string, filter: Record<string, Scalar>, after?: string, first?: number): string[] {
  const ids = model.nodes
    .filter((n) => n.label === label && Object.entries(filter).every(([k, v]) => (v === null ? n.props[k] === undefined : n.props[k] === v)))
    .map((n) => n.id).sort().filter((id) => after === undefined || id > after);
  return first === undefined ? ids : ids.slice(0, first);
}

function modelExpand(model: Model, id: string, type: string | null, dir: Direction): string[] {
  const steps: [string, string, number][] = [];
  for (const e of model.edges) {
    if (type !== null && e.type !== type) continue;
    if (dir !== 'in' && e.src === id) steps.push([e.tgt, e.type, 0]);
    if (dir !== 'out' && e.tgt === id && !(dir === 'both' && e.src === id)) steps.push([e.src, e.type, 1]);
  }
  steps.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[2] - b[2]));
  return steps.map((s) => s[0]);
}

const value = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom(0.5, 1.5), fc.constantFrom('a', 'b'), fc.boolean(), fc.constant(null));
const props = fc.dictionary(fc.constantFrom('x', 'y', 'z'), value, { maxKeys: 2 });
const id = fc.constantFrom(...IDS);
const mutation: fc.Arbitrary<MutationInput> = fc.oneof(
  fc.record({ op: fc.constant('createNode' as const), id, label: fc.constantFrom(...LABELS), props }),
  fc.record({ op: fc.constant('updateNode' as const), id, set: props }),
  fc.record({ op: fc.constant('createNode' as const), id, label: fc.constantFrom(...LABELS), props }),
  fc.record({ op: fc.constant('deleteNode' as const), id }),
  fc.record({ op: fc.constant('addEdge' as const), src: id, tgt: id, type: fc.constantFrom(...TYPES) }),
  fc.record({ op: fc.constant('addEdge' as const), src: id, tgt: id, type: fc.constantFrom(...TYPES) }),
  fc.record({ op: fc.constant('removeEdge' as const), src: id, tgt: id, type: fc.constantFrom(...TYPES) }),
);
const batch = fc.record({
  mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
  expect: fc.constantFrom('none', 'none', 'current', 'old'),
});
const query = fc.record({
  label: fc.constantFrom(...LABELS),
  filter: fc.dictionary(fc.constantFrom('x', 'z'), fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom('a'), fc.boolean(), fc.constant(null)), { maxKeys: 2 }),
  after: fc.option(fc.constantFrom('n1', 'n25', 'n3'), { nil: undefined }),
  first: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
  frontier: fc.subarray(IDS),
  type: fc.constantFrom('E', 'F', null),
  dir: fc.constantFrom<Direction>('out', 'in', 'both'),
});

describe('engine against a naive model', () => {
  it('agrees on outcomes, versions, scans, counts and expansions', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.tuple(batch, query), { minLength: 1, maxLength: 25 }), async (steps) => {
      const engine = await openEngine();
      await engine.createGraph('g');
      const view = engine.view('g');
      let model: Model = { version: 0, nodes: [], edges: [], types: new Map() };
      for (const [b, q] of steps) {
        // 'current' must pass; 'old' names a version the graph is no longer at (a conflict).
        const expected = b.expect === 'none' ? undefined : b.expect === 'current' ? model.version : model.version === 0 ? 7 : model.version - 1;
        const outcome = applyModel(model, b.mutations, expected);
        const result = await engine.commit({ graph: 'g', mutations: b.mutations, ...(expected === undefined ? {} : { expectedVersion: expected }) })
          .then(() => undefined, (e: { code: string }) => e.code);
        expect(result).toBe(outcome.code);
        model = outcome.model;
        expect(view.version).toBe(model.version);
        expect(view.nodeCount).toBe(model.nodes.length);
        expect(view.edgeCount).toBe(model.edges.length);
        expect(view.scan(q.label, { filter: q.filter, after: q.after, first: q.first }).map((n) => n.id))
          .toEqual(modelScan(model, q.label, q.filter, q.after, q.first));
        expect(view.count(q.label, q.filter)).toBe(modelScan(model, q.label, q.filter).length);
        const expanded = view.expand(q.frontier, q.type, q.dir);
        for (const f of q.frontier) {
          const exists = model.nodes.some((n) => n.id === f);
          expect(expanded.get(f)?.map((n) => n.id)).toEqual(exists ? modelExpand(model, f, q.type, q.dir) : undefined);
        }
        for (const n of model.nodes) expect(view.node(n.id)).toEqual({ id: n.id, label: n.label, props: n.props });
        const types = new Map(view.catalogue.labels.flatMap((l) => Object.entries(l.properties).map(([p, t]) => [`${l.label}.${p}`, t] as const)));
        expect(types).toEqual(model.types);
      }
      await engine.close();
    }), { numRuns: 150 });
  });
});

describe('a hub against a naive model', () => {
  const LEAVES = 400;
  const leaf = (i: number) => `l${String(i).padStart(3, '0')}`;
  const hubOp = fc.oneof(
    // Few distinct leaves, so that a batch often unlinks and relinks (or deletes and re-creates) the same one.
    fc.record({ op: fc.constantFrom('link' as const, 'unlink' as const, 'delete' as const), i: fc.integer({ min: 0, max: 24 }), out: fc.boolean() }),
    fc.record({ op: fc.constant('read' as const), i: fc.constant(0), out: fc.boolean() }),
  );

  it('keeps its neighbour lists (hundreds long) sorted and exact under random links, unlinks and deletes', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.array(hubOp, { minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 12 }), async (batches) => {
      const engine = await openEngine();
      await engine.createGraph('g');
      const view = engine.view('g');
      const alive = new Set<string>();
      const edges = new Set<string>(); // `${src}>${tgt}`
      const setup: MutationInput[] = [{ op: 'createNode', id: 'hub', label: 'H' }];
      for (let i = 0; i < LEAVES; i++) {
        setup.push({ op: 'createNode', id: leaf(i), label: 'L' });
        alive.add(leaf(i));
      }
      // 300 in-edges and 300 out-edges, added in a scattered order: both lists start past 256.
      for (let k = 0; k < 300; k++) {
        const l = leaf((k * 131) % LEAVES);
        setup.push({ op: 'addEdge', src: l, tgt: 'hub', type: 'E' }, { op: 'addEdge', src: 'hub', tgt: l, type: 'E' });
        edges.add(`${l}>hub`).add(`hub>${l}`);
      }
      await engine.commit({ graph: 'g', mutations: setup });
      const expectLists = () => {
        const sorted = (ids: string[]) => ids.sort();
        const outs = sorted([...edges].filter((e) => e.startsWith('hub>')).map((e) => e.slice(4)));
        const ins = sorted([...edges].filter((e) => e.endsWith('>hub')).map((e) => e.slice(0, -4)));
        expect(view.expand(['hub'], 'E', 'out').get('hub')!.map((n) => n.id)).toEqual(outs);
        expect(view.expand(['hub'], 'E', 'in').get('hub')!.map((n) => n.id)).toEqual(ins);
        expect(view.edgeCount).toBe(edges.size);
      };
      for (const ops of batches) {
        const mutations: MutationInput[] = [];
        for (const o of ops) {
          const l = leaf(o.i);
          const key = o.out ? `hub>${l}` : `${l}>hub`;
          const [src, tgt] = o.out ? ['hub', l] : [l, 'hub'];
          if (o.op === 'link') {
            if (!alive.has(l)) {
              mutations.push({ op: 'createNode', id: l, label: 'L' });
              alive.add(l);
            }
            mutations.push({ op: 'addEdge', src, tgt, type: 'E' });
            edges.add(key);
          } else if (o.op === 'unlink' && edges.has(key)) {
            mutations.push({ op: 'removeEdge', src, tgt, type: 'E' });
            edges.delete(key);
          } else if (o.op === 'delete' && alive.has(l)) {
            mutations.push({ op: 'deleteNode', id: l });
            alive.delete(l);
            edges.delete(`hub>${l}`);
            edges.delete(`${l}>hub`);
          }
        }
        if (mutations.length > 0) await engine.commit({ graph: 'g', mutations });
        // Reads between batches see every pending change.
        if (ops.some((o) => o.op === 'read')) expectLists();
      }
      expectLists();
      await engine.close();
    }), { numRuns: 60 });
  });
});

describe('property types against a naive model', () => {
  type V = number | string | number[];
  const typeOf = (v: V): string => (typeof v === 'string' ? 'String' : Array.isArray(v)
    ? (v.every((x) => Number.isInteger(x)) ? '[Int]' : '[Float]') : Number.isInteger(v) ? 'Int' : 'Float');
  /** The rule of types.ts: the first value fixes the type; Int widens to Float ([Int] to [Float]); nothing else changes. */
  const next = (declared: string | undefined, got: string): string | undefined => {
    if (declared === undefined || declared === got) return got;
    if ((declared === 'Float' && got === 'Int') || (declared === '[Float]' && got === '[Int]')) return declared;
    if ((declared === 'Int' && got === 'Float') || (declared === '[Int]' && got === '[Float]')) return got;
    return undefined;
  };
  const v: fc.Arbitrary<V> = fc.oneof(
    fc.integer({ min: -2, max: 2 }), fc.constantFrom(0.29, -1.5), fc.constant('s'),
    fc.array(fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constant(0.5)), { minLength: 1, maxLength: 3 }),
  );
  const write = fc.record({ prop: fc.constantFrom('p', 'q'), value: v, update: fc.boolean() });

  it('fixes, widens or refuses exactly as the rule says, in one batch or many, and replays the same', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.array(write, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 12 }), async (batches) => {
      const store = new MemoryStore();
      const engine = await openEngine({ store });
      await engine.createGraph('g');
      let types = new Map<string, string>();
      let nodes = 0;
      for (const writes of batches) {
        const planned = new Map(types);
        let refused = false;
        const mutations: MutationInput[] = [];
        let created = nodes;
        for (const w of writes) {
          const after = next(planned.get(w.prop), typeOf(w.value));
          if (after === undefined) refused = true;
          else planned.set(w.prop, after);
          mutations.push(w.update && created > 0
            ? { op: 'updateNode', id: `n${created - 1}`, set: { [w.prop]: w.value } }
            : { op: 'createNode', id: `n${created++}`, label: 'T', props: { [w.prop]: w.value } });
        }
        const outcome = await engine.commit({ graph: 'g', mutations }).then(() => 'ok', (e: { code: string }) => e.code);
        expect(outcome).toBe(refused ? 'TG_VALUE_INVALID' : 'ok');
        if (!refused) {
          types = planned;
          nodes = created;
        }
        expect(new Map(Object.entries(engine.view('g').catalogue.labels[0]?.properties ?? {}))).toEqual(types);
      }
      const epoch = engine.view('g').catalogue.epoch;
      await engine.close();
      const again = await openEngine({ store });
      expect(again.view('g').catalogue.epoch).toBe(epoch);
      await again.close();
    }), { numRuns: 200 });
  });
});

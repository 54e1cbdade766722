import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_WRITE_LIMITS, WriteMeter, mutationChanges, mutationJsonSize, numberJsonSize, type GraphEngine, type Mutation, type MutationInput, type WriteLimits,
} from '../../../src/graph/engine/index.ts';
import { MemoryStore } from '../../../src/graph/persist/index.ts';
import { openEngine } from './helpers.ts';

const engines: GraphEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});

async function cappedEngine(writeLimits: WriteLimits, store = new MemoryStore()): Promise<GraphEngine> {
  const engine = await openEngine({ store, writeLimits });
  engines.push(engine);
  if (!engine.hasGraph('g')) await engine.createGraph('g');
  return engine;
}

const people = (n: number, from = 0): MutationInput[] =>
  Array.from({ length: n }, (_, i) => ({ op: 'createNode', id: `p${from + i}`, label: 'Person', props: { name: `P${from + i}` } }));

describe('mutationJsonSize and mutationChanges', () => {
  // Strings without characters JSON escapes, integers and booleans: the estimate is the exact length.
  const text = fc.string({ unit: fc.constantFrom(...'abcXYZ019 _-é€'), minLength: 1, maxLength: 12 });
  const name = fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,8}$/);
  const value = fc.oneof(text, fc.integer({ min: -1e15, max: 1e15 }), fc.boolean(),
    fc.array(text, { minLength: 1, maxLength: 3 }), fc.array(fc.integer(), { minLength: 1, maxLength: 3 }));
  const props = fc.dictionary(name, value, { maxKeys: 5 });
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    fc.record({ op: fc.constant('createNode' as const), id: text, label: name, props }),
    fc.record({ op: fc.constant('updateNode' as const), id: text, set: props }),
    fc.record({ op: fc.constant('updateNode' as const), id: text, set: props, unset: fc.array(name, { minLength: 1, maxLength: 3 }) }),
    fc.record({ op: fc.constant('deleteNode' as const), id: text }),
    fc.record({ op: fc.constantFrom('addEdge' as const, 'removeEdge' as const), src: text, tgt: text, type: name }),
  );

  it('counts the digits of every safe integer exactly', () => {
    fc.assert(fc.property(fc.maxSafeInteger(), (n) => {
      expect(numberJsonSize(n)).toBe(JSON.stringify(n).length);
    }), { numRuns: 2000 });
  });

  it('is the length of the JSON the log writes, for strings without escapes, integers and booleans', () => {
    fc.assert(fc.property(mutation, (m) => {
      expect(mutationJsonSize(m)).toBe(JSON.stringify(m).length);
    }), { numRuns: 500 });
  });

  it.each([
    [0], [7], [-7], [10], [99], [100], [-1000], [123456789], [999999999999999], [1e15], [-99999999999999], [Number.MAX_SAFE_INTEGER], [Number.MIN_SAFE_INTEGER], [1e20],
  ])('counts the digits of the integer %d exactly', (n) => {
    expect(numberJsonSize(n)).toBe(JSON.stringify(n).length);
  });

  it('never counts a fraction shorter than JSON writes it', () => {
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
      expect(numberJsonSize(n)).toBeGreaterThanOrEqual(JSON.stringify(n).length);
    }), { examples: [[-0.0000015840698908564952], [-1.2345678901234567e-308]] });
  });

  it.each<[string, MutationInput, number]>([
    ['a node and its two properties', { op: 'createNode', label: 'P', props: { a: 1, b: 'x' } }, 3],
    ['a node without properties', { op: 'createNode', label: 'P' }, 1],
    ['null props are no change', { op: 'createNode', label: 'P', props: { a: null } }, 1],
    ['an update of two properties, removing one', { op: 'updateNode', id: 'n', set: { a: 1, b: 2 }, unset: ['c'] }, 3],
    ['an update of nothing', { op: 'updateNode', id: 'n', set: {} }, 1],
    ['a delete', { op: 'deleteNode', id: 'n' }, 1],
    ['an edge', { op: 'addEdge', src: 'a', tgt: 'b', type: 'T' }, 1],
  ])('counts %s', (_name, m, changes) => {
    expect(mutationChanges(m)).toBe(changes);
  });
});

describe('WriteMeter', () => {
  it('refuses the mutation that goes over a cap, naming the cap, its value and its setting', () => {
    const meter = new WriteMeter({ maxChanges: 5, maxBatchBytes: 1_000_000 });
    meter.charge({ op: 'createNode', id: 'a', label: 'P', props: { x: 1, y: 2 } });
    expect(meter.fits({ op: 'createNode', id: 'b', label: 'P', props: { x: 1, y: 2 } })).toBe(false);
    expect(() => meter.charge({ op: 'createNode', id: 'b', label: 'P', props: { x: 1, y: 2 } })).toThrow(expect.objectContaining({
      code: 'TG_WRITE_TOO_LARGE',
      details: { limit: 'maxChanges', max: 5, setting: 'TOOLGRAPH_WRITE_MAX_CHANGES' },
      message: expect.stringContaining('more than 5 changes'),
    }));
    const bytes = new WriteMeter({ maxChanges: 1000, maxBatchBytes: 1024 });
    expect(() => bytes.charge({ op: 'updateNode', id: 'a', set: { big: 'x'.repeat(1024) } })).toThrow(expect.objectContaining({
      code: 'TG_WRITE_TOO_LARGE', details: { limit: 'maxBatchBytes', max: 1024, setting: 'TOOLGRAPH_WRITE_MAX_BATCH_BYTES' },
    }));
  });
});

describe('GraphEngine write caps', () => {
  it('refuses a commit over the change cap while planning it: nothing is logged, the version stays', async () => {
    const store = new MemoryStore();
    const engine = await cappedEngine({ maxChanges: 20, maxBatchBytes: DEFAULT_WRITE_LIMITS.maxBatchBytes }, store);
    const logged = store.seq;
    // Ten nodes of one property are 20 changes: at the cap, accepted.
    await engine.commit({ graph: 'g', mutations: people(10) });
    await expect(engine.commit({ graph: 'g', mutations: people(11, 10) })).rejects.toMatchObject({
      code: 'TG_WRITE_TOO_LARGE', details: { limit: 'maxChanges', max: 20, setting: 'TOOLGRAPH_WRITE_MAX_CHANGES', index: 10 },
    });
    expect(engine.view('g').version).toBe(1);
    expect(engine.view('g').nodeCount).toBe(10);
    expect(store.seq).toBe(logged + 1);
  });

  it('refuses a commit whose log record would be over the size cap, before writing it', async () => {
    const engine = await cappedEngine({ maxChanges: 1000, maxBatchBytes: 4096 });
    const big = (id: string): MutationInput => ({ op: 'createNode', id, label: 'Doc', props: { body: 'x'.repeat(1500) } });
    await engine.commit({ graph: 'g', mutations: [big('a'), big('b')] });
    await expect(engine.commit({ graph: 'g', mutations: [big('c'), big('d'), big('e')] })).rejects.toMatchObject({
      code: 'TG_WRITE_TOO_LARGE', details: { limit: 'maxBatchBytes', max: 4096, setting: 'TOOLGRAPH_WRITE_MAX_BATCH_BYTES', index: 2 },
    });
    expect(engine.view('g').version).toBe(1);
  });

  it('refuses a node or update of more properties than the change cap before it checks them', async () => {
    // Issue 15 (fuzzer finding): 20,000 properties were validated (names, values, types) before the
    // cap refused them. A property name that is not valid shows which came first.
    const engine = await cappedEngine({ maxChanges: 100, maxBatchBytes: DEFAULT_WRITE_LIMITS.maxBatchBytes });
    const props = { '0 not a name': 1, ...Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`p${i}`, i])) };
    const tooLarge = { code: 'TG_WRITE_TOO_LARGE', details: { limit: 'maxChanges', max: 100, index: 0 } };
    await expect(engine.commit({ graph: 'g', mutations: [{ op: 'createNode', label: 'Doc', props }] })).rejects.toMatchObject(tooLarge);
    await engine.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'doc', label: 'Doc', props: { n: 1 } }] });
    await expect(engine.commit({ graph: 'g', mutations: [{ op: 'updateNode', id: 'doc', set: props }] })).rejects.toMatchObject(tooLarge);
    // Under the cap, the same name is refused for what it is.
    await expect(engine.commit({ graph: 'g', mutations: [{ op: 'createNode', label: 'Doc', props: { '0 not a name': 1 } }] })).rejects.toMatchObject({ code: 'TG_NAME_INVALID' });
    expect(engine.view('g').version).toBe(1);
  });

  it('caps batches committed from inside transact too', async () => {
    const engine = await cappedEngine({ maxChanges: 3, maxBatchBytes: DEFAULT_WRITE_LIMITS.maxBatchBytes });
    await expect(engine.transact('g', (_view, commit) => commit({ mutations: people(2) }))).rejects.toMatchObject({ code: 'TG_WRITE_TOO_LARGE' });
    expect(engine.view('g').version).toBe(0);
  });

  it('never caps what it replays: a store written without caps opens under them', async () => {
    const store = new MemoryStore();
    const free = await openEngine({ store });
    await free.createGraph('g');
    await free.commit({ graph: 'g', mutations: people(100) });
    await free.close();
    const engine = await cappedEngine({ maxChanges: 10, maxBatchBytes: 1024 }, store);
    expect(engine.view('g').nodeCount).toBe(100);
    expect(engine.writeLimits).toEqual({ maxChanges: 10, maxBatchBytes: 1024 });
  });

  it('applies an update by what it changes: the node\'s other values are not looked into again', async () => {
    const engine = await cappedEngine(DEFAULT_WRITE_LIMITS);
    const body = 'x'.repeat(100_000);
    await engine.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'doc', label: 'Doc', props: { body, n: 0 } }] });
    const checked = vi.spyOn(String.prototype, 'isWellFormed');
    try {
      await engine.commit({ graph: 'g', mutations: Array.from({ length: 100 }, (_, i) => ({ op: 'updateNode' as const, id: 'doc', set: { n: i + 1 } })) });
      // Each update checks what it writes, never the 100 KB body it keeps.
      expect(checked.mock.contexts.filter((text) => String(text).length === body.length)).toHaveLength(0);
    } finally {
      checked.mockRestore();
    }
    const doc = engine.view('g').node('doc')!;
    expect(doc.props).toEqual({ body, n: 100 });
    expect(Object.isFrozen(doc.props)).toBe(true);
    await engine.commit({ graph: 'g', mutations: [{ op: 'updateNode', id: 'doc', set: { tags: ['a'] }, unset: ['n'] }] });
    expect(Object.keys(engine.view('g').node('doc')!.props)).toEqual(['body', 'tags']);
    expect(Object.isFrozen(engine.view('g').node('doc')!.props['tags'])).toBe(true);
  });

  it('has no caps unless given some', async () => {
    const engine = await openEngine();
    engines.push(engine);
    await engine.createGraph('g');
    expect(engine.writeLimits).toBeNull();
    await engine.commit({ graph: 'g', mutations: people(DEFAULT_WRITE_LIMITS.maxChanges) });
    expect(engine.view('g').nodeCount).toBe(DEFAULT_WRITE_LIMITS.maxChanges);
  });
});

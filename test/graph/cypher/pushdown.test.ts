import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareCypher, runCypher } from '../../../src/graph/cypher/index.ts';
import { statementCache } from '../../../src/graph/cypher/plan/statement-cache.ts';
import { GraphEngine, type MutationInput } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { spyOnViews } from './view-spy.ts';

// Issue 7, item 19: LIMIT (and ORDER BY … LIMIT) reach into matching; statements are prepared once.
let engine: GraphEngine;
const PEOPLE = 300;
const id = (i: number) => `p${String(i).padStart(3, '0')}`;

beforeAll(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph('g');
  const mutations: MutationInput[] = [];
  for (let i = 0; i < PEOPLE; i++) mutations.push({ op: 'createNode', id: id(i), label: 'Person', props: { age: (i * 7) % 50 } });
  for (let i = 0; i < PEOPLE; i++) {
    mutations.push({ op: 'addEdge', src: id(i), tgt: id((i + 1) % PEOPLE), type: 'KNOWS' });
    mutations.push({ op: 'addEdge', src: id(i), tgt: id((i + 2) % PEOPLE), type: 'KNOWS' });
  }
  await engine.commit({ graph: 'g', mutations });
});

/** Records the view calls, with only the size of each frontier handed to expandEach. */
const spy = () => spyOnViews(engine, (method, args) => (method === 'expandEach' ? `expandEach:${(args[0] as unknown[]).length}` : `${method}:${JSON.stringify(args)}`));

describe('LIMIT pushdown', () => {
  it('reads one page of a label scan for a small LIMIT', async () => {
    const s = spy();
    const result = await runCypher(s.engine, 'g', 'MATCH (p:Person) RETURN p.id LIMIT 3');
    expect(result.rows).toEqual([[id(0)], [id(1)], [id(2)]]);
    expect(s.calls).toEqual(['scan:["Person",{"first":64}]']);
  });

  it('expands only the first page of starts when LIMIT is met there', async () => {
    const s = spy();
    const result = await runCypher(s.engine, 'g', 'MATCH (p:Person)-[:KNOWS]->(f) RETURN f.id LIMIT 2');
    expect(result.rows).toEqual([[id(1)], [id(2)]]);
    expect(s.calls).toEqual(['scan:["Person",{"first":64}]', 'expandEach:64']);
  });

  it('without LIMIT, pages through the whole label', async () => {
    const s = spy();
    const result = await runCypher(s.engine, 'g', 'MATCH (p:Person) RETURN count(p)');
    expect(result.rows).toEqual([[PEOPLE]]);
    expect(s.calls).toEqual(['scan:["Person",{"first":64}]', `scan:["Person",{"first":256,"after":"${id(63)}"}]`]);
  });

  it('ORDER BY … LIMIT computes the other columns (a pattern comprehension here) for the kept rows only', async () => {
    const s = spy();
    const query = 'MATCH (p:Person) RETURN p.id AS id, [(p)-[:KNOWS]->(f) | f.id] AS friends ORDER BY p.age DESC, id LIMIT 2';
    const result = await runCypher(s.engine, 'g', query);
    expect(result.rows).toEqual([[id(7), [id(8), id(9)]], [id(57), [id(58), id(59)]]]);
    expect(s.calls.filter((c) => c.startsWith('expandEach'))).toEqual(['expandEach:2']);
  });

  it('ORDER BY … SKIP … LIMIT keeps exactly the rows a full sort would (ties in match order)', async () => {
    await fc.assert(fc.asyncProperty(fc.nat({ max: 40 }), fc.nat({ max: 40 }), fc.boolean(), async (skip, limit, descending) => {
      const order = `ORDER BY p.age${descending ? ' DESC' : ''}`;
      const all = await runCypher(engine, 'g', `MATCH (p:Person) RETURN p.id, p.age ${order}`);
      const window = await runCypher(engine, 'g', `MATCH (p:Person) RETURN p.id, p.age ${order} SKIP ${skip} LIMIT ${limit}`);
      expect(window.rows).toEqual(all.rows.slice(skip, skip + limit));
    }), { numRuns: 40 });
  });
});

describe('prepared statements', () => {
  it('prepares a text once and serves it from the cache after', () => {
    const text = 'MATCH (p:Person {id: $id}) RETURN p.age';
    expect(prepareCypher(text)).toBe(prepareCypher(text));
  });

  it('evicts past its entry or character bound, least recently used first', () => {
    const cache = statementCache<number>(2, 10);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is used: b is now the least recently used
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([1, undefined, 3]);
    cache.set('xxxxxxxxx', 4); // 9 characters: over 10 in all, so the least recently used (a) goes
    expect([cache.get('a'), cache.get('c'), cache.get('xxxxxxxxx')]).toEqual([undefined, 3, 4]);
    expect(cache.size).toBe(2);
    cache.set('y'.repeat(11), 5); // longer than the whole bound: not cached
    expect(cache.size).toBe(2);
    expect(cache.get('y'.repeat(11))).toBeUndefined();
  });
});

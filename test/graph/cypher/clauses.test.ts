import { beforeEach, describe, expect, it } from 'vitest';
import { GraphEngine } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { runCypher, type CypherResult } from '../../../src/graph/cypher/index.ts';
import { failure } from '../../support/toolgraph-failure.ts';

let engine: GraphEngine;
let counter = 0;
const options = { newId: () => `new-${++counter}` };

async function q(text: string, params?: Record<string, unknown>): Promise<CypherResult> {
  return runCypher(engine, 'g', text, params, options);
}

async function rows(text: string, params?: Record<string, unknown>): Promise<unknown[][]> {
  return (await q(text, params)).rows;
}

beforeEach(async () => {
  counter = 0;
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph('g');
  await engine.commit({
    graph: 'g',
    mutations: [
      { op: 'createNode', id: 'ann', label: 'Person', props: { name: 'Ann', age: 30 } },
      { op: 'createNode', id: 'bob', label: 'Person', props: { name: 'Bob', age: 25 } },
      { op: 'createNode', id: 'cid', label: 'Person', props: { name: 'Cid', age: 41 } },
      { op: 'createNode', id: 'dan', label: 'Person', props: { name: 'Dan' } },
      { op: 'createNode', id: 'acme', label: 'Company', props: { name: 'Acme' } },
      { op: 'addEdge', src: 'ann', tgt: 'bob', type: 'KNOWS' },
      { op: 'addEdge', src: 'ann', tgt: 'cid', type: 'KNOWS' },
      { op: 'addEdge', src: 'ann', tgt: 'dan', type: 'KNOWS' },
      { op: 'addEdge', src: 'cid', tgt: 'bob', type: 'KNOWS' },
      { op: 'addEdge', src: 'ann', tgt: 'acme', type: 'WORKS_AT' },
    ],
  });
});

describe('WITH', () => {
  it('groups, filters on the aggregate and projects into the next part (the issue\'s statement)', async () => {
    expect(await rows('MATCH (p:Person)-[:KNOWS]->(f) WITH p, count(f) AS n WHERE n > 2 RETURN p.name, n')).toEqual([['Ann', 3]]);
  });
  it('binds only what it projects: a dropped variable is not defined afterwards', async () => {
    const error = await failure(q('MATCH (a:Person) WITH a.name AS name RETURN a'));
    expect(error.code).toBe('TG_CYPHER_SYNTAX');
    expect(error.message).toContain('variable `a` is not defined');
  });
  it('streams with SKIP and LIMIT, and orders, dedupes and limits when asked', async () => {
    expect(await rows('MATCH (p:Person) WITH p SKIP 1 LIMIT 2 RETURN p.name')).toEqual([['Bob'], ['Cid']]);
    expect(await rows('MATCH (p:Person) WITH p ORDER BY p.age DESC LIMIT 2 RETURN p.name')).toEqual([['Dan'], ['Cid']]);
    expect(await rows('MATCH (a)-[:KNOWS]->(b) WITH DISTINCT a RETURN a.name ORDER BY a.name')).toEqual([['Ann'], ['Cid']]);
  });
  it('chains parts and lets a later MATCH use what WITH carried', async () => {
    expect(await rows("MATCH (a:Person {name: 'Ann'}) WITH a MATCH (a)-[:KNOWS]->(b) WITH b.name AS friend ORDER BY friend RETURN collect(friend) AS friends"))
      .toEqual([[['Bob', 'Cid', 'Dan']]]);
  });
  it('re-binds a dropped name in a later part', async () => {
    expect(await rows("MATCH (a:Person {name: 'Bob'}) WITH a.name AS n MATCH (a:Company) RETURN n, a.name")).toEqual([['Bob', 'Acme']]);
  });
  it('WITH * keeps every variable; a WITH at the start projects literals', async () => {
    expect(await rows("MATCH (a:Company) WITH * RETURN a.name")).toEqual([['Acme']]);
    expect(await rows('WITH 1 AS x, [2, 3] AS l RETURN x + size(l) AS y')).toEqual([[3]]);
  });
  it('refuses an expression without an alias, and a statement ending in WITH', async () => {
    expect((await failure(q('MATCH (a) WITH a.name RETURN 1'))).message).toContain('needs an alias');
    expect((await failure(q('MATCH (a) WITH a'))).message).toContain('cannot end with WITH');
  });
  it('count(v) after WITH is not mistaken for a row count when v may be null', async () => {
    expect(await rows('MATCH (p:Person) WITH p.age AS age RETURN count(age) AS n')).toEqual([[3]]);
    expect(await rows('MATCH (p:Person) OPTIONAL MATCH (p)-[:WORKS_AT]->(c) WITH c RETURN count(c) AS n')).toEqual([[1]]);
  });
});

describe('UNWIND', () => {
  it('unwinds literals, parameters and nested lists; null and [] give no rows', async () => {
    expect(await rows('UNWIND [1, 2, 3] AS x RETURN x * 2 AS y')).toEqual([[2], [4], [6]]);
    expect(await rows('UNWIND $l AS x RETURN x', { l: ['a', 'b'] })).toEqual([['a'], ['b']]);
    expect(await rows('UNWIND [[1, 2], [3]] AS l UNWIND l AS x RETURN x')).toEqual([[1], [2], [3]]);
    expect(await rows('UNWIND [] AS x RETURN x')).toEqual([]);
    expect(await rows('UNWIND null AS x RETURN x')).toEqual([]);
    expect(await rows('UNWIND [1, null] AS x RETURN x')).toEqual([[1], [null]]);
  });
  it('writes a batch from a parameter (the issue\'s statement), as one batch and one version', async () => {
    const before = (await q('MATCH (n) RETURN count(*) AS n')).version;
    const result = await q('UNWIND $rows AS r CREATE (:Person {id: r.id, name: r.name})', { rows: [{ id: 'x1', name: 'X1' }, { id: 'x2', name: 'X2' }] });
    expect(result.stats?.nodesCreated).toBe(2);
    expect(result.version).toBe(before + 1);
    expect(await rows("MATCH (p:Person) WHERE p.name STARTS WITH 'X' RETURN p.id, p.name")).toEqual([['x1', 'X1'], ['x2', 'X2']]);
  });
  it('joins with MATCH rows', async () => {
    expect(await rows("MATCH (p:Person {name: 'Ann'}) UNWIND [1, 2] AS k RETURN p.name, k")).toEqual([['Ann', 1], ['Ann', 2]]);
  });
  it('is charged against the row budget as it makes rows', async () => {
    const l = Array.from({ length: 5000 }, (_, i) => i);
    const error = await failure(runCypher(engine, 'g', 'UNWIND $l AS a UNWIND $l AS b RETURN count(*)', { l }, { limits: { maxRows: 100_000, maxResultBytes: 1 << 24, timeoutMs: 5000, maxStallMs: 150 } }));
    expect(error.code).toBe('TG_QUERY_BUDGET_EXCEEDED');
    expect(error.details?.limit).toBe('maxRows');
  });
});

describe('UNION', () => {
  it('UNION ALL keeps every row, UNION each distinct row once', async () => {
    expect(await rows("MATCH (p:Person) RETURN p.name AS n UNION ALL MATCH (c:Company) RETURN c.name AS n")).toEqual([['Ann'], ['Bob'], ['Cid'], ['Dan'], ['Acme']]);
    expect(await rows('UNWIND [1, 2, 2] AS x RETURN x UNION UNWIND [2, 3] AS x RETURN x')).toEqual([[1], [2], [3]]);
    expect(await rows('UNWIND [1, 1] AS x RETURN x UNION ALL UNWIND [1] AS x RETURN x')).toEqual([[1], [1], [1]]);
  });
  it('refuses branches whose columns differ', async () => {
    const error = await failure(q('RETURN 1 AS a UNION RETURN 2 AS b'));
    expect(error.code).toBe('TG_CYPHER_SYNTAX');
    expect(error.message).toContain('same columns');
  });
});

describe('MERGE', () => {
  it('upserts a node by its key (the issue\'s statement): created once, then matched', async () => {
    const first = await q('MERGE (p:Person {id: $id}) SET p.name = $name', { id: 'eve', name: 'Eve' });
    expect(first.stats).toMatchObject({ nodesCreated: 1 });
    const second = await q('MERGE (p:Person {id: $id}) SET p.name = $name', { id: 'eve', name: 'Eve 2' });
    expect(second.stats).toMatchObject({ nodesCreated: 0, propertiesSet: 1 });
    expect(await rows("MATCH (p:Person {id: 'eve'}) RETURN p.name")).toEqual([['Eve 2']]);
  });
  it('runs ON CREATE SET and ON MATCH SET on their own branch', async () => {
    const text = 'MERGE (p:Person {name: $name}) ON CREATE SET p.seen = 1 ON MATCH SET p.seen = coalesce(p.seen, 0) + 1 RETURN p.seen';
    expect(await rows(text, { name: 'Zed' })).toEqual([[1]]);
    expect(await rows(text, { name: 'Zed' })).toEqual([[2]]);
    expect(await rows(text, { name: 'Ann' })).toEqual([[1]]);
  });
  it('gives a row per match when several nodes match', async () => {
    expect(await rows('MERGE (p:Person) RETURN count(*) AS n')).toEqual([[4]]);
  });
  it('sees the merges of earlier rows of the same statement', async () => {
    const result = await q('UNWIND [1, 2, 1, 2, 3] AS k MERGE (t:Tag {k: k}) RETURN count(*) AS rows', {});
    expect(result.stats?.nodesCreated).toBe(3);
    expect(await rows('MATCH (t:Tag) RETURN t.k ORDER BY t.k')).toEqual([[1], [2], [3]]);
  });
  it('merges a relationship between bound nodes once, in either direction form', async () => {
    const text = "MATCH (a:Person {name: 'Bob'}), (b:Person {name: 'Dan'}) MERGE (a)-[r:LIKES]->(b) RETURN type(r)";
    expect((await q(text)).stats?.relationshipsCreated).toBe(1);
    expect((await q(text)).stats?.relationshipsCreated).toBe(0);
    expect((await q("MATCH (a:Person {name: 'Dan'}), (b:Person {name: 'Bob'}) MERGE (a)-[:LIKES]-(b)")).stats?.relationshipsCreated).toBe(0);
    expect((await q("MATCH (a:Person {name: 'Ann'}) MERGE (a)-[:KNOWS]->(:Person {name: 'Bob'})")).stats?.relationshipsCreated).toBe(0);
  });
  it('creates the whole pattern when any part is missing', async () => {
    const result = await q("MATCH (a:Person {name: 'Ann'}) MERGE (a)-[:KNOWS]->(f:Person {name: 'Fay'}) RETURN f.name");
    expect(result.stats).toMatchObject({ nodesCreated: 1, relationshipsCreated: 1 });
    expect(result.rows).toEqual([['Fay']]);
  });
  it('refuses a null key and a new node without a label', async () => {
    expect((await failure(q('MERGE (p:Person {name: null})'))).message).toContain('null property value');
    expect((await failure(q('MERGE (p {name: 1})'))).message).toContain('needs a label');
  });
  it('two writers merging the same key concurrently produce one node', async () => {
    await Promise.all(Array.from({ length: 8 }, () => q('MERGE (c:Counter {id: $id}) ON MATCH SET c.n = c.n + 1 ON CREATE SET c.n = 1', { id: 'c1' })));
    expect(await rows('MATCH (c:Counter) RETURN c.id, c.n')).toEqual([['c1', 8]]);
  });
  it('is capped as it writes: a MERGE over a cross product is refused by the write cap', async () => {
    const l = Array.from({ length: 200 }, (_, i) => i);
    const error = await failure(runCypher(engine, 'g', 'UNWIND $l AS a UNWIND $l AS b MERGE (:Pair {a: a, b: b})', { l }, {
      ...options, writeLimits: { maxChanges: 5000, maxBatchBytes: 1 << 24 },
    }));
    expect(error.code).toBe('TG_WRITE_TOO_LARGE');
    expect(await rows('MATCH (p:Pair) RETURN count(*) AS n')).toEqual([[0]]);
  });
});

describe('FOREACH', () => {
  it('runs its updates for every item of every row and passes the rows on', async () => {
    const result = await q("MATCH (p:Person {name: 'Ann'}) FOREACH (k IN [1, 2, 3] | CREATE (:Tag {k: k})) RETURN p.name");
    expect(result.rows).toEqual([['Ann']]);
    expect(result.stats?.nodesCreated).toBe(3);
    await q("MATCH (p:Person) WHERE p.age > 26 FOREACH (x IN [p] | SET x.senior = true)");
    expect(await rows('MATCH (p:Person) WHERE p.senior RETURN p.name')).toEqual([['Ann'], ['Cid']]);
  });
  it('skips null lists and refuses what is not a list', async () => {
    expect((await q('FOREACH (x IN null | CREATE (:T))')).stats?.nodesCreated).toBe(0);
    expect((await failure(q('FOREACH (x IN 1 | CREATE (:T))'))).message).toContain('expected a list');
  });
});

describe('RETURN * and literals', () => {
  it('RETURN * names the variables in scope even when no row arrives', async () => {
    const result = await q('OPTIONAL MATCH (a:Nothing) WITH a MATCH (a)-->(b) RETURN *');
    expect(result.columns).toEqual(['a', 'b']);
    expect(result.rows).toEqual([]);
  });
  it('reads octal integers, and refuses one past 64 bits as a syntax error', async () => {
    expect(await rows('RETURN 0o17 AS a, -0o10 AS b')).toEqual([[15, -8]]);
    expect((await failure(q('RETURN 0o1000000000000000000000 AS x'))).code).toBe('TG_CYPHER_SYNTAX');
  });
});

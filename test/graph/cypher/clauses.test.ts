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

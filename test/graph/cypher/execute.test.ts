import { beforeEach, describe, expect, it } from 'vitest';
import { ToolgraphError } from '../../../src/errors/index.ts';
import { GraphEngine } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence, MemoryStore } from '../../../src/graph/persist/index.ts';
import { runCypher, type CypherEngine, type CypherResult } from '../../../src/graph/cypher/index.ts';
import { spyOnViews } from './view-spy.ts';
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

async function cypherFailure(text: string, params?: Record<string, unknown>): Promise<ToolgraphError> {
  return failure(q(text, params));
}

beforeEach(async () => {
  counter = 0;
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph('g');
  await engine.commit({
    graph: 'g',
    mutations: [
      { op: 'createNode', id: 'ann', label: 'Person', props: { name: 'Ann', age: 30, tags: ['a', 'b'] } },
      { op: 'createNode', id: 'bob', label: 'Person', props: { name: 'Bob', age: 25 } },
      { op: 'createNode', id: 'cid', label: 'Person', props: { name: 'Cid', age: 41 } },
      { op: 'createNode', id: 'dan', label: 'Person', props: { name: 'Dan' } },
      { op: 'createNode', id: 'acme', label: 'Company', props: { name: 'Acme' } },
      { op: 'addEdge', src: 'ann', tgt: 'bob', type: 'KNOWS' },
      { op: 'addEdge', src: 'ann', tgt: 'cid', type: 'KNOWS' },
      { op: 'addEdge', src: 'cid', tgt: 'bob', type: 'KNOWS' },
      { op: 'addEdge', src: 'ann', tgt: 'acme', type: 'WORKS_AT' },
      { op: 'addEdge', src: 'bob', tgt: 'acme', type: 'WORKS_AT' },
    ],
  });
});

describe('runCypher: reads', () => {
  it.each<[string, string, Record<string, unknown> | undefined, unknown[][]]>([
    ['label scan in id order', 'MATCH (p:Person) RETURN p.name', undefined, [['Ann'], ['Bob'], ['Cid'], ['Dan']]],
    ['property map filter', "MATCH (p:Person {name: 'Bob'}) RETURN p.age", undefined, [[25]]],
    ['parameter in a property map', 'MATCH (p:Person {name: $n}) RETURN p.age', { n: 'Cid' }, [[41]]],
    ['id as a pseudo-property', "MATCH (p {id: 'cid'}) RETURN p.name, p.id, id(p)", undefined, [['Cid', 'cid', 'cid']]],
    ['outgoing', "MATCH (a:Person {name: 'Ann'})-[:KNOWS]->(b) RETURN b.name", undefined, [['Bob'], ['Cid']]],
    ['incoming', "MATCH (b:Person {name: 'Bob'})<-[:KNOWS]-(a) RETURN a.name", undefined, [['Ann'], ['Cid']]],
    ['undirected', "MATCH (c {id: 'cid'})-[:KNOWS]-(x) RETURN x.name", undefined, [['Ann'], ['Bob']]],
    ['two hops', "MATCH (a {id: 'ann'})-[:KNOWS]->(b)-[:KNOWS]->(c) RETURN b.name, c.name", undefined, [['Cid', 'Bob']]],
    ['alternative types', "MATCH (a {id: 'ann'})-[r:KNOWS|WORKS_AT]->(x) RETURN type(r), x.name", undefined,
      [['WORKS_AT', 'Acme'], ['KNOWS', 'Bob'], ['KNOWS', 'Cid']]],
    ['relationship as a value', "MATCH ({id: 'cid'})-[r]->() RETURN r", undefined, [[{ src: 'cid', tgt: 'bob', type: 'KNOWS' }]]],
    ['relationship uniqueness within a MATCH', "MATCH (a {id: 'ann'})-[:KNOWS]-(b)-[:KNOWS]-(c) RETURN b.name, c.name", undefined,
      [['Bob', 'Cid'], ['Cid', 'Bob']]],
    ['comma patterns share variables', "MATCH (a)-[:WORKS_AT]->(c), (b)-[:WORKS_AT]->(c) WHERE a.name < b.name RETURN a.name, b.name", undefined, [['Ann', 'Bob']]],
    ['WHERE comparisons and boolean logic', 'MATCH (p:Person) WHERE (p.age >= 30 OR p.age IS NULL) AND NOT p.name = $x RETURN p.name', { x: 'Cid' }, [['Ann'], ['Dan']]],
    ['XOR (null is unknown)', 'MATCH (p:Person) WHERE p.age > 26 XOR p.name ENDS WITH \'n\' RETURN p.name', undefined, [['Cid']]],
    ['IN, STARTS WITH, CONTAINS', "MATCH (p:Person) WHERE p.name IN ['Ann', 'Dan'] OR p.name STARTS WITH 'C' OR p.name CONTAINS 'zz' RETURN p.name", undefined,
      [['Ann'], ['Cid'], ['Dan']]],
    ['chained comparison', 'MATCH (p:Person) WHERE 20 < p.age < 35 RETURN p.name', undefined, [['Ann'], ['Bob']]],
    ['label predicate', 'MATCH (x) WHERE x:Company RETURN x.name', undefined, [['Acme']]],
    ['pattern predicate', 'MATCH (p:Person) WHERE NOT (p)-[:WORKS_AT]->(:Company) RETURN p.name', undefined, [['Cid'], ['Dan']]],
    ['node serialises as properties plus id', "MATCH (p {id: 'ann'}) RETURN p", undefined, [[{ age: 30, id: 'ann', name: 'Ann', tags: ['a', 'b'] }]]],
    ['aliases, map projection and pattern comprehension', "MATCH (p:Person {id: 'ann'}) RETURN p {.name, friends: [(p)-[:KNOWS]->(f:Person) WHERE f.age > 26 | f {.name, .age}], n: size(p.tags)} AS person",
      undefined, [[{ friends: [{ age: 41, name: 'Cid' }], n: 2, name: 'Ann' }]]],
    ['nested comprehensions', "MATCH (p:Person {id: 'ann'}) RETURN [(p)-[:KNOWS]->(f) | f {.name, works: [(f)-[:WORKS_AT]->(c) | c.name]}] AS r", undefined,
      [[[{ name: 'Bob', works: ['Acme'] }, { name: 'Cid', works: [] }]]]],
    ['map projection .* leaves out the id', "MATCH (p {id: 'bob'}) RETURN p {.*}", undefined, [[{ age: 25, name: 'Bob' }]]],
    ['missing property is null', "MATCH (p {id: 'dan'}) RETURN p.age, p {.age}", undefined, [[null, { age: null }]]],
    ['ORDER BY DESC with nulls first', 'MATCH (p:Person) RETURN p.name ORDER BY p.age DESC', undefined, [['Dan'], ['Cid'], ['Ann'], ['Bob']]],
    ['ORDER BY alias, SKIP, LIMIT', 'MATCH (p:Person) RETURN p.name AS n ORDER BY n DESC SKIP $s LIMIT 2', { s: 1 }, [['Cid'], ['Bob']]],
    ['ORDER BY a property not returned', 'MATCH (p:Person) WHERE p.age IS NOT NULL RETURN p.name ORDER BY p.age', undefined, [['Bob'], ['Ann'], ['Cid']]],
    ['DISTINCT', 'MATCH (p:Person)-[:WORKS_AT]->(c) RETURN DISTINCT c.name', undefined, [['Acme']]],
    ['count(*) and grouping', 'MATCH (a:Person)-[:KNOWS]->(b) RETURN a.name, count(*) AS n ORDER BY n DESC', undefined, [['Ann', 2], ['Cid', 1]]],
    ['aggregates over no rows', 'MATCH (p:Nobody) RETURN count(*), count(p), collect(p.name), sum(p.age), avg(p.age), min(p.age)', undefined,
      [[0, 0, [], 0, null, null]]],
    ['aggregates', 'MATCH (p:Person) RETURN count(p.age), sum(p.age), avg(p.age), min(p.name), max(p.age), collect(DISTINCT p.age > 26)', undefined,
      [[3, 96, 32, 'Ann', 41, [true, false]]]],
    ['expression around aggregates', 'MATCH (p:Person) RETURN count(*) * 10 + 1 AS x', undefined, [[41]]],
    ['OPTIONAL MATCH keeps unmatched rows', 'MATCH (p:Person) OPTIONAL MATCH (p)-[:WORKS_AT]->(c) RETURN p.name, c.name', undefined,
      [['Ann', 'Acme'], ['Bob', 'Acme'], ['Cid', null], ['Dan', null]]],
    ['functions', "MATCH (p {id: 'ann'}) RETURN labels(p), keys(p), toUpper(p.name), coalesce(p.nope, 'x'), head(p.tags), p.tags[-1], toString(p.age), toInteger('42')", undefined,
      [[['Person'], ['age', 'name', 'tags'], 'ANN', 'x', 'a', 'b', '30', 42]]],
    ['literals and arithmetic', "RETURN 1 + 2 * 3, 'a' + 1, [1] + [2, 3], 2 ^ 10, 7 % 3, -(-1), {b: 1, a: [null]}", undefined,
      [[7, 'a1', [1, 2, 3], 1024, 1, 1, { a: [null], b: 1 }]]],
    ['null logic', 'RETURN null = null, null AND false, null OR true, NOT null, 1 IN [null, 1], 2 IN [null, 1]', undefined,
      [[null, false, true, null, true, null]]],
    ['list slicing: bounds, open ends, negatives, clamping', 'RETURN [1, 2, 3, 4][1..3], [1, 2, 3][..2], [1, 2, 3][1..], [1, 2, 3][-2..], [1, 2, 3][..-1], [1, 2][0..9], [1, 2][2..1], [1, 2][null..1]', undefined,
      [[[2, 3], [1, 2], [2, 3], [2, 3], [1, 2], [1, 2], [], null]]],
    ['slicing a pattern comprehension', "MATCH (p {id: 'ann'}) RETURN [(p)-[:KNOWS]->(f) | f.name][..1], [(p)-[:KNOWS]->(f) | f.name][0..0]", undefined,
      [[['Bob'], []]]],
    ['CASE: generic and simple forms, ELSE, no match is null', "MATCH (p:Person) RETURN CASE WHEN p.age > 35 THEN 'old' WHEN p.age IS NULL THEN '?' ELSE 'young' END, CASE p.name WHEN 'Ann' THEN 1 WHEN 'Bob' THEN 2 END", undefined,
      [['young', 1], ['young', 2], ['old', null], ['?', null]]],
    ['CASE over labels picks a projection per label', "MATCH (a {id: 'ann'}) RETURN [(a)-->(x) | CASE labels(x)[0] WHEN 'Company' THEN x {.name, kind: 'c'} ELSE x {.age} END]", undefined,
      [[[{ kind: 'c', name: 'Acme' }, { age: 25 }, { age: 41 }]]]],
    ['RETURN * orders variables by name', "MATCH (b {id: 'bob'}), (a {id: 'ann'}) RETURN *", undefined,
      [[{ age: 30, id: 'ann', name: 'Ann', tags: ['a', 'b'] }, { age: 25, id: 'bob', name: 'Bob' }]]],
  ])('%s', async (_name, text, params, want) => {
    expect(await rows(text, params)).toEqual(want);
  });

  it('reports columns as written or aliased, and the read version', async () => {
    const result = await q('MATCH (p:Person) RETURN p.name, count(*) AS n');
    expect(result.columns).toEqual(['p.name', 'n']);
    expect(result.version).toBe(1);
    expect(result.stats).toBeUndefined();
  });

  it.each<[string, string, Record<string, unknown> | undefined, string]>([
    ['missing parameter', 'MATCH (p {name: $who}) RETURN p', undefined, 'Missing parameter $who'],
    ['type error', "RETURN 1 + true", undefined, 'Type error in +'],
    ['division by zero', 'RETURN 1 / 0', undefined, 'division by zero'],
    ['bad LIMIT', 'MATCH (p) RETURN p LIMIT $l', { l: -1 }, 'LIMIT needs a non-negative integer'],
    ['WHERE not boolean', 'MATCH (p) WHERE p.name RETURN p', undefined, 'expected a boolean'],
    ['slice of a non-list', "RETURN 'abc'[0..1]", undefined, 'Type error in [from..to]'],
    ['fractional slice bound', 'RETURN [1, 2][0..1.5]', undefined, 'integer bounds'],
    ['CASE WHEN not boolean', 'RETURN CASE WHEN 1 THEN 2 END', undefined, 'Type error in CASE WHEN'],
  ])('runtime error: %s', async (_name, text, params, fragment) => {
    const error = await cypherFailure(text, params);
    expect(error.code).toBe('TG_CYPHER_RUNTIME');
    expect(error.message).toContain(fragment);
  });

  it('answers TG_GRAPH_NOT_FOUND for an unknown graph', async () => {
    await expect(runCypher(engine, 'nope', 'MATCH (n) RETURN n')).rejects.toMatchObject({ code: 'TG_GRAPH_NOT_FOUND' });
  });
});

/** Records view calls so the tests can check the plan shape: scans pushed down, one expand per step. */
describe('runCypher: plan shape', () => {
  it('pushes WHERE equalities into the label scan', async () => {
    const s = spyOnViews(engine);
    await runCypher(s.engine, 'g', "MATCH (p:Person) WHERE p.name = 'Bob' AND p.age > 3 RETURN p.name");
    expect(s.calls).toEqual(['scan:["Person",{"first":64,"filter":{"name":"Bob"}}]']);
  });
  it('expands a whole frontier once per step, also for pattern comprehensions', async () => {
    const s = spyOnViews(engine);
    await runCypher(s.engine, 'g', 'MATCH (p:Person)-[:KNOWS]->(f) RETURN p.name, [(f)-[:WORKS_AT]->(c) | c.name]');
    expect(s.calls.map((c) => c.split(':[')[0])).toEqual(['scan', 'expandEach', 'expandEach']);
    // The comprehension's frontier: every f of the matched rows (bob, cid, bob), in one call.
    expect(s.calls[2]).toMatch(/^expandEach:\[\[\{"id":"bob".*\{"id":"cid".*\{"id":"bob"[^\]]*\],"WORKS_AT","out"\]$/);
  });
  it('starts from the bound end of a pattern', async () => {
    const s = spyOnViews(engine);
    await runCypher(s.engine, 'g', "MATCH (a)-[:KNOWS]->(b:Person {name: 'Bob'}) RETURN a.name");
    expect(s.calls[0]).toBe('scan:["Person",{"first":64,"filter":{"name":"Bob"}}]');
    expect(s.calls[1]).toContain('"KNOWS","in"');
  });
});

describe('runCypher: writes', () => {
  it('CREATE makes nodes and edges in one batch and returns them', async () => {
    const result = await q("CREATE (a:Person {name: 'Eve', age: 22})-[:KNOWS]->(b:Person {id: 'fay', name: 'Fay'}) RETURN a, b.id");
    expect(result.version).toBe(2);
    expect(result.rows).toEqual([[{ age: 22, id: 'new-1', name: 'Eve' }, 'fay']]);
    expect(result.stats).toEqual({ nodesCreated: 2, nodesDeleted: 0, relationshipsCreated: 1, relationshipsDeleted: 0, propertiesSet: 3 });
    expect(await rows("MATCH (:Person {name: 'Eve'})-[:KNOWS]->(x) RETURN x.name")).toEqual([['Fay']]);
  });

  it('CREATE per matched row, joining existing nodes', async () => {
    const result = await q("MATCH (p:Person) WHERE p.age > 26 CREATE (p)-[:MEMBER]->(:Club {name: p.name + ' club'})");
    expect(result.version).toBe(2);
    expect(result.stats?.nodesCreated).toBe(2);
    expect(await rows('MATCH (p)-[:MEMBER]->(c:Club) RETURN p.name, c.name')).toEqual([['Ann', 'Ann club'], ['Cid', 'Cid club']]);
  });

  it('SET, += and REMOVE bump the version once and later clauses see earlier writes', async () => {
    const result = await q("MATCH (p:Person {id: 'ann'}) SET p.age = p.age + 1, p.city = 'Oslo' SET p += {nick: 'A', name: null} SET p.double = p.age * 2 REMOVE p.tags RETURN p");
    expect(result.version).toBe(2);
    expect(result.rows).toEqual([[{ age: 31, city: 'Oslo', double: 62, id: 'ann', nick: 'A' }]]);
    expect(engine.view('g').version).toBe(2);
  });

  it('SET n = map replaces every property', async () => {
    await q("MATCH (p {id: 'bob'}) SET p = {name: 'Robert'}");
    expect(await rows("MATCH (p {id: 'bob'}) RETURN p")).toEqual([[{ id: 'bob', name: 'Robert' }]]);
  });

  it('DELETE refuses a node with edges, DETACH DELETE removes them', async () => {
    const error = await cypherFailure("MATCH (p {id: 'cid'}) DELETE p");
    expect(error.code).toBe('TG_CYPHER_RUNTIME');
    expect(error.message).toContain('DETACH DELETE');
    expect(engine.view('g').version).toBe(1);
    const result = await q("MATCH (p {id: 'cid'}) DETACH DELETE p RETURN p");
    expect(result.rows).toEqual([[null]]);
    expect(result.stats).toMatchObject({ nodesDeleted: 1, relationshipsDeleted: 2 });
    expect(await rows("MATCH (a {id: 'ann'})-[:KNOWS]->(b) RETURN b.name")).toEqual([['Bob']]);
  });

  it('DELETE of a relationship and of an isolated node', async () => {
    const result = await q("MATCH (a {id: 'ann'})-[r:KNOWS]->(b {id: 'bob'}) DELETE r");
    expect(result.stats).toMatchObject({ relationshipsDeleted: 1 });
    await q("MATCH (d {id: 'dan'}) DELETE d");
    expect(await rows('MATCH (p:Person) RETURN p.id')).toEqual([['ann'], ['bob'], ['cid']]);
    expect(engine.view('g').version).toBe(3);
  });

  it('a write that matches nothing commits nothing', async () => {
    const result = await q("MATCH (p {id: 'nobody'}) SET p.x = 1");
    expect(result.version).toBe(1);
    expect(result.stats?.propertiesSet).toBe(0);
  });

  it('a failing batch changes nothing', async () => {
    const error = await cypherFailure("CREATE (:Person {id: 'ann'})");
    expect(error.code).toBe('TG_NODE_EXISTS');
    expect(engine.view('g').version).toBe(1);
  });

  it('queues concurrent writers of one process: 16 plain CREATEs all commit, versions contiguous', async () => {
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => q(`CREATE (:Client {n: ${i}})`)));
    expect(results.map((r) => r.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i + 2));
    expect(await rows('MATCH (c:Client) RETURN count(*)')).toEqual([[16]]);
  });

  it('retries a write that lost a race to another instance sharing the storage, reading again', async () => {
    const store = new MemoryStore();
    const a = await GraphEngine.open({ persistence: new MemoryPersistence({ store }) });
    await a.createGraph('s');
    await a.commit({ graph: 's', mutations: [{ op: 'createNode', id: 'bob', label: 'Person', props: { age: 1 } }] });
    const b = await GraphEngine.open({ persistence: new MemoryPersistence({ store }) });
    let raced = false;
    const racing: CypherEngine = {
      read: (graph, work) => a.read(graph, work),
      // Instance b commits between a's read and a's commit: a's append then conflicts in the storage.
      transact: (graph, work) => a.transact(graph, (view, commit) => work(view, async (batch) => {
        if (!raced) {
          raced = true;
          await b.commit({ graph: 's', mutations: [{ op: 'updateNode', id: 'bob', set: { age: 99 } }] });
        }
        return commit(batch);
      })),
    };
    const result = await runCypher(racing, 's', "MATCH (p {id: 'bob'}) SET p.age = p.age + 1 RETURN p.age");
    expect(result.rows).toEqual([[100]]);
    expect(result.version).toBe(3);
    await a.close();
    await b.close();
  });

  it('gives up on a cross-instance conflict after three attempts', async () => {
    let attempts = 0;
    const losing: CypherEngine = {
      read: (graph, work) => engine.read(graph, work),
      transact: (graph, work) => engine.transact(graph, (view) => work(view, async () => {
        attempts++;
        throw new ToolgraphError('TG_VERSION_CONFLICT', 'Graph "g" already has version 2.');
      })),
    };
    await expect(runCypher(losing, 'g', "CREATE (:Person {name: 'x'})")).rejects.toMatchObject({ code: 'TG_VERSION_CONFLICT' });
    expect(attempts).toBe(3);
  });

  it('refuses property values that are not scalars or scalar lists', async () => {
    const error = await cypherFailure("MATCH (p {id: 'bob'}) SET p.x = {a: 1}");
    expect(error.code).toBe('TG_CYPHER_RUNTIME');
    expect(error.message).toContain('Property x cannot hold a Map');
  });
});

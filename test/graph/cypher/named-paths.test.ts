import { beforeEach, describe, expect, it } from 'vitest';
import { GraphEngine } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { DEFAULT_BUDGET_LIMITS } from '../../../src/graph/budget/budget-limits.ts';
import { runCypher, type CypherResult } from '../../../src/graph/cypher/index.ts';
import { failure } from '../../support/toolgraph-failure.ts';

let engine: GraphEngine;

async function q(text: string, params?: Record<string, unknown>): Promise<CypherResult> {
  return runCypher(engine, 'g', text, params, {});
}
async function rows(text: string, params?: Record<string, unknown>): Promise<unknown[][]> {
  return (await q(text, params)).rows;
}

async function graphOf(nodes: readonly string[], edges: readonly (readonly [string, string, string])[]): Promise<GraphEngine> {
  const e = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await e.createGraph('g');
  await e.commit({
    graph: 'g',
    mutations: [
      ...nodes.map((id) => ({ op: 'createNode' as const, id, label: 'N', props: { name: id } })),
      ...edges.map(([src, tgt, type]) => ({ op: 'addEdge' as const, src, tgt, type })),
    ],
  });
  return e;
}

const node = (id: string): Record<string, unknown> => ({ id, name: id });
const rel = (src: string, tgt: string, type: string): Record<string, unknown> => ({ src, tgt, type });

beforeEach(async () => {
  // ann→bob→cid (KNOWS), dan→ann (LIKES)
  engine = await graphOf(['ann', 'bob', 'cid', 'dan'], [['ann', 'bob', 'KNOWS'], ['bob', 'cid', 'KNOWS'], ['dan', 'ann', 'LIKES']]);
});

describe('named paths in MATCH', () => {
  it.each<[string, string, unknown[][]]>([
    ['a one-node path', "MATCH p = (a {id: 'ann'}) RETURN p, length(p)", [[[node('ann')], 0]]],
    ['a fixed-length path is its nodes and relationships alternating', "MATCH p = (a {id: 'ann'})-->(b)-->(c) RETURN p",
      [[[node('ann'), rel('ann', 'bob', 'KNOWS'), node('bob'), rel('bob', 'cid', 'KNOWS'), node('cid')]]]],
    ['a step against its relationship, read from the pattern start', "MATCH p = (a {id: 'ann'})<--(d) RETURN p",
      [[[node('ann'), rel('dan', 'ann', 'LIKES'), node('dan')]]]],
    ['a variable-length path walks its relationships', "MATCH p = (a {id: 'dan'})-[*2]->(b) RETURN nodes(p), length(p)",
      [[[node('dan'), node('ann'), node('bob')], 2]]],
    ['matched from the far end, still in pattern order', "MATCH p = (a)<-[:KNOWS*]-(b) WHERE a.name = 'cid' AND b.name = 'ann' RETURN [n IN nodes(p) | n.name]",
      [[['cid', 'bob', 'ann']]]],
    ['an undirected var-length path', "MATCH p = (a {id: 'cid'})-[*3]-(b) RETURN [n IN nodes(p) | n.name], [r IN relationships(p) | type(r)]",
      [[['cid', 'bob', 'ann', 'dan'], ['KNOWS', 'KNOWS', 'LIKES']]]],
    ['a zero-length var-length path', "MATCH p = (a {id: 'cid'})-[*0..0]->(b) RETURN length(p), nodes(p) = [a]", [[0, true]]],
    ['several named patterns in one MATCH', "MATCH p = (a {id: 'ann'})-->(b), q = (b)-->(c) RETURN length(p) + length(q), last(nodes(p)) = head(nodes(q))", [[2, true]]],
    ['null from an unmatched OPTIONAL MATCH', "MATCH (c {id: 'cid'}) OPTIONAL MATCH p = (c)-->() RETURN p, nodes(p), length(p)", [[null, null, null]]],
    ['OPTIONAL MATCH that matches', "MATCH (b {id: 'bob'}) OPTIONAL MATCH p = (b)-->() RETURN length(p)", [[1]]],
    ['a pattern comprehension', "MATCH (a {id: 'ann'}) RETURN [p = (a)-[*]->() | length(p)] AS ls", [[[1, 2]]]],
    ['paths compare equal, DISTINCT and group by value', "MATCH p = (a {id: 'ann'})-[*]->() MATCH q = (a)-[*]->() WITH p, p = q AS same RETURN same, count(DISTINCT p), count(*) ORDER BY same", [[false, 2, 2], [true, 2, 2]]],
    ['paths order after lists, before strings', "MATCH p = ({id: 'ann'})-->() UNWIND ['s', p, [1]] AS v RETURN v ORDER BY v",
      [[[1]], [[node('ann'), rel('ann', 'bob', 'KNOWS'), node('bob')]], ['s']]],
    ['a path is not read when nobody reads it', "MATCH p = (a)-[*]->(b) RETURN count(*)", [[6]]],
  ])('%s', async (_name, text, expected) => {
    expect(await rows(text)).toEqual(expected);
  });

  it('length() is of paths alone; nodes() and relationships() too', async () => {
    for (const text of ["MATCH (n {id: 'ann'}) WITH [n] AS l RETURN length(l[0])", "MATCH ()-[r]->() WITH [r] AS l RETURN length(l[0])", "RETURN length('abc')",
    "MATCH p = ({id: 'ann'})-->() WITH [p] AS l RETURN size(l[0])", 'RETURN nodes([1])', 'RETURN relationships(1)']) {
      expect((await failure(q(text))).code).toBe('TG_CYPHER_RUNTIME');
    }
    expect(await rows('RETURN length(null), nodes(null), relationships(null)')).toEqual([[null, null, null]]);
  });

  it.each([
    ['MATCH (n) RETURN length(n)', 'length() takes a path'],
    ['MATCH ()-[r]->() RETURN nodes(r)', 'nodes() takes a path'],
    ['MATCH p = (a)-->(b) RETURN size(p)', 'size() takes a string or list'],
    ['MATCH p = (a)-[*]->(b) WHERE p.name = 1 RETURN p', 'a path has no properties'],
    ['MATCH p = ()-->(), ()-[p]-() RETURN p', 'already a path'],
    ['MATCH p = ()-->() WITH p MATCH ()-[p*]-() RETURN p', 'already a path'],
  ])('refuses before it runs: %s', async (text, message) => {
    const error = await failure(q(text));
    expect(error.code).toBe('TG_CYPHER_SYNTAX');
    expect(error.message).toContain(message);
  });

  it('a path variable must be new', async () => {
    expect((await failure(q('MATCH (p) MATCH p = (a)-->(b) RETURN p'))).code).toBe('TG_CYPHER_SYNTAX');
    expect((await failure(q('MATCH p = (p)-->(b) RETURN p'))).code).toBe('TG_CYPHER_SYNTAX');
    expect((await failure(q('MATCH p = (a)-->(b), p = (c) RETURN p'))).code).toBe('TG_CYPHER_SYNTAX');
  });

  it('p = (a)-[*]->(b) on a hub runs to the budget and is refused', async () => {
    const spokes = Array.from({ length: 3_000 }, (_, i) => `s${i}`);
    engine = await graphOf(['hub', ...spokes], spokes.flatMap((s) => [['hub', s, 'T'], [s, 'hub', 'T']] as const));
    const started = performance.now();
    const error = await failure(q('MATCH p = (a)-[*]->(b) RETURN length(p)'));
    expect(error.code).toBe('TG_QUERY_BUDGET_EXCEEDED');
    expect(performance.now() - started).toBeLessThan(DEFAULT_BUDGET_LIMITS.timeoutMs + 1_000);
    expect(['maxRows', 'maxResultBytes', 'timeoutMs']).toContain((error.details as { limit: string }).limit);
    // Each path is charged by its size as it is built: a byte budget the paths meet first names maxResultBytes.
    const small = await failure(runCypher(engine, 'g', 'MATCH p = (a)-[*]->(b) RETURN length(p)', {}, { limits: { ...DEFAULT_BUDGET_LIMITS, maxResultBytes: 1_000_000 } }));
    expect(small.details).toMatchObject({ limit: 'maxResultBytes', max: 1_000_000 });
  }, 60_000);
});

describe('named paths in updates', () => {
  it('CREATE p = (...) binds the path it made', async () => {
    expect(await rows("MATCH (a {id: 'cid'}) CREATE p = (a)-[:T]->(:N {name: 'eve'})<-[:U]-(:N {name: 'fay'}) RETURN [n IN nodes(p) | n.name], [r IN relationships(p) | type(r)]"))
      .toEqual([[['cid', 'eve', 'fay'], ['T', 'U']]]);
  });

  it('MERGE p = (...) binds the path it matched or made', async () => {
    expect(await rows("MATCH (a {id: 'ann'}), (b {id: 'bob'}) MERGE p = (a)-[:KNOWS]->(b) RETURN length(p), [n IN nodes(p) | n.name]")).toEqual([[1, ['ann', 'bob']]]);
    expect(await rows("MATCH (a {id: 'cid'}), (b {id: 'ann'}) MERGE p = (a)-[:KNOWS]->(b) RETURN length(p), [n IN nodes(p) | n.name]")).toEqual([[1, ['cid', 'ann']]]);
  });

  it('DELETE p deletes its nodes and relationships; DETACH DELETE p the rest of their relationships too', async () => {
    const refused = await failure(q("MATCH p = ({id: 'ann'})-->({id: 'bob'}) DELETE p"));
    expect(refused.code).toBe('TG_CYPHER_RUNTIME');
    expect(await rows("MATCH p = ({id: 'bob'})-->({id: 'cid'}) DETACH DELETE p RETURN 1")).toEqual([[1]]);
    expect(await rows('MATCH (n) RETURN n.name ORDER BY n.name')).toEqual([['ann'], ['dan']]);
    expect(await rows('MATCH p = (a)-->(b) DELETE p RETURN 1')).toEqual([[1]]);
    expect(await rows('MATCH (n) RETURN count(n)')).toEqual([[0]]);
  });
});

describe('shortestPath and allShortestPaths', () => {
  beforeEach(async () => {
    // Two shortest routes a→d (via b, via c), a longer one via e→f, and an isolated z.
    engine = await graphOf(['a', 'b', 'c', 'd', 'e', 'f', 'z'], [
      ['a', 'b', 'T'], ['b', 'd', 'T'], ['a', 'c', 'T'], ['c', 'd', 'T'], ['a', 'e', 'T'], ['e', 'f', 'T'], ['f', 'd', 'T'], ['d', 'a', 'U'],
    ]);
  });

  it.each<[string, string, unknown[][]]>([
    ['one shortest path', "MATCH p = shortestPath((x {id: 'a'})-[:T*]->(y {id: 'd'})) RETURN length(p), head(nodes(p)).name, last(nodes(p)).name", [[2, 'a', 'd']]],
    ['all shortest paths', "MATCH p = allShortestPaths((x {id: 'a'})-[:T*]->(y {id: 'd'})) RETURN [n IN nodes(p) | n.name] AS ns ORDER BY ns", [[['a', 'b', 'd']], [['a', 'c', 'd']]]],
    ['any type, either way: one hop back', "MATCH p = shortestPath((x {id: 'a'})-[*]-(y {id: 'd'})) RETURN length(p), [r IN relationships(p) | type(r)]", [[1, ['U']]]],
    ['the relationship variable is the list', "MATCH shortestPath((x {id: 'd'})<-[r:T*]-(y {id: 'a'})) RETURN size(r), type(r[0])", [[2, 'T']]],
    ['an upper bound too short finds nothing', "MATCH p = shortestPath((x {id: 'a'})-[:T*..1]->(y {id: 'd'})) RETURN p", []],
    ['no path, no row', "MATCH p = shortestPath((x {id: 'a'})-[*]-(y {id: 'z'})) RETURN p", []],
    ['OPTIONAL MATCH gives null', "MATCH (x {id: 'a'}), (y {id: 'z'}) OPTIONAL MATCH p = shortestPath((x)-[*]-(y)) RETURN p", [[null]]],
    ['the same node at *0.. is a path of length 0', "MATCH p = shortestPath((x {id: 'a'})-[*0..]-(y {id: 'a'})) RETURN length(p)", [[0]]],
    ['the same node at *1.. finds nothing', "MATCH p = shortestPath((x {id: 'a'})-[*]-(y {id: 'a'})) RETURN length(p)", []],
    ['ends scanned by label', "MATCH p = shortestPath((x:N {id: 'b'})-[:T*]->(y:N)) RETURN y.name, length(p) ORDER BY y.name", [['d', 1]]],
    ['a single-hop relationship', "MATCH p = shortestPath((x {id: 'a'})-[r:T]->(y {id: 'b'})) RETURN type(r), length(p)", [['T', 1]]],
  ])('%s', async (_name, text, expected) => {
    expect(await rows(text)).toEqual(expected);
  });

  it('refuses a minimal length above 1, several relationships, and use outside MATCH', async () => {
    expect((await failure(q("MATCH p = shortestPath((x)-[*2..]-(y)) RETURN p"))).code).toBe('TG_CYPHER_SYNTAX');
    expect((await failure(q("MATCH p = shortestPath((x)-->()-->(y)) RETURN p"))).code).toBe('TG_CYPHER_SYNTAX');
    expect((await failure(q("MATCH p = shortestPath((x)) RETURN p"))).code).toBe('TG_CYPHER_SYNTAX');
    expect((await failure(q("MATCH (a:N {id: 'a'}) CREATE p = shortestPath((a)-[:T]->(:N)) RETURN p"))).code).toBe('TG_CYPHER_UNSUPPORTED');
    expect((await failure(q("MATCH (a {id: 'a'}) RETURN [p = shortestPath((a)-[*]->()) | p]"))).code).toBe('TG_CYPHER_UNSUPPORTED');
  });

  it('a search across a large graph runs to the budget and is refused', async () => {
    // A 40,000-node chain, searched from every node to an isolated one: every search visits the chain.
    const ids = Array.from({ length: 40_000 }, (_, i) => `n${i}`);
    engine = await graphOf([...ids, 'z'], ids.slice(1).map((id, i) => [ids[i]!, id, 'T'] as const));
    const error = await failure(runCypher(engine, 'g', "MATCH (y {id: 'z'}) MATCH p = shortestPath((x)-[*]-(y)) RETURN p", {}, { limits: { ...DEFAULT_BUDGET_LIMITS, timeoutMs: 2_000 } }));
    expect(error.code).toBe('TG_QUERY_BUDGET_EXCEEDED');
  }, 60_000);
});

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphEngine, type MutationInput } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { runCypher } from '../../../src/graph/cypher/index.ts';

// CALL { … } subqueries on random small graphs agree with the statements they mean: an uncorrelated
// returning subquery is a cross product, a correlated one a MATCH (or an OPTIONAL MATCH when it
// aggregates), and UNION inside equals UNION outside.
let engine: GraphEngine;
let graphs = 0;

beforeAll(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
});

afterAll(async () => {
  await engine.close();
});

const smallGraph = fc.record({
  nodes: fc.array(fc.constantFrom('A', 'B'), { maxLength: 7 }),
  edges: fc.array(fc.tuple(fc.nat(6), fc.nat(6), fc.constantFrom('R', 'S')), { maxLength: 12 }),
});

async function load(graph: { nodes: readonly string[]; edges: readonly (readonly [number, number, string])[] }): Promise<string> {
  const name = `p${graphs++}`;
  await engine.createGraph(name);
  const mutations: MutationInput[] = graph.nodes.map((label, i) => ({ op: 'createNode', id: `n${i}`, label, props: { v: i } }));
  for (const [src, tgt, type] of graph.edges) {
    if (src < graph.nodes.length && tgt < graph.nodes.length) mutations.push({ op: 'addEdge', src: `n${src}`, tgt: `n${tgt}`, type });
  }
  if (mutations.length > 0) await engine.commit({ graph: name, mutations });
  return name;
}

const EQUIVALENT: readonly (readonly [string, string])[] = [
  ['MATCH (a) CALL { MATCH (b) RETURN b } RETURN a.v AS x, b.v AS y ORDER BY x, y', 'MATCH (a), (b) RETURN a.v AS x, b.v AS y ORDER BY x, y'],
  ['MATCH (a:A) CALL { MATCH (b:B) RETURN b.v AS y } RETURN a.v AS x, y ORDER BY x, y', 'MATCH (a:A), (b:B) RETURN a.v AS x, b.v AS y ORDER BY x, y'],
  ['MATCH (a) CALL { WITH a MATCH (a)-[:R]->(b) RETURN b.v AS y } RETURN a.v AS x, y ORDER BY x, y', 'MATCH (a)-[:R]->(b) RETURN a.v AS x, b.v AS y ORDER BY x, y'],
  ['MATCH (a) CALL { WITH a MATCH (a)--(b) RETURN count(b) AS c } RETURN a.v AS x, c ORDER BY x', 'MATCH (a) OPTIONAL MATCH (a)--(b) RETURN a.v AS x, count(b) AS c ORDER BY x'],
  ['CALL { MATCH (a:A) RETURN a.v AS x UNION MATCH (b)-[:S]->() RETURN b.v AS x } RETURN x ORDER BY x', 'MATCH (a:A) RETURN a.v AS x UNION MATCH (b)-[:S]->() RETURN b.v AS x ORDER BY x'],
  ['MATCH (a) CALL { WITH a MATCH (a)-->(b) RETURN b.v AS y ORDER BY y DESC LIMIT 1 } RETURN a.v AS x, y ORDER BY x', 'MATCH (a)-->(b) WITH a, max(b.v) AS y RETURN a.v AS x, y ORDER BY x'],
];

describe('CALL { … } against the statements it means', () => {
  it('agrees on random small graphs', async () => {
    await fc.assert(fc.asyncProperty(smallGraph, async (graph) => {
      const name = await load(graph);
      for (const [withCall, plain] of EQUIVALENT) {
        const a = (await runCypher(engine, name, withCall)).rows;
        let b = (await runCypher(engine, name, plain)).rows;
        // UNION outside sorts only its last branch: sort the whole result the same way.
        if (plain.includes('UNION')) b = [...b].sort((l, r) => (l[0] as number) - (r[0] as number));
        expect(a, withCall).toEqual(b);
      }
    }), { numRuns: 60 });
  });
});

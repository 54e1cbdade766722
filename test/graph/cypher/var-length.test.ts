import fc from 'fast-check';
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

beforeEach(async () => {
  // ann→bob→cid→dan (KNOWS), ann→cid (KNOWS), dan→ann (LIKES)
  engine = await graphOf(['ann', 'bob', 'cid', 'dan'], [
    ['ann', 'bob', 'KNOWS'], ['bob', 'cid', 'KNOWS'], ['cid', 'dan', 'KNOWS'], ['ann', 'cid', 'KNOWS'], ['dan', 'ann', 'LIKES'],
  ]);
});

describe('variable-length relationships', () => {
  it.each<[string, string, unknown[][]]>([
    ['*1..3 out', "MATCH (a {id: 'ann'})-[:KNOWS*1..3]->(b) RETURN b.name ORDER BY b.name", [['bob'], ['cid'], ['cid'], ['dan'], ['dan']]],
    ['exactly *2', "MATCH (a {id: 'ann'})-[:KNOWS*2]->(b) RETURN b.name ORDER BY b.name", [['cid'], ['dan']]],
    ['*..1', "MATCH (a {id: 'ann'})-[:KNOWS*..1]->(b) RETURN b.name ORDER BY b.name", [['bob'], ['cid']]],
    ['*3..', "MATCH (a {id: 'ann'})-[:KNOWS*3..]->(b) RETURN b.name", [['dan']]],
    ['*0.. includes the start', "MATCH (a {id: 'dan'})-[:KNOWS*0..]->(b) RETURN b.name", [['dan']]],
    ['incoming', "MATCH (a {id: 'dan'})<-[:KNOWS*2..2]-(b) RETURN b.name ORDER BY b.name", [['ann'], ['bob']]],
    ['types A|B', "MATCH (a {id: 'cid'})-[:KNOWS|LIKES*2]->(b) RETURN b.name", [['ann']]],
    ['any type, unbounded', "MATCH (a {id: 'dan'})-[*]->(b) RETURN count(*)", [[6]]],
    ['both directions', "MATCH (a {id: 'bob'})-[:KNOWS*2]-(b) RETURN b.name ORDER BY b.name", [['ann'], ['cid'], ['dan']]],
    ['the relationship list', "MATCH (a {id: 'ann'})-[r:KNOWS*2]->(b {id: 'dan'}) RETURN [x IN r | type(x)], size(r)", [[['KNOWS', 'KNOWS'], 2]]],
    ['list in pattern order when matched from the far end', "MATCH (a)-[r:KNOWS*2]->(b {id: 'dan'}) WHERE a.name = 'bob' RETURN r",
      [[[{ src: 'bob', tgt: 'cid', type: 'KNOWS' }, { src: 'cid', tgt: 'dan', type: 'KNOWS' }]]]],
    ['bound at both ends', "MATCH (a {id: 'ann'}), (b {id: 'dan'}) MATCH (a)-[*]->(b) RETURN count(*)", [[2]]],
  ])('%s', async (_name, text, expected) => {
    expect(await rows(text)).toEqual(expected);
  });

  it('MATCH (a {id: $a})-[:KNOWS*1..3]->(b) RETURN DISTINCT b.name works', async () => {
    const out = await rows('MATCH (a {id: $a})-[:KNOWS*1..3]->(b) RETURN DISTINCT b.name', { a: 'ann' });
    expect(out.map((r) => r[0]).sort()).toEqual(['bob', 'cid', 'dan']);
  });

  it('a relationship appears at most once per path, and not twice in one MATCH', async () => {
    // The LIKES cycle ann→…→dan→ann cannot be walked twice: paths end when edges run out.
    expect(await rows("MATCH (a {id: 'ann'})-[*]->(b) RETURN count(*)")).toEqual([[10]]);
    // The fixed relationship r is excluded from the variable-length walk of the same MATCH.
    expect(await rows("MATCH (x {id: 'ann'})-[r:KNOWS]->(y {id: 'bob'}), (y)<-[:KNOWS*1..2]-(z) RETURN z.name")).toEqual([]);
    expect(await rows("MATCH (y {id: 'cid'})<-[:KNOWS*1..1]-(z), (z)-[r:KNOWS]->(w) RETURN z.name, w.name ORDER BY z.name, w.name"))
      .toEqual([['ann', 'bob']]);
  });

  it('an empty hop range (upper bound below the lower) matches nothing', async () => {
    for (const range of ['2..1', '1..0', '..0']) expect(await rows(`MATCH (a {id: 'ann'})-[:KNOWS*${range}]->(b) RETURN b`)).toEqual([]);
  });

  it('a bound relationship list matches exactly that list, in its direction', async () => {
    const list = "MATCH ({id: 'ann'})-[r1]->({id: 'bob'})-[r2]->({id: 'cid'}) WITH [r1, r2] AS rs ";
    expect(await rows(`${list}MATCH (a)-[rs*]->(b) RETURN a.name, b.name`)).toEqual([['ann', 'cid']]);
    expect(await rows(`${list}MATCH (a {id: 'ann'})-[rs*]->(b {id: 'cid'}) RETURN count(*)`)).toEqual([[1]]);
    // Read from the far end (b bound first), the list is walked from its last relationship.
    expect(await rows(`${list}MATCH (b {id: 'cid'}) MATCH (a)-[rs*]->(b) RETURN a.name`)).toEqual([['ann']]);
    expect(await rows(`${list}MATCH (a)<-[rs*]-(b) RETURN count(*)`)).toEqual([[0]]);
    expect(await rows(`${list}MATCH (a)-[rs*1]->(b) RETURN count(*)`)).toEqual([[0]]);
    expect(await rows(`${list}MATCH (a)-[rs:LIKES*]->(b) RETURN count(*)`)).toEqual([[0]]);
    expect(await rows("MATCH ({id: 'ann'})-[r1]->({id: 'bob'}) WITH [r1, r1] AS rs MATCH (a)-[rs*]-(b) RETURN count(*)")).toEqual([[0]]);
    expect((await failure(q('WITH [1] AS rs MATCH (a)-[rs*]->(b) RETURN a'))).code).toBe('TG_CYPHER_RUNTIME');
  });

  it('refuses CREATE of a variable-length relationship', async () => {
    const error = await failure(q("MATCH (a {id: 'ann'}) CREATE (a)-[:KNOWS*2]->(:N)"));
    expect(error.code).toBe('TG_CYPHER_UNSUPPORTED');
  });

  it('a variable-length expansion on a 10,000-edge hub is refused within the time budget', async () => {
    // 5,000 spokes out of the hub and 5,000 back: paths hub→s→hub→s'→… multiply without end.
    const spokes = Array.from({ length: 5_000 }, (_, i) => `s${i}`);
    engine = await graphOf(['hub', ...spokes], spokes.flatMap((s) => [['hub', s, 'T'], [s, 'hub', 'T']] as const));
    const before = process.memoryUsage().heapUsed;
    let started = performance.now();
    // Default limits: refused by whichever limit is met first, within the time budget.
    const error = await failure(q('MATCH (a)-[*]->(b) RETURN count(*)'));
    expect(error.code).toBe('TG_QUERY_BUDGET_EXCEEDED');
    expect(['maxRows', 'timeoutMs']).toContain((error.details as { limit: string }).limit);
    expect(performance.now() - started).toBeLessThan(DEFAULT_BUDGET_LIMITS.timeoutMs + 1_000);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(256 * 1024 * 1024);
    // A row budget the walk meets first names maxRows, quickly.
    started = performance.now();
    const rowsError = await failure(runCypher(engine, 'g', 'MATCH (a)-[*]->(b) RETURN count(*)', {}, { limits: { ...DEFAULT_BUDGET_LIMITS, maxRows: 5_000 } }));
    expect(rowsError.details).toMatchObject({ limit: 'maxRows', max: 5_000 });
    expect(performance.now() - started).toBeLessThan(2_000);
  }, 60_000);
});

/** All (start, end, edge-index list) results of `(a)-[:types*min..max]-dir-(b)` by brute force. */
function naive(nodes: readonly string[], edges: readonly (readonly [string, string, string])[], types: readonly string[], dir: 'out' | 'in' | 'both', min: number, max: number): string[] {
  const out: string[] = [];
  const walk = (start: string, at: string, used: number[]): void => {
    if (used.length >= min) out.push(`${start}|${at}|${used.map((i) => edges[i]!.join('>')).join(',')}`);
    if (used.length === max) return;
    edges.forEach(([s, t, type], i) => {
      if (used.includes(i) || (types.length > 0 && !types.includes(type))) return;
      if ((dir === 'out' || dir === 'both') && s === at) walk(start, t, [...used, i]);
      if ((dir === 'in' || dir === 'both') && t === at && !(dir === 'both' && s === at)) walk(start, s, [...used, i]);
    });
  };
  for (const n of nodes) walk(n, n, []);
  return out.sort();
}

describe('variable-length expansion against a naive enumerator', () => {
  it('gives the same (a, b, path) results on small random graphs', async () => {
    const ids = ['a', 'b', 'c', 'd'];
    await fc.assert(fc.asyncProperty(
      fc.uniqueArray(fc.tuple(fc.constantFrom(...ids), fc.constantFrom(...ids), fc.constantFrom('X', 'Y')), { maxLength: 7, selector: (e) => e.join() }),
      fc.subarray(['X', 'Y']), fc.constantFrom('out', 'in', 'both'), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 3 }),
      async (edges, types, dir, min, span) => {
        const max = min + span;
        engine = await graphOf(ids, edges);
        const rel = `[r${types.length > 0 ? `:${types.join('|')}` : ''}*${min}..${max}]`;
        const pattern = dir === 'out' ? `-${rel}->` : dir === 'in' ? `<-${rel}-` : `-${rel}-`;
        const got = (await rows(`MATCH (a)${pattern}(b) RETURN a.name, b.name, [x IN r | startNode(x).name + '>' + endNode(x).name + '>' + type(x)]`))
          .map(([a, b, path]) => `${a as string}|${b as string}|${(path as string[]).join(',')}`).sort();
        expect(got).toEqual(naive(ids, edges, types, dir, min, max));
      },
    ), { numRuns: 60 });
  }, 60_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolgraphError } from '../../../src/errors/index.ts';
import { DEFAULT_BUDGET_LIMITS } from '../../../src/graph/budget/index.ts';
import { runCypher, runCypherJson } from '../../../src/graph/cypher/index.ts';
import { GraphEngine, type MutationInput } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';

// Issue 15, item 7 (fuzzer findings): work inside one chunk of rows (pattern comprehensions over hubs,
// copies of wide nodes, sorts) pauses the event loop between slices and is charged before it allocates.
let engine: GraphEngine;
const HUBS = 32;
const LEAVES = 8_000;
const WIDE = 1_000;

beforeAll(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph('hubs');
  const nodes: MutationInput[] = [];
  for (let h = 0; h < HUBS; h++) nodes.push({ op: 'createNode', id: `hub-${h}`, label: 'Hub', props: { h } });
  for (let l = 0; l < LEAVES; l++) nodes.push({ op: 'createNode', id: `leaf-${l}`, label: 'Leaf', props: { n: l } });
  nodes.push({ op: 'createNode', id: 'wide', label: 'Wide', props: Object.fromEntries(Array.from({ length: WIDE }, (_, i) => [`w${i}`, `value ${i}`])) });
  await engine.commit({ graph: 'hubs', mutations: nodes });
  for (let h = 0; h < HUBS; h++) {
    await engine.commit({ graph: 'hubs', mutations: Array.from({ length: LEAVES }, (_, l) => ({ op: 'addEdge', src: `hub-${h}`, tgt: `leaf-${l}`, type: 'LINK' }) as const) });
  }
}, 120_000);

afterAll(async () => {
  await engine.close();
});

/** How the event loop fared while a query ran. */
interface LoopDuring {
  /** setImmediate callbacks that ran meanwhile. */
  turns: number;
  elapsedMs: number;
  /** The longest time between two turns: how long the query held the loop at once. */
  longestHoldMs: number;
}

/**
 * Runs `heavy` while a setImmediate chain counts the event loop's turns. A query that pauses between
 * slices of ~10 ms lets the loop turn many times and never holds it for long; one that does not holds it
 * for the whole query. Measured as a share of the query's own time, so a loaded machine (which
 * stretches both) does not change the verdict.
 */
async function loopDuring(heavy: string, limits = DEFAULT_BUDGET_LIMITS, params: Record<string, unknown> | null = null): Promise<LoopDuring> {
  // Once unmeasured, so the first slice does not also pay for compiling the executor's code.
  await runQuiet(heavy, limits, params);
  let turns = 0;
  let running = true;
  const start = performance.now();
  let last = start;
  let longestHoldMs = 0;
  const spin = (): void => {
    const now = performance.now();
    longestHoldMs = Math.max(longestHoldMs, now - last);
    last = now;
    if (!running) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    await runQuiet(heavy, limits, params);
  } finally {
    running = false;
  }
  const elapsedMs = performance.now() - start;
  longestHoldMs = Math.max(longestHoldMs, elapsedMs - (last - start));
  return { turns, elapsedMs, longestHoldMs };
}

/** Answered or refused on the budget: what counts is whether the loop turned meanwhile. */
async function runQuiet(query: string, limits: typeof DEFAULT_BUDGET_LIMITS, params: Record<string, unknown> | null): Promise<void> {
  await runCypherJson(engine, 'hubs', query, params, { limits }).catch((error: unknown) => {
    if (!(error instanceof ToolgraphError) || error.code !== 'TG_QUERY_BUDGET_EXCEEDED') throw error;
  });
}

/** The query needed pauses (it ran several slices long) and made them: no hold was over half of it. */
function expectPaused(during: LoopDuring): void {
  const verdict = JSON.stringify(during);
  expect(during.elapsedMs, verdict).toBeGreaterThan(30);
  expect(during.turns, verdict).toBeGreaterThan(2);
  expect(during.longestHoldMs, verdict).toBeLessThan(during.elapsedMs / 2);
}

describe('long loops inside one chunk of rows', () => {
  it('a pattern comprehension over hubs (256,000 matched rows for one chunk) pauses between slices', async () => {
    expectPaused(await loopDuring('MATCH (a:Hub) RETURN size([(a)-[:LINK]->(x) | x.n]) AS s'));
    const r = await runCypher(engine, 'hubs', 'MATCH (a:Hub) RETURN size([(a)-[:LINK]->(x) | x.n]) AS s LIMIT 2');
    expect(r.rows).toEqual([[LEAVES], [LEAVES]]);
  });

  it('a WHERE that takes long a row pauses between rows of a chunk, not only between chunks (issue 28, F3)', async () => {
    // A few milliseconds a row: a chunk of 1,024 leaves held the loop for seconds at once.
    const where = Array.from({ length: 40 }, () => "NOT ($t CONTAINS 'ab')").join(' AND ');
    expectPaused(await loopDuring(`MATCH (x:Leaf) WHERE ${where} RETURN count(*) AS n`, { ...DEFAULT_BUDGET_LIMITS, timeoutMs: 2000 }, { t: 'a'.repeat(200_000) }));
  });

  it('a pattern predicate in WHERE over hubs pauses too', async () => {
    expectPaused(await loopDuring(`MATCH (a:Hub) WHERE ${[1, 2, 3, 4, 5, 6].map((k) => `(a)-[:LINK]->(:Leaf {n: -${k}})`).join(' OR ')} OR a.h = 0 RETURN count(*) AS n`));
    expect((await runCypher(engine, 'hubs', 'MATCH (a:Hub) WHERE (a)-[:LINK]->(:Leaf {n: -1}) OR a.h = 0 RETURN count(*) AS n')).rows).toEqual([[1]]);
  });

  it('COUNT { } and EXISTS { } over hubs pause between slices (fuzzer: /healthz waited 3.6 s on COUNT { (a)--() })', async () => {
    // Every row holds a hub: 8,000 matches each, so the statement runs until its (shortened) time
    // budget. The row budget is raised: the subqueries' matches count as rows, and at the default the
    // COUNT case was refused on rows after 125 outer rows, in under 30 ms (CI saw 28.7 ms), before it
    // had needed a pause at all.
    const untilTime = { ...DEFAULT_BUDGET_LIMITS, timeoutMs: 800, maxRows: Number.MAX_SAFE_INTEGER };
    expectPaused(await loopDuring('MATCH (a:Hub), (b:Leaf) RETURN COUNT { (a)--() } AS s', untilTime));
    expectPaused(await loopDuring('MATCH (a:Hub), (b:Leaf) WHERE EXISTS { (a)-[:LINK]->(:Leaf {n: -1}) } OR b.n = -1 RETURN count(*) AS n', untilTime));
    expect((await runCypher(engine, 'hubs', 'MATCH (a:Hub) RETURN COUNT { (a)-[:LINK]->(x) } AS s LIMIT 1')).rows).toEqual([[LEAVES]]);
  });

  it('CALL { … } per outer row: a cross product of leaves × leaves is refused by the budget, pausing between slices', async () => {
    const cross = 'MATCH (a:Leaf) CALL { MATCH (b:Leaf) RETURN b.n AS m } RETURN count(*) AS n';
    // 64 million joined rows: the rows the subquery returns count before they are kept.
    const start = performance.now();
    const error = await runCypherJson(engine, 'hubs', cross).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(ToolgraphError);
    expect((error as ToolgraphError).code).toBe('TG_QUERY_BUDGET_EXCEEDED');
    expect(performance.now() - start).toBeLessThan(DEFAULT_BUDGET_LIMITS.timeoutMs + 2000);
    // With the row budget out of the way, the time budget ends it, and the loop kept turning.
    const untilTime = { ...DEFAULT_BUDGET_LIMITS, timeoutMs: 800, maxRows: Number.MAX_SAFE_INTEGER, maxResultBytes: Number.MAX_SAFE_INTEGER };
    expectPaused(await loopDuring(cross, untilTime));
    expectPaused(await loopDuring('MATCH (a:Leaf) CALL { WITH a MATCH (h:Hub)-[:LINK]->(a) RETURN count(h) AS hubs } RETURN sum(hubs) AS n', untilTime));
  });

  it('WITH, UNWIND and MERGE over many rows pause between slices', async () => {
    expectPaused(await loopDuring('MATCH (a:Hub)-[:LINK]->(x) WITH x, count(a) AS n WITH n, count(x) AS m RETURN n, m'));
    expectPaused(await loopDuring('MATCH (a:Hub) UNWIND range(1, 20000) AS i RETURN count(*) AS n'));
  });

  it('an aggregate folding large values (collect of wide-node copies) pauses inside a chunk', async () => {
    const limits = { ...DEFAULT_BUDGET_LIMITS, maxResultBytes: 64 * 1024 * 1024 };
    expectPaused(await loopDuring('MATCH (a:Wide), (b:Leaf) RETURN size(collect(properties(a))) AS n', limits));
  });

  it('ORDER BY … LIMIT sorts the rows it kept pausing too (fuzzer: /healthz waited 1.5 s on LIMIT 10000)', async () => {
    // Rows arrive worst first, so keeping them is cheap and sorting the 8,000 kept is most of the work;
    // maps compare by their serialised keys, made for every comparison.
    const query = `MATCH (:Hub {id: 'hub-0'})-[:LINK]->(x) RETURN x.n AS n ORDER BY {a: '${'p'.repeat(300)}', n: x.n} DESC LIMIT ${LEAVES}`;
    expectPaused(await loopDuring(query));
    // The kept rows come out as the whole sort orders them (maps order by their serialised form).
    const top = (await runCypher(engine, 'hubs', query.replace(`LIMIT ${LEAVES}`, 'LIMIT 100'))).rows;
    const all = (await runCypher(engine, 'hubs', query.replace(` LIMIT ${LEAVES}`, ''))).rows;
    expect(top).toEqual(all.slice(0, 100));
    expect(all.slice(0, 3)).toEqual([[9], [99], [999]]);
  });

  it('a long ORDER BY (sorted in runs and merged, pausing between slices) is still a stable sort', async () => {
    const query = 'MATCH (a:Hub {id: \'hub-0\'})-[:LINK]->(x) RETURN x.n % 7 AS k, x.n AS n';
    const matched = (await runCypher(engine, 'hubs', query)).rows as number[][];
    const sorted = (await runCypher(engine, 'hubs', `${query} ORDER BY k DESC`)).rows;
    // Ties keep match order.
    const expected = matched.map((row, i) => ({ row, i })).sort((a, b) => b.row[0]! - a.row[0]! || a.i - b.i).map((e) => e.row);
    expect(sorted).toEqual(expected);
  });

  it('copies of a wide node (properties(), keys(), a {.*}) are charged before they are made', async () => {
    for (const copy of ['properties(a)', 'a {.*}', 'keys(a)']) {
      // One row of the copy fits; a copy per leaf does not, though the LIMIT keeps one.
      const limits = { ...DEFAULT_BUDGET_LIMITS, maxResultBytes: 1024 * 1024 };
      expect((await runCypher(engine, 'hubs', `MATCH (a:Wide) RETURN ${copy} AS x`, null, { limits })).rows).toHaveLength(1);
      const error = await runCypherJson(engine, 'hubs', `MATCH (a:Wide), (b:Leaf) RETURN ${copy} AS x ORDER BY x LIMIT 1`, null, { limits }).then(() => null, (e: unknown) => e);
      expect(error, copy).toBeInstanceOf(ToolgraphError);
      expect((error as ToolgraphError).details).toMatchObject({ limit: 'maxResultBytes' });
    }
  });
});

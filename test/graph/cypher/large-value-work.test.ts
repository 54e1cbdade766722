import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ToolgraphError } from '../../../src/errors/index.ts';
import { DEFAULT_BUDGET_LIMITS, QueryBudget } from '../../../src/graph/budget/index.ts';
import { runCypher, runCypherJson } from '../../../src/graph/cypher/index.ts';
import { budgetedKey } from '../../../src/graph/cypher/runtime/value-size.ts';
import { compareValues, newMap, type Value } from '../../../src/graph/cypher/runtime/values.ts';
import { equals } from '../../../src/graph/cypher/runtime/evaluate.ts';
import { GraphEngine, type MutationInput } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';

// Issue 15, item 7 (fuzzer findings): one comparison, equality test or DISTINCT key of a 10,000-element
// list counted as one unit of work, so the budget read its clock (every 256 units) too late and a
// slice ran for hundreds of milliseconds. Work on values now counts in proportion to their size: these
// tests count clock readings (a deterministic function of the work counted), never wall time.

const ITEMS = 100_000;
const big: Value[] = Array.from({ length: ITEMS }, (_, i) => i);
const bigCopy: Value[] = [...big];

/** A budget whose clock counts its readings and never moves (no slice ends, no time budget passes). */
function countingBudget(): { budget: QueryBudget; readings: () => number } {
  let readings = 0;
  const budget = new QueryBudget(DEFAULT_BUDGET_LIMITS, { now: () => { readings++; return 0; } });
  readings = 0;
  return { budget, readings: () => readings };
}

describe('work on large values counts by their size', () => {
  it('a comparison of two long lists reads the clock, however few comparisons there are', () => {
    const { budget, readings } = countingBudget();
    for (let i = 0; i < 10; i++) expect(compareValues(big, bigCopy, budget)).toBe(0);
    expect(readings()).toBeGreaterThanOrEqual(10);
    // Small values cost nothing beyond the comparison's own unit (counted by the caller).
    const small = countingBudget();
    for (let i = 0; i < 10_000; i++) compareValues(i, i + 1, small.budget);
    expect(small.readings()).toBe(0);
  });

  it('a comparison of long strings or of maps (compared by their keys) counts their length', () => {
    const { budget, readings } = countingBudget();
    const s = 'x'.repeat(1_000_000);
    const m = newMap();
    for (let i = 0; i < 10_000; i++) m[`k${i}`] = i;
    for (let i = 0; i < 5; i++) compareValues(s, `${s}y`, budget);
    for (let i = 0; i < 5; i++) compareValues(m, m, budget);
    expect(readings()).toBeGreaterThanOrEqual(10);
  });

  it('an equality test of long lists counts the items it visits', () => {
    const { budget, readings } = countingBudget();
    for (let i = 0; i < 10; i++) expect(equals(big, bigCopy, budget)).toBe(true);
    expect(readings()).toBeGreaterThanOrEqual(10);
  });

  it('a DISTINCT or grouping key of a long list counts its length', () => {
    const { budget, readings } = countingBudget();
    for (let i = 0; i < 10; i++) budgetedKey([big], budget);
    expect(readings()).toBeGreaterThanOrEqual(10);
  });
});

let engine: GraphEngine;
const HUBS = 32;

beforeAll(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph('hubs');
  const nodes: MutationInput[] = Array.from({ length: HUBS }, (_, h) => ({ op: 'createNode', id: `hub-${h}`, label: 'Hub', props: { h } }));
  await engine.commit({ graph: 'hubs', mutations: nodes });
});

afterAll(async () => {
  await engine.close();
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** How many times the statement's budget read its clock: once per 256 units of work counted. */
async function clockReadings(statement: string, params: Record<string, unknown>): Promise<number> {
  const spy = vi.spyOn(QueryBudget.prototype, 'checkTime');
  try {
    await runCypherJson(engine, 'hubs', statement, params).catch((error: unknown) => {
      if (!(error instanceof ToolgraphError) || error.code !== 'TG_QUERY_BUDGET_EXCEEDED') throw error;
    });
    return spy.mock.calls.length;
  } finally {
    spy.mockRestore();
  }
}

describe('Cypher statements over large values read the clock as often as their work needs', () => {
  // 32 rows, each holding a 100,000-item list (or a 1 MB string): without counting by size, the whole
  // statement is a few hundred units of work and the clock is read a couple of times at most.
  const list = Array.from({ length: ITEMS }, (_, i) => i);
  const text = 's'.repeat(1_000_000);

  it.each<[string, string, Record<string, unknown>]>([
    ['ORDER BY over long lists', 'MATCH (a:Hub) RETURN a.h AS h ORDER BY $list', { list }],
    ['DISTINCT over long lists', 'MATCH (a:Hub) RETURN DISTINCT $list AS x', { list }],
    ['grouping by long lists', 'MATCH (a:Hub) RETURN $list AS x, count(*) AS n', { list }],
    ['max() of long lists', 'MATCH (a:Hub) RETURN max($list) AS x', { list }],
    ['IN over a long list', 'MATCH (a:Hub) WHERE -1 IN $list RETURN count(*) AS n', { list }],
    ['= of long lists', 'MATCH (a:Hub) WHERE $list = $list RETURN count(*) AS n', { list }],
    ['size() of a long string', 'MATCH (a:Hub) RETURN size($text) AS n', { text }],
    ['< of long strings', 'MATCH (a:Hub) WHERE $text < $text RETURN count(*) AS n', { text }],
    // Issue 28, F3: scans of strings read as much as they are long.
    ['CONTAINS in a long string', "MATCH (a:Hub) WHERE $text CONTAINS 'x' RETURN count(*) AS n", { text }],
    ['STARTS WITH a long string', 'MATCH (a:Hub) WHERE $text STARTS WITH $text RETURN count(*) AS n', { text }],
    ['ENDS WITH a long string', 'MATCH (a:Hub) WHERE $text ENDS WITH $text RETURN count(*) AS n', { text }],
    ['toInteger() of a long string', 'MATCH (a:Hub) RETURN toInteger($text) AS n', { text }],
    ['toFloat() of a long string', 'MATCH (a:Hub) RETURN toFloat($text) AS n', { text }],
  ])('%s', async (_name, statement, params) => {
    expect(await clockReadings(statement, params)).toBeGreaterThanOrEqual(HUBS - 1);
  });

  it('reads the clock by the operations a WHERE writes, not once a row (issue 28, F3)', async () => {
    // 32 rows of 300 small tests each: 9,600 units of work, not 32.
    const where = Array.from({ length: 300 }, (_, i) => `a.h <> ${-i}`).join(' AND ');
    expect(await clockReadings(`MATCH (a:Hub) WHERE ${where} RETURN count(*) AS n`, {})).toBeGreaterThanOrEqual(30);
  });

  it('answers as before', async () => {
    expect((await runCypher(engine, 'hubs', 'MATCH (a:Hub) WHERE -1 IN $list OR 3 IN $list RETURN count(*) AS n', { list })).rows).toEqual([[HUBS]]);
    expect((await runCypher(engine, 'hubs', 'MATCH (a:Hub) WHERE null IN [1, null] RETURN count(*) AS n', {})).rows).toEqual([[0]]);
    expect((await runCypher(engine, 'hubs', 'MATCH (a:Hub) WHERE a.h IN [1, 2] RETURN a.h AS h ORDER BY h', {})).rows).toEqual([[1], [2]]);
    expect((await runCypher(engine, 'hubs', 'MATCH (a:Hub) RETURN DISTINCT [a.h % 2, \'x\'] AS k ORDER BY k', {})).rows).toEqual([[[0, 'x']], [[1, 'x']]]);
    const strings = await runCypher(engine, 'hubs', "MATCH (a:Hub {h: 3}) RETURN $t CONTAINS 'ss' AS c, $t STARTS WITH 's' AS s, $t ENDS WITH 'x' AS e, toInteger(' 42 ') AS i, toFloat('2.5') AS f, $l[1..3] AS sl", { t: text, l: [1, 2, 3, 4] });
    expect(strings.rows).toEqual([[true, true, false, 42, 2.5, [2, 3]]]);
  });
});

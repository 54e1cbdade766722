import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolgraphError } from '../../../src/errors/index.ts';
import { DEFAULT_BUDGET_LIMITS, QueryBudget, type BudgetLimits } from '../../../src/graph/budget/index.ts';
import { runCypher, runCypherJson } from '../../../src/graph/cypher/index.ts';
import { budgetedKey, chargeValue, jsonSizeOf } from '../../../src/graph/cypher/runtime/value-size.ts';
import { canonicalValue } from '../../../src/graph/cypher/runtime/result-json.ts';
import { EdgeRef, NodeRef, newMap, type Value } from '../../../src/graph/cypher/runtime/values.ts';
import { GraphEngine, type NodeRecord } from '../../../src/graph/engine/index.ts';
import { loadReferenceGraph } from '../../../src/graph/fixtures/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { failure } from '../../support/toolgraph-failure.ts';

// Issue 15, item 1: what a statement builds is charged to its byte budget before it is built.
let engine: GraphEngine;

beforeAll(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await loadReferenceGraph(engine, 'demo');
});

afterAll(async () => {
  await engine.close();
});

const MiB = 1024 * 1024;
const limits: BudgetLimits = { ...DEFAULT_BUDGET_LIMITS, maxResultBytes: MiB };
const p = 'x'.repeat(100_000);

async function refusal(query: string, params: Record<string, unknown>): Promise<ToolgraphError> {
  return failure(runCypherJson(engine, 'demo', query, params, { limits }));
}

describe('jsonSizeOf', () => {
  const record: NodeRecord = { id: 'n1', label: 'L', props: Object.freeze({ a: 1, b: 'two', c: Object.freeze(['x', 'y']) }) };
  const values: [string, Value][] = [
    ['null', null], ['true', true], ['false', false], ['an integer', -1234], ['a string', 'hello'],
    ['a node', new NodeRef(record)], ['a relationship', new EdgeRef({ src: 'a', tgt: 'b', type: 'T' })],
    ['a list', [1, 'two', [3], []]], ['a map', Object.assign(newMap(), { k: 'v', n: [1, 2] })], ['an empty map', newMap()],
  ];

  it.each(values)('is the length of the text the result writer writes for %s', (_name, value) => {
    expect(jsonSizeOf(value, (ref) => ref.record)).toBe(canonicalValue(value, (ref) => ref.record).length);
  });

  it('stops walking a list once it is past the limit', () => {
    let reads = 0;
    const list = Array.from({ length: 100_000 }, () => 'abc');
    const counted = new Proxy(list, { get: (target, key, receiver) => {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver) as unknown;
    } });
    expect(jsonSizeOf(counted, null, 100)).toBeGreaterThan(100);
    expect(reads).toBeLessThan(30);
  });

  it('counts a node as its id inside a key', () => {
    expect(jsonSizeOf(new NodeRef(record), null)).toBe('N"n1"'.length);
  });

  it('refuses a key whose estimate alone is over what is left, before building it', () => {
    const budget = new QueryBudget({ ...DEFAULT_BUDGET_LIMITS, maxResultBytes: 1000 });
    chargeValue(budget, 'x'.repeat(500), null);
    expect(budgetedKey(['y', 2], budget)).toBe('"y"\u00002');
    expect(() => budgetedKey(['y'.repeat(600)], budget)).toThrow(expect.objectContaining({ code: 'TG_QUERY_BUDGET_EXCEEDED' }));
  });
});

describe('charges of what a statement builds (a 1 MiB budget, a 100 KB parameter)', () => {
  it.each([
    ['collect', 'MATCH (a), (b) RETURN size(collect($p)) AS n'],
    ['collect(DISTINCT), keeping one key per value', 'MATCH (a), (b) RETURN count(DISTINCT [$p, a.id, b.id]) AS n'],
    ['a pattern comprehension', 'MATCH (a), (b) RETURN sum(size([(a)--(c) | $p])) AS n'],
    ['strings joined by +', 'RETURN size($p + $p + $p + $p + $p + $p + $p + $p + $p + $p + $p) AS n'],
    ['lists joined by +', 'RETURN size([$p] + [$p] + [$p] + [$p] + [$p] + [$p] + [$p] + [$p] + [$p] + [$p] + [$p]) AS n'],
    ['strings changed case over a cross product', 'MATCH (a), (b) RETURN count(toLower($p)) AS n'],
    ['RETURN DISTINCT keys', 'MATCH (a), (b) RETURN DISTINCT size(a.id + $p + b.id) AS n'],
    ['grouping keys', 'MATCH (a) RETURN [$p, a.id] AS k, count(*) AS n ORDER BY n LIMIT 1'],
  ])('refuses %s over the budget, though the answer is small', async (_name, query) => {
    const error = await refusal(query, { p });
    expect(error.code).toBe('TG_QUERY_BUDGET_EXCEEDED');
    expect(error.details).toEqual({ limit: 'maxResultBytes', max: MiB, setting: 'TOOLGRAPH_QUERY_MAX_RESULT_BYTES' });
  });

  // Issue 28, F1 and F2: a slice copies its items' slots; the copy is charged before it is made.
  const list = Array.from({ length: 20_000 }, (_, i) => i % 10);
  it.each([
    ['a list literal of slices', 'RETURN size([$l[0..], $l[0..], $l[0..], $l[0..], $l[0..], $l[0..], $l[0..], $l[1..]]) AS n'],
    ['slices over a cross product', 'MATCH (a), (b) RETURN count(size($l[1..])) AS n'],
    ['ORDER BY slices over a cross product', 'MATCH (a), (b) RETURN a.id AS x ORDER BY $l[1..]'],
    ['DISTINCT slices', 'MATCH (a), (b) RETURN DISTINCT $l[1..] AS s'],
  ])('refuses %s over the budget (8 bytes an item copied), though the answer is small', async (_name, query) => {
    const error = await refusal(query, { l: list });
    expect(error.code).toBe('TG_QUERY_BUDGET_EXCEEDED');
    expect(error.details).toEqual({ limit: 'maxResultBytes', max: MiB, setting: 'TOOLGRAPH_QUERY_MAX_RESULT_BYTES' });
  });

  it('charges a long CONTAINS needle\'s search table (4 bytes a character) before it is built', async () => {
    const needle = 'n'.repeat(300_000);
    const error = await refusal('MATCH (a) WHERE $h CONTAINS $n RETURN count(*) AS c', { h: 'h'.repeat(300_001), n: needle });
    expect(error.details).toEqual({ limit: 'maxResultBytes', max: MiB, setting: 'TOOLGRAPH_QUERY_MAX_RESULT_BYTES' });
  });

  it('answers the same shapes when they fit', async () => {
    const small = { p: 'x' };
    const run = async (query: string) => (await runCypher(engine, 'demo', query, small, { limits })).rows;
    expect(await run('MATCH (a), (b) RETURN size(collect($p)) AS n')).toEqual([[94 * 94]]);
    expect(await run('RETURN size($p + $p + $p) AS n, size([$p] + [$p]) AS m')).toEqual([[3, 2]]);
    expect(await run("RETURN size('a😀b') AS n")).toEqual([[3]]);
    expect(await run('MATCH (a), (b) RETURN count(size([1, 2, 3][1..])) AS n')).toEqual([[94 * 94]]);
  });
});

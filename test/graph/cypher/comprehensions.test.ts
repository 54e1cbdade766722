import { beforeEach, describe, expect, it } from 'vitest';
import type { ToolgraphError } from '../../../src/errors/index.ts';
import { DEFAULT_BUDGET_LIMITS, type BudgetLimits } from '../../../src/graph/budget/index.ts';
import { GraphEngine } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { parseCypher, runCypher, type CypherResult } from '../../../src/graph/cypher/index.ts';
import { layoutOf } from '../../../src/graph/cypher/plan/slots.ts';
import { failure } from '../../support/toolgraph-failure.ts';

// Issue 24, items 3 and 4: list comprehensions and reduce, with their own local variables.
let engine: GraphEngine;

async function q(text: string, params?: Record<string, unknown>, limits?: BudgetLimits): Promise<CypherResult> {
  return runCypher(engine, 'g', text, params, limits === undefined ? {} : { limits });
}

async function rows(text: string, params?: Record<string, unknown>): Promise<unknown[][]> {
  return (await q(text, params)).rows;
}

async function refusal(text: string, params?: Record<string, unknown>, limits?: BudgetLimits): Promise<ToolgraphError> {
  return failure(q(text, params, limits));
}

beforeEach(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph('g');
  await engine.commit({
    graph: 'g',
    mutations: [
      { op: 'createNode', id: 'ann', label: 'Person', props: { name: 'Ann', age: 30, scores: [3, 9, 4] } },
      { op: 'createNode', id: 'bob', label: 'Person', props: { name: 'Bob', age: 25, scores: [] } },
      { op: 'createNode', id: 'cid', label: 'Person', props: { name: 'Cid', age: 41, scores: [10, 1] } },
      { op: 'addEdge', src: 'ann', tgt: 'bob', type: 'KNOWS' },
      { op: 'addEdge', src: 'ann', tgt: 'cid', type: 'KNOWS' },
      { op: 'addEdge', src: 'cid', tgt: 'bob', type: 'KNOWS' },
    ],
  });
});

describe('list comprehensions', () => {
  it.each<[string, string, Record<string, unknown> | undefined, unknown[][]]>([
    ['filter and map', 'RETURN [x IN [1, 2, 3, 4] WHERE x % 2 = 0 | x * 10] AS l', undefined, [[[20, 40]]]],
    ['filter only', 'RETURN [x IN [1, 2, 3, 4] WHERE x > 2] AS l', undefined, [[[3, 4]]]],
    ['map only', "RETURN [x IN ['a', 'b'] | x + '!'] AS l", undefined, [[['a!', 'b!']]]],
    ['neither', 'RETURN [x IN [1, null, 2]] AS l', undefined, [[[1, null, 2]]]],
    ['an empty list', 'RETURN [x IN [] | x + 1] AS l', undefined, [[[]]]],
    ['a null list is null', 'RETURN [x IN null | x] AS l, [x IN null WHERE true] AS m', undefined, [[null, null]]],
    ['a null predicate drops the item', 'RETURN [x IN [1, null, 3] WHERE x > 1] AS l', undefined, [[[3]]]],
    ['null items map to null', 'RETURN [x IN [1, null] | x + 1] AS l', undefined, [[[2, null]]]],
    ['over a parameter', 'RETURN [x IN $list WHERE x STARTS WITH $p | size(x)] AS l', { list: ['ab', 'xyz', 'abc'], p: 'ab' }, [[[2, 3]]]],
    ['nested', 'RETURN [xs IN [[1, 2], [3]] | [x IN xs | x * 2]] AS l', undefined, [[[[2, 4], [6]]]]],
    ['the inner body reads the outer local', 'RETURN [x IN [1, 2] | [y IN [10, 20] | x + y]] AS l', undefined, [[[[11, 21], [12, 22]]]]],
    ['inside a WHERE', 'MATCH (p:Person) WHERE size([s IN p.scores WHERE s > 5]) > 0 RETURN p.name', undefined, [['Ann'], ['Cid']]],
    ['over a property, per row', 'MATCH (p:Person) RETURN p.name, [s IN p.scores | s * p.age] AS l', undefined,
      [['Ann', [90, 270, 120]], ['Bob', []], ['Cid', [410, 41]]]],
    ['with a list of nodes', "MATCH (a {id: 'ann'}), (c {id: 'cid'}) RETURN [n IN [a, c] | n.name] AS names", undefined, [[['Ann', 'Cid']]]],
    ['with a pattern predicate over the local', "MATCH (a {id: 'ann'}), (b {id: 'bob'}), (c {id: 'cid'}) RETURN [n IN [a, b, c] WHERE (n)-[:KNOWS]->(:Person {name: 'Bob'}) | n.name] AS l", undefined,
      [[['Ann', 'Cid']]]],
    ['with a pattern comprehension over the local', "MATCH (a {id: 'ann'}), (c {id: 'cid'}) RETURN [n IN [a, c] | [(n)-[:KNOWS]->(m) | m.name]] AS l", undefined,
      [[[['Bob', 'Cid'], ['Bob']]]]],
    ['inside a pattern comprehension', "MATCH (a {id: 'ann'}) RETURN [(a)-[:KNOWS]->(m) | [s IN m.scores WHERE s > 2]] AS l", undefined, [[[[], [10]]]]],
    ['over an aggregate', 'MATCH (p:Person) RETURN [x IN collect(p.age) WHERE x > 26] AS l', undefined, [[[30, 41]]]],
    ['in ORDER BY with an alias', 'MATCH (p:Person) RETURN p.name AS name, p.age AS age ORDER BY size([s IN p.scores WHERE s < age]) DESC, name', undefined,
      [['Ann', 30], ['Cid', 41], ['Bob', 25]]],
    ['in SKIP and LIMIT', 'MATCH (p:Person) RETURN p.name SKIP size([x IN [1] | x]) LIMIT size([y IN [1, 2] | [z IN [y] | z]])', undefined, [['Bob'], ['Cid']]],
  ])('%s', async (_name, text, params, expected) => {
    expect(await rows(text, params)).toEqual(expected);
  });

  it('shadows an outer variable inside, and leaves it alone outside', async () => {
    expect(await rows("MATCH (x {id: 'ann'}) RETURN [x IN [1, 2] | x * 2] AS l, x.name, [y IN [x] | y.name] AS m")).toEqual([[[2, 4], 'Ann', ['Ann']]]);
    // The same name, later in the same row and in a later WHERE, is still the node.
    expect(await rows("MATCH (x:Person) WHERE size([x IN x.scores WHERE x > 3]) > 0 RETURN x.name, [x IN x.scores | x + 1]")).toEqual([
      ['Ann', [4, 10, 5]],
      ['Cid', [11, 2]],
    ]);
  });

  it('a variable used only inside a comprehension stays live', async () => {
    expect(await rows("MATCH (a {id: 'ann'})-[:KNOWS]->(b) RETURN [x IN [1] | b.name] AS l")).toEqual([[['Bob']], [['Cid']]]);
  });

  it('a local keeps no outer slot live: its name in the body is the local', () => {
    const layout = (text: string) => layoutOf(parseCypher(text));
    const shadowed = layout('MATCH (x)-->(y) RETURN [x IN [1] | x + 1] AS l, y, reduce(y = 0, x IN [2] | y + x) AS r');
    expect(shadowed.isLive(shadowed.slots.get('x')!)).toBe(false);
    expect(shadowed.isLive(shadowed.slots.get('y')!)).toBe(true);
    const read = layout('MATCH (x)-->(y) RETURN [z IN [1] WHERE any(w IN [z] WHERE w = x.k) | z] AS l');
    expect(read.isLive(read.slots.get('x')!)).toBe(true);
  });

  it('is refused with a type error over a value that is not a list', async () => {
    const error = await refusal('RETURN [x IN 5 | x] AS l');
    expect(error.code).toBe('TG_CYPHER_RUNTIME');
    expect(error.message).toContain('expected a list, got Integer');
  });

  it('a WHERE that is not a boolean is a type error', async () => {
    expect((await refusal('RETURN [x IN [1] WHERE x | x] AS l')).message).toContain('a boolean');
  });

  it('a local is not defined outside its expression', async () => {
    const error = await refusal('RETURN [x IN [1] | x] AS l, x');
    expect(error.code).toBe('TG_CYPHER_SYNTAX');
    expect(error.message).toContain('variable `x` is not defined');
    expect((await refusal('RETURN [x IN [1] WHERE y > 0] AS l')).message).toContain('variable `y` is not defined');
    // The list itself is read outside the local's scope.
    expect((await refusal('RETURN [x IN x | 1] AS l')).message).toContain('variable `x` is not defined');
  });

  it('an aggregate in the body is refused at parse time', async () => {
    const error = await refusal('MATCH (n) RETURN [x IN [1, 2] | count(*)] AS l');
    expect(error.code).toBe('TG_CYPHER_SYNTAX');
    expect(error.message).toContain('comprehension');
  });

  it('a comprehension building a huge list is refused by maxResultBytes before it grows', async () => {
    const list = Array.from({ length: 50_000 }, (_, i) => i);
    // Time is not what this is about: a loaded machine must not meet the stall limit first.
    const limits = { ...DEFAULT_BUDGET_LIMITS, maxResultBytes: 200_000, timeoutMs: 60_000, maxStallMs: 60_000 };
    const mapped = await refusal('RETURN size([x IN $list | x + 1]) AS n', { list }, limits);
    expect(mapped.code).toBe('TG_QUERY_BUDGET_EXCEEDED');
    expect(mapped.details).toEqual(expect.objectContaining({ limit: 'maxResultBytes' }));
    const filtered = await refusal('RETURN size([x IN $list WHERE x >= 0]) AS n', { list }, limits);
    expect(filtered.details).toEqual(expect.objectContaining({ limit: 'maxResultBytes' }));
    // A small one under the same limits is fine.
    expect((await q('RETURN size([x IN $list WHERE x < 10 | x]) AS n', { list }, limits)).rows).toEqual([[10]]);
  });
});

describe('reduce', () => {
  it.each<[string, string, Record<string, unknown> | undefined, unknown[][]]>([
    ['a sum', 'RETURN reduce(s = 0, x IN [1, 2, 3] | s + x) AS s', undefined, [[6]]],
    ['a string', "RETURN reduce(s = '', x IN ['a', 'b', 'c'] | s + x) AS s", undefined, [['abc']]],
    ['an empty list gives the first value', 'RETURN reduce(s = 7, x IN [] | s + x) AS s', undefined, [[7]]],
    ['a null list is null', 'RETURN reduce(s = 7, x IN null | s + x) AS s', undefined, [[null]]],
    ['null items propagate as the body says', 'RETURN reduce(s = 0, x IN [1, null, 2] | s + x) AS s, reduce(s = 0, x IN [1, null, 2] | s + coalesce(x, 0)) AS t', undefined, [[null, 3]]],
    ['per row', 'MATCH (p:Person) RETURN p.name, reduce(m = 0, s IN p.scores | CASE WHEN s > m THEN s ELSE m END) AS best', undefined,
      [['Ann', 9], ['Bob', 0], ['Cid', 10]]],
    ['over a parameter', 'RETURN reduce(acc = [], x IN $l | acc + [x * x]) AS sq', { l: [1, 2, 3] }, [[[1, 4, 9]]]],
    ['nested with a comprehension', 'RETURN reduce(t = 0, xs IN [[1, 2], [3]] | t + reduce(u = 0, x IN [y IN xs | y * 10] | u + x)) AS t', undefined, [[60]]],
    ['the accumulator and variable shadow outer names', "MATCH (s {id: 'ann'}) RETURN reduce(s = 1, age IN [2, 3] | s * age) AS p, s.name", undefined, [[6, 'Ann']]],
  ])('%s', async (_name, text, params, expected) => {
    expect(await rows(text, params)).toEqual(expected);
  });

  it('the accumulator and the variable must differ', async () => {
    expect((await refusal('RETURN reduce(x = 0, x IN [1] | x) AS r')).code).toBe('TG_CYPHER_SYNTAX');
  });

  it('the accumulator is not defined outside', async () => {
    expect((await refusal('RETURN reduce(s = 0, x IN [1] | s + x) AS r, s')).message).toContain('variable `s` is not defined');
  });

  it('`reduce` over a huge list is refused within the time budget', async () => {
    const list = Array.from({ length: 1_000_000 }, (_, i) => i);
    const limits = { ...DEFAULT_BUDGET_LIMITS, timeoutMs: 50 };
    const started = performance.now();
    const error = await refusal(
      'RETURN reduce(s = 0, x IN $list | s + (x % 7) * (x % 11) + (x % 13) - (x % 3) + size([y IN [x, x, x] WHERE y > 0])) AS s',
      { list },
      limits,
    );
    const elapsed = performance.now() - started;
    expect(error.code).toBe('TG_QUERY_BUDGET_EXCEEDED');
    // One evaluation cannot pause: the stall limit or the time limit, whichever the clock reading meets first.
    expect(['timeoutMs', 'maxStallMs']).toContain((error.details as { limit: string }).limit);
    expect(elapsed).toBeLessThan(4_000);
  });

  it("reduce's growing accumulator is charged by `+`", async () => {
    const list = Array.from({ length: 20_000 }, (_, i) => i);
    const error = await refusal("RETURN size(reduce(s = '', x IN $list | s + 'abcdefgh')) AS n", { list }, { ...DEFAULT_BUDGET_LIMITS, maxResultBytes: 1_000_000, timeoutMs: 60_000, maxStallMs: 60_000 });
    expect(error.details).toEqual(expect.objectContaining({ limit: 'maxResultBytes' }));
  });
});

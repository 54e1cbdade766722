import { beforeEach, describe, expect, it } from 'vitest';
import type { ToolgraphError } from '../../../src/errors/index.ts';
import { DEFAULT_BUDGET_LIMITS } from '../../../src/graph/budget/index.ts';
import { GraphEngine } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { runCypher, type CypherResult } from '../../../src/graph/cypher/index.ts';
import { failure } from '../../support/toolgraph-failure.ts';

// Issue 24, items 3 and 4: all/any/none/single, and EXISTS { } and COUNT { } subqueries. The null
// cases follow the openCypher TCK's quantifier features (expressions/quantifier/Quantifier1-4).
let engine: GraphEngine;

async function q(text: string, params?: Record<string, unknown>): Promise<CypherResult> {
  return runCypher(engine, 'g', text, params);
}

async function rows(text: string, params?: Record<string, unknown>): Promise<unknown[][]> {
  return (await q(text, params)).rows;
}

async function refusal(text: string, params?: Record<string, unknown>): Promise<ToolgraphError> {
  return failure(q(text, params));
}

beforeEach(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph('g');
  await engine.commit({
    graph: 'g',
    mutations: [
      { op: 'createNode', id: 'a', label: 'A', props: { prop: 1, tags: ['x', 'y'] } },
      { op: 'createNode', id: 'b', label: 'B', props: { prop: 1, tags: ['z'] } },
      { op: 'createNode', id: 'c', label: 'C', props: { prop: 2 } },
      { op: 'createNode', id: 'd', label: 'D', props: { prop: 3 } },
      { op: 'addEdge', src: 'a', tgt: 'b', type: 'R' },
      { op: 'addEdge', src: 'a', tgt: 'c', type: 'R' },
      { op: 'addEdge', src: 'a', tgt: 'd', type: 'R' },
      { op: 'addEdge', src: 'b', tgt: 'd', type: 'S' },
    ],
  });
});

describe('quantifiers', () => {
  // [list, condition, all, any, none, single]
  it.each<[string, string, unknown, unknown, unknown, unknown]>([
    ['[]', 'x = 2', true, false, true, false],
    ['[1, 3]', 'x = 2', false, false, true, false],
    ['[2]', 'x = 2', true, true, false, true],
    ['[2, 2]', 'x = 2', true, true, false, false],
    ['[1, 2, 3]', 'x = 2', false, true, false, true],
    ['[null]', 'x = 2', null, null, null, null],
    ['[null, null]', 'x = 2', null, null, null, null],
    ['[0, null]', 'x = 2', false, null, null, null],
    ['[2, null]', 'x = 2', null, true, false, null],
    ['[null, 2]', 'x = 2', null, true, false, null],
    ['[34, 0, null, 5, 900]', 'x < 10', false, true, false, false],
    ['[34, 10, null, 15, 900]', 'x < 10', false, null, null, null],
    ['[4, 0, null, -15, 9]', 'x < 10', null, true, false, false],
    ['[1, null, true, 4.5, \'abc\', false]', 'false', false, false, true, false],
    ['[1, null, true, 4.5, \'abc\', false]', 'true', true, true, false, false],
    ['[null, 123, null]', 'x IS NULL', false, true, false, false],
    ['[null, 123, null]', 'x IS NOT NULL', false, true, false, true],
    ["['abc', 'ef']", 'size(x) = 3', false, true, false, true],
    ['[[1, 2], [3]]', 'size(x) > 1', false, true, false, true],
  ])('%s WHERE %s', async (list, condition, all, any, none, single) => {
    const text = `RETURN all(x IN ${list} WHERE ${condition}) AS a, any(x IN ${list} WHERE ${condition}) AS b, none(x IN ${list} WHERE ${condition}) AS c, single(x IN ${list} WHERE ${condition}) AS d`;
    expect(await rows(text)).toEqual([[all, any, none, single]]);
  });

  it('a null list is null', async () => {
    expect(await rows('RETURN all(x IN null WHERE true), any(x IN null WHERE true), none(x IN $l WHERE true), single(x IN $l WHERE true)', { l: null })).toEqual([[null, null, null, null]]);
  });

  it('nest, on nested lists and on the same list', async () => {
    expect(await rows('RETURN all(xs IN [[1, 2], [3]] WHERE any(x IN xs WHERE x > 1)) AS a, none(x IN [1, 2, 3] WHERE single(y IN [1, 2, 3] WHERE y = x + 5)) AS b')).toEqual([[true, true]]);
  });

  it('filter MATCH rows, over node properties and parameters', async () => {
    expect(await rows("MATCH (n) WHERE any(t IN n.tags WHERE t = $t) RETURN n.prop", { t: 'y' })).toEqual([[1]]);
    // A null tag list makes the quantifier null: the row is dropped either way.
    expect(await rows('MATCH (n) WHERE all(t IN n.tags WHERE t <> $t) RETURN labels(n)', { t: 'y' })).toEqual([[['B']]]);
    expect(await rows('MATCH (n) WHERE none(t IN coalesce(n.tags, []) WHERE t = $t) RETURN labels(n) ORDER BY n.prop, labels(n)', { t: 'y' })).toEqual([[['B']], [['C']], [['D']]]);
  });

  it('over a list of nodes, with pattern predicates on the local', async () => {
    expect(await rows("MATCH (a {id: 'a'})-->(m) WITH a, collect(m) AS ms RETURN single(m IN ms WHERE (m)-->()) AS s, any(m IN ms WHERE m.prop = a.prop) AS t")).toEqual([[true, true]]);
  });

  it('a local shadows an outer variable only inside', async () => {
    expect(await rows("MATCH (x {id: 'a'}) RETURN any(x IN [1, 2] WHERE x = 2) AS t, x.prop")).toEqual([[true, 1]]);
  });

  it('a predicate that is not a boolean is a type error', async () => {
    const error = await refusal("RETURN any(x IN ['Clara'] WHERE x % 2 = 0) AS r");
    expect(error.code).toBe('TG_CYPHER_RUNTIME');
    expect((await refusal('RETURN all(x IN [1] WHERE x) AS r')).message).toContain('a boolean');
  });

  it('need WHERE and a local variable', async () => {
    expect((await refusal('RETURN any(x IN [1]) AS r')).code).toBe('TG_CYPHER_SYNTAX');
    expect((await refusal('RETURN all(x IN [1] WHERE true) AS r, x')).message).toContain('variable `x` is not defined');
  });

  it('stop at the time budget over a huge list', async () => {
    const list = Array.from({ length: 1_000_000 }, () => 1);
    const error = await failure(runCypher(engine, 'g', 'RETURN all(x IN $list WHERE x * 3 - 2 = 1 AND x + x = 2 AND x % 5 = 1) AS r', { list }, { limits: { ...DEFAULT_BUDGET_LIMITS, timeoutMs: 20, maxStallMs: 20 } }));
    expect(error.code).toBe('TG_QUERY_BUDGET_EXCEEDED');
  });
});

describe('EXISTS { } and COUNT { } subqueries', () => {
  it.each<[string, string, unknown[][]]>([
    ['a bare pattern', 'MATCH (n) WHERE EXISTS { (n)-->() } RETURN labels(n)', [[['A']], [['B']]]],
    ['with MATCH', 'MATCH (n) WHERE exists { MATCH (n)-[:S]->() } RETURN labels(n)', [[['B']]]],
    ['with WHERE', 'MATCH (n) WHERE exists { (n)-->(m) WHERE n.prop = m.prop } RETURN labels(n)', [[['A']]]],
    ['no match', 'MATCH (n) WHERE EXISTS { (n)-[:NA]->() } RETURN n', []],
    ['with a trailing RETURN', 'MATCH (n) WHERE EXISTS { MATCH (n)-->() RETURN true } RETURN labels(n)', [[['A']], [['B']]]],
    ['negated', 'MATCH (n) WHERE NOT EXISTS { (n)-->() } RETURN labels(n)', [[['C']], [['D']]]],
    ['as a value', 'MATCH (n:A) RETURN EXISTS { (n)-->(:D) } AS d, EXISTS { (n)<--() } AS i', [[true, false]]],
    ['two patterns', 'MATCH (n) WHERE EXISTS { (n)-->(m), (m)-->(:D) } RETURN labels(n)', [[['A']]]],
    ['COUNT', 'MATCH (n) RETURN labels(n), COUNT { (n)-->() } AS c ORDER BY c DESC', [[['A'], 3], [['B'], 1], [['C'], 0], [['D'], 0]]],
    ['COUNT with MATCH and WHERE', 'MATCH (n:A) RETURN COUNT { MATCH (n)-->(m) WHERE m.prop > 1 } AS c', [[2]]],
    ['COUNT in WHERE', 'MATCH (n) WHERE COUNT { (n)-->() } > 1 RETURN labels(n)', [[['A']]]],
    ['nested', "MATCH (n) WHERE exists { MATCH (m) WHERE exists { (n)-->(m) WHERE n.prop = m.prop } RETURN true } RETURN labels(n)", [[['A']]]],
    ['in a list comprehension, over the local', "MATCH (a {id: 'a'})-->(m) WITH collect(m) AS ms RETURN [m IN ms WHERE EXISTS { (m)-->() } | labels(m)] AS l", [[[['B']]]]],
    ['COUNT inside a quantifier', 'MATCH (n:A) RETURN all(k IN [1, 2] WHERE COUNT { (n)-->(m) WHERE m.prop >= k } >= 2) AS r', [[true]]],
    ['a parameter in the pattern', 'MATCH (n) WHERE EXISTS { (n)-->({prop: $p}) } RETURN labels(n)', [[['A']], [['B']]]],
  ])('%s', async (_name, text, expected) => {
    expect(await rows(text, { p: 3 })).toEqual(expected);
  });

  it('variables bound inside stay inside', async () => {
    expect((await refusal('MATCH (n) WHERE EXISTS { (n)-->(m) } RETURN m')).message).toContain('variable `m` is not defined');
    expect((await refusal('MATCH (n) WHERE EXISTS { (n)-->(m) RETURN z } RETURN n')).message).toContain('variable `z` is not defined');
  });

  it('full subquery bodies are refused by name', async () => {
    for (const [text, what] of [
      ['MATCH (n) WHERE EXISTS { MATCH (n)-->(m) WITH n, count(*) AS c WHERE c = 3 RETURN true } RETURN n', 'WITH inside EXISTS'],
      ['MATCH (n) WHERE EXISTS { MATCH (n)-->(m) MATCH (m)-->() } RETURN n', 'a second MATCH inside EXISTS'],
      ['MATCH (n) WHERE EXISTS { OPTIONAL MATCH (n)-->(m) } RETURN n', 'OPTIONAL MATCH inside EXISTS'],
      ['MATCH (n) RETURN COUNT { MATCH (n)-->(m) RETURN count(m) }', 'an aggregate in the RETURN of COUNT'],
      ['MATCH (n) RETURN COUNT { MATCH (n)-->(m) RETURN m LIMIT 1 }', 'LIMIT inside COUNT'],
      ['MATCH (n) RETURN COLLECT { MATCH (n)-->(m) RETURN m }', 'COLLECT subqueries'],
    ] as const) {
      const error = await refusal(text);
      expect(error.code, text).toBe('TG_CYPHER_UNSUPPORTED');
      expect(error.message, text).toContain(what);
    }
  });

  it('update clauses inside are a syntax error', async () => {
    const error = await refusal("MATCH (n) WHERE exists { MATCH (n)-->(m) SET m.prop = 'fail' } RETURN n");
    expect(error.code).toBe('TG_CYPHER_SYNTAX');
  });
});

describe('subqueries inside comprehensions and quantifiers', () => {
  it('run for a batch of item rows at once, each item seeing its own results', async () => {
    await engine.createGraph('many');
    const mutations: Parameters<GraphEngine['commit']>[0]['mutations'][number][] = [];
    for (let i = 0; i < 2_000; i++) mutations.push({ op: 'createNode', id: `n${i}`, label: 'N', props: { i } });
    for (let i = 0; i < 2_000; i += 2) mutations.push({ op: 'addEdge', src: `n${i}`, tgt: `n${i + 1}`, type: 'R' });
    await engine.commit({ graph: 'many', mutations });
    const result = await runCypher(engine, 'many',
      'MATCH (n:N) WITH collect(n) AS ns RETURN size([n IN ns WHERE EXISTS { (n)-->() } | COUNT { (n)-->() }]) AS c, any(n IN ns WHERE COUNT { (n)<--() } > 1) AS a, single(n IN ns WHERE (n)-->({i: 1})) AS s',
      null, { limits: { ...DEFAULT_BUDGET_LIMITS, maxStallMs: 10_000 } });
    expect(result.rows).toEqual([[1000, false, true]]);
    // Per item: the counts line up with the items they were computed for, across batch boundaries.
    const counts = await runCypher(engine, 'many', 'MATCH (n:N) WITH collect(n) AS ns RETURN [n IN ns WHERE n.i >= 250 AND n.i < 262 | COUNT { (n)<--() }] AS c',
      null, { limits: { ...DEFAULT_BUDGET_LIMITS, maxStallMs: 10_000 } });
    expect(counts.rows).toEqual([[[0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]]]);
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import { GraphEngine } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { runCypher } from '../../../src/graph/cypher/index.ts';
import { DEFAULT_BUDGET_LIMITS } from '../../../src/graph/budget/index.ts';
import { failure } from '../../support/toolgraph-failure.ts';

let engine: GraphEngine;

async function rows(text: string, params?: Record<string, unknown>): Promise<unknown[][]> {
  return (await runCypher(engine, 'g', text, params)).rows;
}

beforeEach(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph('g');
  await runCypher(engine, 'g', `CREATE (a:Person {name: 'Ann', age: 30}), (b:Person {name: 'Bob', age: 40}), (c:Person {name: 'Cy', age: 50}), (d:Person {name: 'Di', age: 20}),
    (a)-[:KNOWS]->(b), (a)-[:KNOWS]->(c), (b)-[:KNOWS]->(c)`);
});

describe('CALL { … } subqueries', () => {
  it('joins each outer row with every row an uncorrelated subquery returns, sorted and limited inside', async () => {
    expect(await rows('CALL { MATCH (p:Person) RETURN p.name AS name ORDER BY name LIMIT 3 } RETURN name')).toEqual([['Ann'], ['Bob'], ['Cy']]);
    expect(await rows('UNWIND [1, 2] AS x CALL { MATCH (p:Person) RETURN p.name AS name ORDER BY name LIMIT 2 } RETURN x, name')).toEqual([[1, 'Ann'], [1, 'Bob'], [2, 'Ann'], [2, 'Bob']]);
  });

  it('imports variables with a leading WITH and aggregates per outer row', async () => {
    const text = 'MATCH (p:Person) CALL { WITH p MATCH (p)-[:KNOWS]->(f) RETURN count(f) AS friends } RETURN p.name, friends ORDER BY p.name';
    expect(await rows(text)).toEqual([['Ann', 2], ['Bob', 1], ['Cy', 0], ['Di', 0]]);
  });

  it('drops an outer row the subquery returns no row for', async () => {
    const text = 'MATCH (p:Person) CALL { WITH p MATCH (p)-[:KNOWS]->(f) RETURN f.name AS friend } RETURN p.name, friend ORDER BY p.name, friend';
    expect(await rows(text)).toEqual([['Ann', 'Bob'], ['Ann', 'Cy'], ['Bob', 'Cy']]);
  });

  it('runs UNION and UNION ALL inside, each branch importing on its own', async () => {
    const text = `MATCH (p:Person {name: 'Ann'}) CALL { WITH p MATCH (p)-[:KNOWS]->(f) RETURN f.name AS n UNION MATCH (q:Person {name: 'Di'}) RETURN q.name AS n UNION WITH p RETURN p.name AS n } RETURN n ORDER BY n`;
    expect(await rows(text)).toEqual([['Ann'], ['Bob'], ['Cy'], ['Di']]);
    expect(await rows('CALL { RETURN 1 AS x UNION ALL RETURN 1 AS x } RETURN x')).toEqual([[1], [1]]);
    expect(await rows('CALL { RETURN 1 AS x UNION RETURN 1 AS x } RETURN x')).toEqual([[1]]);
  });

  it('runs several subqueries in a row, nested ones, and ones after WITH and UNWIND', async () => {
    expect(await rows('CALL { RETURN 1 AS a } CALL { RETURN 2 AS b } RETURN a, b')).toEqual([[1, 2]]);
    expect(await rows('UNWIND [1, 2] AS x WITH x * 10 AS y CALL { WITH y CALL { WITH y RETURN y + 1 AS z } RETURN z } RETURN y, z')).toEqual([[10, 11], [20, 21]]);
    expect(await rows('MATCH (p:Person) WITH p ORDER BY p.age LIMIT 2 CALL { WITH p RETURN p.age * 2 AS twice } RETURN p.name, twice')).toEqual([['Di', 40], ['Ann', 60]]);
  });

  it('imports every variable with WITH *, and RETURN * after the clause lists the returned names', async () => {
    const text = "MATCH (p:Person {name: 'Bob'}) CALL { WITH * MATCH (p)-[:KNOWS]->(f) RETURN f.name AS friend } RETURN *";
    const result = await runCypher(engine, 'g', text);
    expect(result.columns).toEqual(['friend', 'p']);
    expect(result.rows.map((row) => row[0])).toEqual(['Cy']);
  });

  it('hides variables that are not imported, and refuses a returned name that is already bound', async () => {
    expect((await failure(runCypher(engine, 'g', 'MATCH (p:Person) CALL { RETURN p.name AS n } RETURN n'))).code).toBe('TG_CYPHER_SYNTAX');
    const clash = await failure(runCypher(engine, 'g', 'MATCH (p:Person) CALL { MATCH (p:Person) RETURN p } RETURN p'));
    expect(clash.code).toBe('TG_CYPHER_SYNTAX');
    expect(clash.message).toContain('already bound');
    expect((await failure(runCypher(engine, 'g', 'CALL { RETURN 1 + 1 } RETURN 1 AS x'))).message).toContain('AS');
    // A WITH with an expression is no import: p is not visible in it.
    expect((await failure(runCypher(engine, 'g', 'MATCH (p:Person) CALL { WITH p.name AS n RETURN n } RETURN n'))).code).toBe('TG_CYPHER_SYNTAX');
    // An inner variable of an outer name, not imported, is the body's own.
    expect(await rows(`MATCH (p:Person {name: 'Di'}) CALL { MATCH (p:Person {name: 'Ann'}) RETURN p.name AS inner } RETURN p.name, inner`)).toEqual([['Di', 'Ann']]);
  });

  it('runs a unit subquery once per row, keeping the rows, in the statement\'s one batch', async () => {
    const before = (await runCypher(engine, 'g', 'MATCH (p:Person) RETURN count(*)')).version;
    const result = await runCypher(engine, 'g', 'UNWIND [1, 2, 3] AS i CALL { WITH i CREATE (:Tag {i: i}) } RETURN i');
    expect(result.rows).toEqual([[1], [2], [3]]);
    expect(result.stats).toMatchObject({ nodesCreated: 3 });
    expect(result.version).toBe(before + 1);
    expect(await rows('MATCH (t:Tag) RETURN t.i ORDER BY t.i')).toEqual([[1], [2], [3]]);
    // MERGE reads the statement's own writes, run after run.
    await runCypher(engine, 'g', "UNWIND ['x', 'x', 'y'] AS k CALL { WITH k MERGE (:Key {k: k}) }");
    expect(await rows('MATCH (k:Key) RETURN k.k ORDER BY k.k')).toEqual([['x'], ['y']]);
  });

  it('returns rows from a writing subquery and counts its writes against the write caps', async () => {
    expect(await rows("CALL { CREATE (n:Made {v: 7}) RETURN n.v AS v } RETURN v")).toEqual([[7]]);
    const capped = await failure(runCypher(engine, 'g', 'UNWIND range(1, 10) AS i CALL { WITH i CREATE (:Many) }', null, { writeLimits: { maxChanges: 5, maxBatchBytes: 1024 * 1024 } }));
    expect(capped.code).toBe('TG_WRITE_TOO_LARGE');
    expect(await rows('MATCH (m:Many) RETURN count(*)')).toEqual([[0]]);
  });

  it('refuses a writing subquery that matches, a MATCH after one, and IN TRANSACTIONS inside one', async () => {
    expect((await failure(runCypher(engine, 'g', 'UNWIND [1, 2] AS i CALL { MATCH (p:Person) CREATE (:Copy) }'))).code).toBe('TG_CYPHER_UNSUPPORTED');
    expect((await failure(runCypher(engine, 'g', 'UNWIND [1] AS i CALL { CREATE (:Copy) } MATCH (c:Copy) RETURN c'))).code).toBe('TG_CYPHER_UNSUPPORTED');
    expect((await failure(runCypher(engine, 'g', 'UNWIND [1] AS i CALL { CALL { WITH i CREATE (:Copy) } IN TRANSACTIONS }'))).code).toBe('TG_CYPHER_UNSUPPORTED');
  });

  it('counts the rows a subquery returns against the row budget before it keeps them', async () => {
    const limits = { ...DEFAULT_BUDGET_LIMITS, maxRows: 60 };
    const text = 'UNWIND range(1, 10) AS i CALL { UNWIND range(1, 10) AS j RETURN j } RETURN count(*) AS n';
    const error = await failure(runCypher(engine, 'g', text, null, { limits }));
    expect(error.code).toBe('TG_QUERY_BUDGET_EXCEEDED');
    expect(error.details).toMatchObject({ limit: 'maxRows' });
    expect((await runCypher(engine, 'g', text)).rows).toEqual([[100]]);
  });

  it('works with CALL { … } IN TRANSACTIONS: a reading subquery before it, a unit one inside its body', async () => {
    const result = await runCypher(engine, 'g', "CALL { MATCH (p:Person) RETURN p.name AS name } CALL { WITH name CREATE (:Copy {name: name}) } IN TRANSACTIONS OF 2 ROWS");
    expect(result.stats).toMatchObject({ nodesCreated: 4, transactions: 2 });
    const inner = await runCypher(engine, 'g', 'MATCH (c:Copy) CALL { WITH c CALL { WITH c SET c.seen = true } } IN TRANSACTIONS OF 3 ROWS');
    expect(inner.stats).toMatchObject({ transactions: 2 });
    expect(await rows('MATCH (c:Copy) WHERE c.seen RETURN count(*)')).toEqual([[4]]);
    // A writing subquery before IN TRANSACTIONS is an update outside it.
    expect((await failure(runCypher(engine, 'g', 'UNWIND [1] AS i CALL { CREATE (:X) } CALL { WITH i CREATE (:Y) } IN TRANSACTIONS'))).code).toBe('TG_CYPHER_UNSUPPORTED');
  });
});

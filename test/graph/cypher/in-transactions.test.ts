import { beforeEach, describe, expect, it } from 'vitest';
import { GraphEngine } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { runCypher } from '../../../src/graph/cypher/index.ts';
import { failure } from '../../support/toolgraph-failure.ts';

let engine: GraphEngine;

async function fill(count: number): Promise<void> {
  for (let start = 0; start < count; start += 10_000) {
    const mutations = [];
    for (let i = start; i < Math.min(count, start + 10_000); i++) mutations.push({ op: 'createNode' as const, id: `t${i}`, label: 'Temp', props: { i } });
    await engine.commit({ graph: 'g', mutations });
  }
}

beforeEach(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph('g');
});

describe('CALL { … } IN TRANSACTIONS', () => {
  it('deletes 60,000 nodes in one statement as batches under the write cap, one version each, with progress', async () => {
    await fill(60_000);
    const before = (await runCypher(engine, 'g', 'MATCH (n:Temp) RETURN count(*) AS n')).version;
    // One statement deleting them all is refused by the write cap, by design.
    const whole = await failure(runCypher(engine, 'g', 'MATCH (n:Temp) DETACH DELETE n'));
    expect(whole.code).toBe('TG_WRITE_TOO_LARGE');
    const progress: number[] = [];
    const result = await runCypher(engine, 'g', 'MATCH (n:Temp) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS', null, {
      onBatch: (p) => progress.push(p.committedRows),
    });
    expect(result.stats).toMatchObject({ nodesDeleted: 60_000, transactions: 12 });
    expect(result.version).toBe(before + 12);
    expect(progress).toEqual(Array.from({ length: 12 }, (_, i) => (i + 1) * 5000));
    expect((await runCypher(engine, 'g', 'MATCH (n:Temp) RETURN count(*) AS n')).rows).toEqual([[0]]);
  }, 60_000);

  it('writes an UNWIND batch in batches of the default 1000 rows', async () => {
    const rows = Array.from({ length: 2500 }, (_, i) => ({ id: `p${i}` }));
    const result = await runCypher(engine, 'g', 'UNWIND $rows AS r CALL { WITH r CREATE (:P {id: r.id}) } IN TRANSACTIONS', { rows });
    expect(result.stats).toMatchObject({ nodesCreated: 2500, transactions: 3 });
  });

  it('says what was committed when a later batch is refused, and keeps it', async () => {
    const rows = [{ id: 'a' }, { id: 'b' }, { id: 'a' }, { id: 'c' }];
    const error = await failure(runCypher(engine, 'g', 'UNWIND $rows AS r CALL { WITH r CREATE (:P {id: r.id}) } IN TRANSACTIONS OF 2 ROWS', { rows }));
    expect(error.message).toContain('stopped at batch 2 of 2');
    expect(error.message).toContain('the 1 batch before it (2 of 4 rows');
    expect(error.details).toMatchObject({ committedBatches: 1, committedRows: 2, totalRows: 4 });
    expect((await runCypher(engine, 'g', 'MATCH (p:P) RETURN p.id ORDER BY p.id')).rows).toEqual([['a'], ['b']]);
  });

  it('refuses a bad batch size, updates outside the subquery and a subquery that returns rows', async () => {
    expect((await failure(runCypher(engine, 'g', 'UNWIND [1] AS x CALL { WITH x CREATE (:P) } IN TRANSACTIONS OF 0 ROWS'))).message).toContain('positive integer');
    expect((await failure(runCypher(engine, 'g', 'CREATE (:P) WITH 1 AS x CALL { WITH x CREATE (:P) } IN TRANSACTIONS'))).code).toBe('TG_CYPHER_UNSUPPORTED');
    expect((await failure(runCypher(engine, 'g', 'UNWIND [1] AS x CALL { WITH x RETURN x AS y } IN TRANSACTIONS'))).code).toBe('TG_CYPHER_UNSUPPORTED');
    expect((await failure(runCypher(engine, 'g', 'CREATE (:P) CALL db.labels() YIELD label RETURN label'))).code).toBe('TG_CYPHER_UNSUPPORTED');
  });
});

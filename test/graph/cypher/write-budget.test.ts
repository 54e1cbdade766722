import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolgraphError } from '../../../src/errors/index.ts';
import { DEFAULT_BUDGET_LIMITS } from '../../../src/graph/budget/index.ts';
import { runCypher, runCypherJson, type RunOptions } from '../../../src/graph/cypher/index.ts';
import { DEFAULT_WRITE_LIMITS, GraphEngine } from '../../../src/graph/engine/index.ts';
import { loadReferenceGraph } from '../../../src/graph/fixtures/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { failure } from '../../support/toolgraph-failure.ts';

// Issue 15, items 1 and 2: update clauses run under the statement's budget and its write caps.
let engine: GraphEngine;

beforeAll(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await loadReferenceGraph(engine, 'demo');
});

afterAll(async () => {
  await engine.close();
});

async function refusal(query: string, params: Record<string, unknown> | null = null, options: RunOptions = {}): Promise<ToolgraphError> {
  return failure(runCypherJson(engine, 'demo', query, params, options));
}

const sixtyKeys = Array.from({ length: 60 }, (_, i) => `k${i}: ${i}`).join(', ');

describe('write statements under the write caps and the budget', () => {
  it.each([
    ['setting sixty properties per row (C3)', `MATCH (a),(b),(c) SET a += {${sixtyKeys}}`],
    ['setting one property per row (C3)', 'MATCH (a),(b),(c) SET a.tmpcount = 1'],
    ['creating a node per row', 'MATCH (a),(b),(c) CREATE (:Tmp {n: 1})'],
    ['setting a property from another variable per row', 'MATCH (a),(b),(c) SET a.other = c.id'],
  ])('refuses %s over a cross product on the change cap, changing nothing', async (_name, query) => {
    const before = engine.view('demo').version;
    const error = await refusal(query);
    expect(error.code).toBe('TG_WRITE_TOO_LARGE');
    expect(error.details).toEqual({ limit: 'maxChanges', max: DEFAULT_WRITE_LIMITS.maxChanges, setting: 'TOOLGRAPH_WRITE_MAX_CHANGES' });
    expect(engine.view('demo').version).toBe(before);
  });

  it('refuses a write whose log record would be over the size cap, as its rows are produced', async () => {
    const before = engine.view('demo').version;
    const error = await refusal('MATCH (a),(b) SET a.note = $text', { text: 'x'.repeat(1000) }, { writeLimits: { maxChanges: 1_000_000, maxBatchBytes: 64 * 1024 } });
    expect(error.details).toEqual({ limit: 'maxBatchBytes', max: 64 * 1024, setting: 'TOOLGRAPH_WRITE_MAX_BATCH_BYTES' });
    expect(engine.view('demo').version).toBe(before);
  });

  it('refuses a write that ran past its time budget before anything is logged', async () => {
    const before = engine.view('demo').version;
    // Ninety-four rows, each scanning a million-item list: the work is in the SET, not in matching.
    const list = Array.from({ length: 1_000_000 }, (_, i) => i);
    const error = await refusal('MATCH (a) SET a.seen = -1 IN $list', { list }, { limits: { ...DEFAULT_BUDGET_LIMITS, timeoutMs: 100 } });
    expect(error.details).toEqual({ limit: 'timeoutMs', max: 100, setting: 'TOOLGRAPH_QUERY_TIMEOUT_MS' });
    expect(engine.view('demo').version).toBe(before);
  });

  it('yields the event loop while update clauses run: a read started meanwhile answers before the write ends', async () => {
    let ids = 0;
    let idsWhenReadAnswered = -1;
    let read: Promise<unknown> | undefined;
    const newId = (): string => {
      if (++ids === 1) {
        read = runCypher(engine, 'demo', "MATCH (p:Person {id: 'person-001'}) RETURN p.name AS name").then((r) => {
          idsWhenReadAnswered = ids;
          return r.rows;
        });
      }
      return `tmp-${ids}`;
    };
    const error = await refusal('MATCH (a),(b),(c) CREATE (:Tmp {n: 1})', null, { newId });
    expect(error.code).toBe('TG_WRITE_TOO_LARGE');
    expect(await read).toEqual([['Ada Lovelace']]);
    expect(idsWhenReadAnswered).toBeGreaterThan(0);
    expect(idsWhenReadAnswered).toBeLessThan(ids);
  });

  it('refuses a write whose RETURN is over the result budget before it commits: the refused write changes nothing', async () => {
    const before = engine.view('demo').version;
    const limits = { ...DEFAULT_BUDGET_LIMITS, maxResultBytes: 2_000 };
    const error = await refusal('MATCH (a), (b) SET a.fuzzed = 1 RETURN a, b', null, { limits });
    expect(error.details).toMatchObject({ limit: 'maxResultBytes' });
    expect(engine.view('demo').version).toBe(before);
    expect((await runCypher(engine, 'demo', 'MATCH (a) WHERE a.fuzzed = 1 RETURN count(*) AS n')).rows).toEqual([[0]]);
  });

  it('a RETURN after a write sees the write, and deleted nodes as null', async () => {
    const r = await runCypher(engine, 'demo', "CREATE (n:Tmp {id: 'ret-1', k: 1}) SET n.k = 2 RETURN n, n.k AS k");
    expect(r.rows).toEqual([[{ id: 'ret-1', k: 2 }, 2]]);
    const d = await runCypher(engine, 'demo', "MATCH (n:Tmp {id: 'ret-1'}) DETACH DELETE n RETURN n");
    expect(d.rows).toEqual([[null]]);
    expect(d.version).toBe(engine.view('demo').version);
  });

  it('still commits a write inside the caps, once', async () => {
    const before = engine.view('demo').version;
    const result = await runCypher(engine, 'demo', 'MATCH (a),(b) SET a.pairs = 1');
    expect(result.version).toBe(before + 1);
    expect(result.stats).toMatchObject({ propertiesSet: 94 * 94 });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolgraphError } from '../../../src/errors/index.ts';
import { DEFAULT_BUDGET_LIMITS, type BudgetLimits } from '../../../src/graph/budget/index.ts';
import { runCypher, runCypherJson } from '../../../src/graph/cypher/index.ts';
import { GraphEngine } from '../../../src/graph/engine/index.ts';
import { loadReferenceGraph } from '../../../src/graph/fixtures/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { failure } from '../../support/toolgraph-failure.ts';

// Issue 7, item 1: the attacks on the 94-node reference graph, with the default budget.
let engine: GraphEngine;
let nodes: number;

beforeAll(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await loadReferenceGraph(engine, 'demo');
  nodes = engine.view('demo').nodeCount;
});

afterAll(async () => {
  await engine.close();
});

async function refusal(query: string, limits: BudgetLimits = DEFAULT_BUDGET_LIMITS): Promise<ToolgraphError> {
  return failure(runCypherJson(engine, 'demo', query, null, { limits }));
}

describe('the execution budget (default limits) on the reference graph', () => {
  it('refuses a four-way cross product on the row cap, with bounded memory', async () => {
    expect(nodes).toBe(94);
    const before = process.memoryUsage().heapUsed;
    const error = await refusal('MATCH (a),(b),(c),(d) RETURN count(*)');
    expect(error.code).toBe('TG_QUERY_BUDGET_EXCEEDED');
    expect(error.details).toEqual({ limit: 'maxRows', max: 1_000_000, setting: 'TOOLGRAPH_QUERY_MAX_ROWS' });
    // Rows stream through in chunks: nothing near the 78 million rows (or their gigabytes) is ever held.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(128 * 1024 * 1024);
  });

  it('refuses a three-way cross product that returns whole nodes on the result size, before building it', async () => {
    const before = process.memoryUsage().heapUsed;
    const error = await refusal('MATCH (a),(b),(c) RETURN a, b, c');
    expect(error.details).toEqual({ limit: 'maxResultBytes', max: 16 * 1024 * 1024, setting: 'TOOLGRAPH_QUERY_MAX_RESULT_BYTES' });
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(256 * 1024 * 1024);
  });

  it('refuses work past the time budget', async () => {
    const error = await refusal('MATCH (a),(b),(c) WHERE a.id <> b.id RETURN count(*)', { ...DEFAULT_BUDGET_LIMITS, timeoutMs: 1 });
    expect(error.details).toEqual({ limit: 'timeoutMs', max: 1, setting: 'TOOLGRAPH_QUERY_TIMEOUT_MS' });
  });

  it('counts rows of pattern comprehensions too', async () => {
    // 94 + 94² matched rows fit in 20000; their comprehensions (one row per edge end, about 55000) do not.
    const error = await refusal('MATCH (a), (x) RETURN [(a)--(b) | b.id] AS around', { ...DEFAULT_BUDGET_LIMITS, maxRows: 20_000 });
    expect(error.details).toMatchObject({ limit: 'maxRows', max: 20_000 });
    expect((await runCypher(engine, 'demo', 'MATCH (a), (x) RETURN count(*)', null, { limits: { ...DEFAULT_BUDGET_LIMITS, maxRows: 20_000 } })).rows).toEqual([[nodes * nodes]]);
  });

  it('answers what fits: the same three-way product counted', async () => {
    const result = await runCypher(engine, 'demo', 'MATCH (a),(b),(c) RETURN count(*)');
    expect(result.rows).toEqual([[nodes ** 3]]);
  });

  it('yields the event loop while it runs, so a small read started later answers first', async () => {
    const order: string[] = [];
    const heavy = runCypher(engine, 'demo', 'MATCH (a),(b),(c) WHERE a.id <> c.id RETURN count(*) AS n').then((r) => {
      order.push('heavy');
      return r;
    });
    const small = runCypher(engine, 'demo', "MATCH (p:Person {id: 'person-001'}) RETURN p.name").then((r) => {
      order.push('small');
      return r;
    });
    const [h, s] = await Promise.all([heavy, small]);
    expect(order).toEqual(['small', 'heavy']);
    expect(s.rows).toEqual([['Ada Lovelace']]);
    expect(h.rows).toEqual([[nodes * nodes * (nodes - 1)]]);
  });

  it('a read that yields sees one version: a commit meanwhile waits for it, and reads after the commit see it', async () => {
    const heavy = runCypher(engine, 'demo', 'MATCH (a),(b),(c) WHERE a.id <> c.id RETURN count(*) AS n');
    await new Promise((resolve) => setImmediate(resolve));
    const events: string[] = [];
    void heavy.then(() => events.push('read'));
    const commit = engine.commit({ graph: 'demo', mutations: [{ op: 'createNode', id: 'budget-extra', label: 'Person', props: { name: 'Extra' } }] })
      .then((r) => {
        events.push('commit');
        return r;
      });
    await new Promise((resolve) => setImmediate(resolve));
    // Arrives while the commit waits for the heavy read: runs after the commit.
    const after = runCypher(engine, 'demo', 'MATCH (n) RETURN count(*)');
    const [h, c, a] = await Promise.all([heavy, commit, after]);
    expect(events).toEqual(['read', 'commit']);
    expect(h.rows).toEqual([[nodes * nodes * (nodes - 1)]]);
    expect(h.version).toBe(c.version - 1);
    expect(a.version).toBe(c.version);
    expect(a.rows).toEqual([[nodes + 1]]);
  });
});

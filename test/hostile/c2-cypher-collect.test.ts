import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BUDGET_LIMITS } from '../../src/graph/budget/index.ts';
import { cypher, demoVersion, startGraphService, underAttack, type GraphService } from './attack.ts';

// Issue 15, C2: a read-only `collect` over a cross product of the stock demo graph took RSS from
// 1.2 to 4.1 GB and the process down; the result-size check ran only after a row's JSON existed.
let running: GraphService;
const big = 'x'.repeat(900 * 1024);

beforeAll(async () => {
  running = await startGraphService();
});

afterAll(async () => {
  await running.close();
});

const REFUSED = {
  code: 'TG_QUERY_BUDGET_EXCEEDED',
  details: { limit: 'maxResultBytes', max: DEFAULT_BUDGET_LIMITS.maxResultBytes, setting: 'TOOLGRAPH_QUERY_MAX_RESULT_BYTES' },
};

describe('C2: collect over a cross product, through POST /dispatch', () => {
  it('refuses collect($p) of a 900 KB parameter on the result-size budget, in time, with /healthz answering and the heap in bounds', async () => {
    const outcome = await underAttack(running.origin, 'MATCH (a),(b) RETURN collect($p) AS x', { p: big });
    expect(outcome.answer.error).toMatchObject(REFUSED);
    expect(outcome.answer.error!.message).toContain('TOOLGRAPH_QUERY_MAX_RESULT_BYTES');
    expect(outcome.answeredMs).toBeLessThan(2 * DEFAULT_BUDGET_LIMITS.timeoutMs);
    expect(outcome.healthzPolls).toBeGreaterThan(0);
    expect(outcome.healthzMaxMs).toBeLessThan(500);
    // Written whole, the answer would be 7.6 GiB of JSON.
    expect(outcome.heapGrowth).toBeLessThan(512 * 1024 * 1024);
  }, 60_000);

  it('refuses the same with a large stored property, and the graph still answers afterwards', async () => {
    const stored = await cypher(running.origin, 'CREATE (:Blob {id: $id, body: $p})', { id: 'blob', p: big });
    expect(stored.error).toBeUndefined();
    const version = await demoVersion(running.origin);
    const outcome = await underAttack(running.origin, "MATCH (a),(b),(x:Blob {id: 'blob'}) RETURN collect(x.body) AS x");
    expect(outcome.answer.error).toMatchObject(REFUSED);
    expect(outcome.answeredMs).toBeLessThan(2 * DEFAULT_BUDGET_LIMITS.timeoutMs);
    expect(outcome.healthzMaxMs).toBeLessThan(500);
    expect(outcome.heapGrowth).toBeLessThan(512 * 1024 * 1024);
    expect(await demoVersion(running.origin)).toBe(version);
    const answer = await cypher(running.origin, "MATCH (x:Blob {id: 'blob'}) RETURN size(x.body) AS n");
    expect(answer.result?.rows).toEqual([[big.length]]);
  }, 60_000);
});

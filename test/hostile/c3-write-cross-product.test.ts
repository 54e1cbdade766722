import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BUDGET_LIMITS } from '../../src/graph/budget/index.ts';
import { DEFAULT_WRITE_LIMITS } from '../../src/graph/engine/index.ts';
import { cypher, demoVersion, startGraphService, underAttack, type GraphService } from './attack.ts';

// Issue 15, C3: writes over a cross product of the stock demo graph ran 830,584 SET rows without a
// budget check (event loop blocked ~2.5 min, then heap out of memory), or committed one 49.8 MB log
// record after 7.3 s with a 5.6 s /healthz stall.
let running: GraphService;

beforeAll(async () => {
  running = await startGraphService();
});

afterAll(async () => {
  await running.close();
});

const sixtyKeys = Array.from({ length: 60 }, (_, i) => `k${i}: ${i}`).join(', ');

describe('C3: writes over a cross product, through POST /dispatch', () => {
  it.each([
    ['SET a += {k0: 0, …, k59: 59}', `MATCH (a),(b),(c) SET a += {${sixtyKeys}}`],
    ['SET a.tmpcount = 1', 'MATCH (a),(b),(c) SET a.tmpcount = 1'],
  ])('refuses %s on the change cap, in time, with /healthz answering, the heap in bounds and the graph unchanged', async (_name, query) => {
    const version = await demoVersion(running.origin);
    const outcome = await underAttack(running.origin, query);
    expect(outcome.answer.error).toMatchObject({
      code: 'TG_WRITE_TOO_LARGE',
      details: { limit: 'maxChanges', max: DEFAULT_WRITE_LIMITS.maxChanges, setting: 'TOOLGRAPH_WRITE_MAX_CHANGES' },
    });
    expect(outcome.answer.error!.message).toContain('TOOLGRAPH_WRITE_MAX_CHANGES');
    expect(outcome.answeredMs).toBeLessThan(2 * DEFAULT_BUDGET_LIMITS.timeoutMs);
    expect(outcome.healthzPolls).toBeGreaterThan(0);
    expect(outcome.healthzMaxMs).toBeLessThan(500);
    expect(outcome.heapGrowth).toBeLessThan(768 * 1024 * 1024);
    expect(await demoVersion(running.origin)).toBe(version);
    const untouched = await cypher(running.origin, 'MATCH (a) WHERE a.tmpcount IS NOT NULL OR a.k0 IS NOT NULL RETURN count(*) AS n');
    expect(untouched.result?.rows).toEqual([[0]]);
  }, 60_000);

  it('refuses on the log-record size cap a write whose rows are few but large, changing nothing', async () => {
    const version = await demoVersion(running.origin);
    // 8836 rows of one change each, 4 KiB apiece: 36 MB of log record against 16 MiB.
    const outcome = await underAttack(running.origin, 'MATCH (a),(b) SET a.note = $text', { text: 'x'.repeat(4096) });
    expect(outcome.answer.error).toMatchObject({
      code: 'TG_WRITE_TOO_LARGE',
      details: { limit: 'maxBatchBytes', max: DEFAULT_WRITE_LIMITS.maxBatchBytes, setting: 'TOOLGRAPH_WRITE_MAX_BATCH_BYTES' },
    });
    expect(outcome.answeredMs).toBeLessThan(2 * DEFAULT_BUDGET_LIMITS.timeoutMs);
    expect(outcome.healthzMaxMs).toBeLessThan(500);
    expect(await demoVersion(running.origin)).toBe(version);
  }, 60_000);

  it('still commits a write inside the caps', async () => {
    const version = await demoVersion(running.origin);
    const answer = await cypher(running.origin, 'MATCH (a),(b) SET a.pairs = 1');
    expect(answer.error).toBeUndefined();
    expect(answer.result?.version).toBe(version + 1);
  }, 60_000);
});

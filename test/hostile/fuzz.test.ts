/**
 * Issue 15, item 7: a hostile fuzzer through the real HTTP surfaces. Generated GraphQL and Cypher
 * requests, reads and writes (hostile-cases.ts), against a graph built to hurt (hubs of 10,000 edges
 * each way, a 1 MB string, a node of 1,000 properties): each must be answered or refused within twice
 * the time budget, /healthz must answer within 500 ms throughout (probed from another thread), a
 * refused write must leave the graph's version unchanged, and the heap after GC must stay within a
 * bound. This is the short run; `npm run fuzz -- --minutes N` runs the same property for longer.
 * FUZZ_SEED=<n> replays a run (the seed is printed on failure by fast-check).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileCase } from './fuzz/hostile-cases.ts';
import { cypherBody, post, startFuzzTarget, type FuzzTarget } from './fuzz/fuzz-target.ts';
import { CASES_PER_RUN, HEAP_GROWTH_BOUND, runCase } from './fuzz/run-case.ts';

let target: FuzzTarget;
let heapBefore = 0;

beforeAll(async () => {
  target = await startFuzzTarget({ TOOLGRAPH_QUERY_TIMEOUT_MS: '2000' });
  heapBefore = await target.heapAfterGc();
}, 120_000);

afterAll(async () => {
  await target?.close();
});

describe('the hostile fuzzer (short run)', () => {
  it('answers or refuses every generated request in time, keeps /healthz answering, refused writes change nothing, the heap stays bounded', async () => {
    const seed = process.env['FUZZ_SEED'] === undefined ? undefined : Number(process.env['FUZZ_SEED']);
    const codes = new Map<string, number>();
    await fc.assert(fc.asyncProperty(hostileCase, async (hostile) => {
      const outcome = await runCase(target, hostile);
      const key = outcome.code ?? 'answered';
      codes.set(key, (codes.get(key) ?? 0) + 1);
    }), { numRuns: CASES_PER_RUN, ...(seed === undefined ? {} : { seed }), endOnFailure: true });
    const growth = (await target.heapAfterGc()) - heapBefore;
    expect(growth, `heap grew by ${Math.round(growth / 1048576)} MiB after GC`).toBeLessThan(HEAP_GROWTH_BOUND);
    // Outcomes, for the log: how many cases were answered and how many refused, by code.
    console.info(`fuzz outcomes: ${JSON.stringify(Object.fromEntries(codes))}`);
  }, 600_000);

  it('starts a batch of the long run from the hostile graph as imported: what writes added is gone, and no memory is left behind', async () => {
    const census = async (): Promise<unknown> => {
      const answer = await post(target.origin, '/dispatch', cypherBody('MATCH (n) OPTIONAL MATCH (n)-[e]->() RETURN count(DISTINCT n) AS nodes, count(e) AS edges, sum(size(keys(n))) AS keys'), 60_000);
      return (JSON.parse(answer.body) as { result: { rows: unknown } }).result.rows;
    };
    await target.reset();
    const imported = await census();
    const wrote = await post(target.origin, '/dispatch', cypherBody('MATCH (h:Hub) CREATE (h)-[:FZ]->(:Fz {s: $s}) SET h.extra = 1', { s: 'x'.repeat(1000) }), 60_000);
    expect(wrote.status, wrote.body).toBe(200);
    expect(await census()).not.toEqual(imported);
    await target.reset();
    expect(await census()).toEqual(imported);
    const growth = (await target.heapAfterGc()) - heapBefore;
    expect(growth, `heap grew by ${Math.round(growth / 1048576)} MiB after GC over the graph imported afresh`).toBeLessThan(HEAP_GROWTH_BOUND);
  }, 120_000);
});

/**
 * Issue 15, the last line of defence: when the heap nears its limit or the event loop runs late, new
 * work is shed with 503 TG_OVERLOADED and Retry-After, running queries stop at their next budget
 * check, and the probes keep answering. The monitor's readings are a stand-in the test sets.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LoadStandIn } from '../overload/load-stand-in.ts';
import { dispatchCypher, send, startTarget, type HostileTarget } from './hostile-server.ts';

let target: HostileTarget | undefined;
afterEach(async () => {
  await target?.running.close({ graceMs: 0 });
  target = undefined;
});

/** Five unrelated patterns over the 94-node demo graph: billions of rows, far past the test's time. */
const RUNAWAY = 'MATCH (a), (b), (c), (d), (e) RETURN count(*) AS n';

describe('overload shedding', () => {
  it('stops a running query at its next budget check, sheds new work with 503 TG_OVERLOADED and Retry-After, keeps the probes, and recovers', async () => {
    const load = new LoadStandIn();
    const t = await startTarget({ TOOLGRAPH_QUERY_MAX_ROWS: '1000000000', TOOLGRAPH_QUERY_TIMEOUT_MS: '600000', TOOLGRAPH_OVERLOAD_HEAP_PERCENT: '85' }, load);
    target = t;
    const running = dispatchCypher(t.main, RUNAWAY);
    // Let it get going: the monitor keeps reading between its slices.
    const reads = load.reads;
    await expect.poll(() => load.reads, { timeout: 10_000 }).toBeGreaterThan(reads + 2);
    load.heapUsedBytes = 900;

    // Understood and run, then stopped: the native dispatch answers 200 with the error.
    const stopped = await running;
    expect(stopped.status).toBe(200);
    expect(JSON.parse(stopped.body)).toEqual({
      id: 7,
      error: {
        code: 'TG_OVERLOADED',
        message: 'toolgraph is overloaded: the heap is at 90% of its limit (TOOLGRAPH_OVERLOAD_HEAP_PERCENT is 85). New work is refused and running queries are stopped until it recovers; retry in 1 s.',
        details: { reason: 'heap', reading: 90, threshold: 85, setting: 'TOOLGRAPH_OVERLOAD_HEAP_PERCENT', retryAfterSecs: 1 },
      },
    });

    // New work is refused before it starts, on every route and on the carrier.
    const shed = await dispatchCypher(t.main, 'MATCH (p:Person) RETURN count(p) AS n');
    expect(shed.status).toBe(503);
    expect(shed.headers['retry-after']).toBe('1');
    expect(JSON.parse(shed.body)).toMatchObject({ error: { code: 'TG_OVERLOADED', details: { reason: 'heap' } } });
    const graphql = await send(t.main, '/graphql/demo', { method: 'POST', body: JSON.stringify({ query: '{ Person(first: 1) { id } }' }) });
    expect(graphql.status).toBe(503);
    expect(graphql.headers['retry-after']).toBe('1');
    const signed = await t.sign();
    const handshake = await send(t.carrier, signed.path, { headers: signed.headers });
    expect(handshake.status).toBe(503);
    expect(handshake.headers['retry-after']).toBe('1');
    expect(JSON.parse(handshake.body)).toMatchObject({ error: { code: 'TG_OVERLOADED' } });

    // Readiness says why; liveness is unaffected.
    const health = await send(t.main, '/healthz');
    expect(health.status).toBe(503);
    expect(health.headers['retry-after']).toBe('1');
    expect(JSON.parse(health.body)).toEqual({ status: 'overloaded', services: ['graph', 'graphql', 'metrics'], overload: { reason: 'heap', reading: 90, threshold: 85, setting: 'TOOLGRAPH_OVERLOAD_HEAP_PERCENT' } });
    expect((await send(t.main, '/livez')).status).toBe(200);

    // An event loop running late sheds the same way.
    load.calm();
    load.eventLoopDelayMs = 5_000;
    await expect.poll(async () => JSON.parse((await send(t.main, '/healthz')).body) as object, { timeout: 10_000 })
      .toMatchObject({ status: 'overloaded', overload: { reason: 'event-loop-delay', reading: 5000, threshold: 1000, setting: 'TOOLGRAPH_OVERLOAD_EVENT_LOOP_DELAY_MS' } });

    // Back under both thresholds, the same request is served.
    load.calm();
    await expect.poll(async () => (await dispatchCypher(t.main, 'MATCH (p:Person) RETURN count(p) AS n')).status, { timeout: 10_000 }).toBe(200);
    expect((await send(t.main, '/healthz')).status).toBe(200);
  }, 60_000);
});

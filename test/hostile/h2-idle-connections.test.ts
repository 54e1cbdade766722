/**
 * Issue 15, H2: connections that never send a byte were never closed (the main port kept them for
 * node:http's 60 s head timeout, checked every 30 s; the carrier, which promises 10 s, for up to 40),
 * and carrier sockets were counted only once their request arrived. 24,000 of them exhausted the file
 * descriptors, and /healthz and /dispatch failed. Now every listener closes a connection whose head
 * has not arrived by TOOLGRAPH_REQUEST_HEAD_TIMEOUT_MS, counts it from accept against its cap, refuses
 * new work past the cap at once, and still answers /healthz.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { dispatchCypher, IdleSockets, send, startTarget, type Answer, type HostileTarget } from './hostile-server.ts';

const MAIN_CAP = 200;
const CARRIER_CAP = 50;
const HEAD_TIMEOUT_MS = 3000;
/** Past the cap, 1024 connections may wait for their head (OVERFLOW_CONNECTIONS); these go past that too. */
const MAIN_IDLE = 1500;
const CARRIER_IDLE = 1200;

let target: HostileTarget | undefined;
const idle = new IdleSockets();
afterEach(async () => {
  idle.destroy();
  await target?.running.close({ graceMs: 0 });
  target = undefined;
});

/** /healthz on a fresh connection every 50 ms until stopped: every answer, or the error instead. */
function probeHealth(origin: string): { stop(): Promise<(Answer | Error)[]> } {
  const answers: (Answer | Error)[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      answers.push(await send(origin, '/healthz').catch((error: unknown) => error as Error));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return answers;
    },
  };
}

describe('H2: idle connections on the main port and the carrier', () => {
  it('are closed at the head deadline, count against the caps, are refused fast past them, and never starve /healthz', async () => {
    const t = await startTarget({
      TOOLGRAPH_MAX_CONNECTIONS: String(MAIN_CAP),
      TOOLGRAPH_REQUEST_HEAD_TIMEOUT_MS: String(HEAD_TIMEOUT_MS),
      SERVICE_GRAPHQL_MAX_CONNECTIONS: String(CARRIER_CAP),
    });
    target = t;
    const health = probeHealth(t.main);

    // Past the cap (idle connections fill it), a request is refused at once.
    await idle.open(t.main, MAIN_IDLE);
    const refused = await dispatchCypher(t.main, 'MATCH (p:Person) RETURN count(p) AS n');
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'TG_TOO_MANY_CONNECTIONS', details: { max: MAIN_CAP, setting: 'TOOLGRAPH_MAX_CONNECTIONS' } } });
    expect(refused.ms).toBeLessThan(500);
    // On the carrier too: idle sockets count against SERVICE_GRAPHQL_MAX_CONNECTIONS.
    await idle.open(t.carrier, CARRIER_IDLE);
    const signed = await t.sign();
    const carrierRefused = await send(t.carrier, signed.path, { headers: signed.headers });
    expect(carrierRefused.status).toBe(503);
    expect(carrierRefused.headers['retry-after']).toBe('1');
    expect(JSON.parse(carrierRefused.body)).toEqual({ error: { code: 'TG_TOO_MANY_CONNECTIONS', message: `The carrier is at its limit of ${CARRIER_CAP} connections; retry later.` } });
    expect(carrierRefused.ms).toBeLessThan(500);
    expect(idle.opened).toBe(MAIN_IDLE + CARRIER_IDLE);
    // The sockets past cap + overflow lane were closed at once, not at the deadline.
    expect(idle.closed).toBeGreaterThanOrEqual(MAIN_IDLE + CARRIER_IDLE - MAIN_CAP - CARRIER_CAP - 2 * 1024);

    // Every idle connection is closed once the head deadline has passed (checked a quarter-deadline apart).
    await expect.poll(() => idle.closed, { timeout: HEAD_TIMEOUT_MS + 10_000, interval: 100 }).toBe(MAIN_IDLE + CARRIER_IDLE);
    expect(t.running.services.map((s) => s.name)).toContain('carrier');

    const answers = await health.stop();
    const failures = answers.filter((a) => a instanceof Error || a.status !== 200);
    expect(failures).toEqual([]);
    expect(answers.length).toBeGreaterThan(10);
    // Answered while the idle connections were still held: well before the head deadline that cuts them
    // (this process opens thousands of sockets meanwhile, so its own loop adds to each probe's time).
    const slowest = Math.max(...answers.map((a) => (a as Answer).ms));
    expect(slowest).toBeLessThan(HEAD_TIMEOUT_MS / 2);

    // Once the idle ones are cut, a normal request works on both listeners.
    const ok = await dispatchCypher(t.main, 'MATCH (p:Person) RETURN count(p) AS n');
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ id: 7, result: { columns: ['n'] } });
    const fresh = await t.sign();
    const stream = await send(t.carrier, fresh.path, { headers: fresh.headers, firstBytes: true });
    expect(stream.status).toBe(200);
    expect(stream.body).toMatch(/^event: next\ndata: \{"data":\{"Organization":\[/);
  }, 60_000);
});

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { captureLogger } from '../../support/capture-logger.ts';
import { DEFAULTS, GRAPH, countingExecutor, startFixture, type CarrierFixture } from './carrier-fixture.ts';

let fixture: CarrierFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

function forceGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

describe('carrier bounds', () => {
  it('counts a burst of 500 handshakes against the cap: exactly the cap gets in, the rest 503 at once', async () => {
    fixture = await startFixture({ maxConnections: 50 });
    const f = fixture;
    const signed = await Promise.all(Array.from({ length: 500 }, () => f.sign({ query: 'subscription { Person(first: 1) { id } }' })));
    const clients = await Promise.all(signed.map((s) => f.subscribe(s)));
    const statuses = clients.map((c) => c.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    expect(statuses.filter((s) => s === 503)).toHaveLength(450);
    for (const c of clients.filter((x) => x.status === 503)) {
      expect(c.headers['retry-after']).toBe('1');
      expect(JSON.parse(c.body)).toEqual({ error: { code: 'TG_TOO_MANY_CONNECTIONS', message: 'The carrier is at its limit of 50 connections; retry later.' } });
    }
    expect(f.carrier.stats()).toMatchObject({ connections: 50, sessions: 50 });
    // Slots come back when sessions end.
    for (const c of clients) c.close();
    await expect.poll(() => f.carrier.stats().connections, { timeout: 10_000 }).toBe(0);
    const next = await f.subscribe(await f.sign());
    expect(next.status).toBe(200);
  }, 120_000);

  it('cuts off a reader that stops reading while the others keep receiving', async () => {
    const { lines, logger } = captureLogger('info');
    fixture = await startFixture({ bufferCap: 64 * 1024, logger });
    const f = fixture;
    const big = (n: number) => `${n}:`.padEnd(100_000, 'x');
    await f.commit(...Array.from({ length: 5 }, (_v, i) => ({ op: 'createNode' as const, id: `big${i}`, label: 'Blob', props: { body: big(0) } })));
    const query = 'subscription { Blob(first: 5) { id body } }';
    const reader = await f.subscribe(await f.sign({ query }));
    const stopper = await f.subscribe(await f.sign({ query, subject: 'slow' }));
    await reader.until((c) => c.events.length === 1, 'reader initial');
    await stopper.until((c) => c.events.length === 1, 'stopper initial');
    stopper.stopReading();
    // Each frame is about 500 KB; loopback socket buffers take a few MB before the server's queue grows.
    let frames = 1;
    while (f.carrier.stats().sessions === 2 && frames < 200) {
      await f.commit({ op: 'updateNode', id: `big${frames % 5}`, set: { body: big(frames) } });
      frames++;
      await reader.until((c) => c.events.length === frames, `reader frame ${frames}`);
    }
    expect(f.carrier.stats().sessions).toBe(1);
    expect(frames).toBeLessThan(200);
    // The reader is still served after the cut.
    await f.commit({ op: 'updateNode', id: 'big0', set: { body: big(999) } });
    await reader.until((c) => c.events.length === frames + 1, 'reader frame after the cut');
    expect(reader.finished).toBe(false);
    expect(lines.some((l) => l.includes('carrier cut off a slow reader'))).toBe(true);
  }, 120_000);

  it('survives 2,000 subscribe/unsubscribe cycles with memory back near its start', async () => {
    const { lines, logger } = captureLogger('warn');
    // The carrier's in-process ledgers: this measures what sessions leave behind, and a state store's
    // copy of every nonce (about 1.3 MiB more for these 4,000 values) would blur it.
    fixture = await startFixture({ logger, maxConnections: 64, ledgers: 'in-process' });
    const f = fixture;
    const gc = forceGc();
    const queries = ['subscription { Person(first: 3) { id } }', 'subscription { Person(first: 5) { id name KNOWS { id } } }', 'subscription { Doc(first: 2) { title } }'];
    let cycle = 0;
    const runCycles = async (count: number): Promise<void> => {
      const worker = async (): Promise<void> => {
        while (cycle < count) {
          const i = cycle++;
          const client = await f.subscribe(await f.sign({ query: queries[i % 3]!, groups: i % 2 ? ['red'] : ['blue'] }));
          expect(client.status).toBe(200);
          await client.until((c) => c.events.length >= 1, 'initial');
          if (i % 50 === 0) await f.commit({ op: 'updateNode', id: 'p01', set: { name: `cycle ${i}` } });
          client.close();
          await client.done;
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      await expect.poll(() => f.carrier.stats().connections, { timeout: 10_000 }).toBe(0);
    };
    // The first thousand cycles grow the heap and the allocator's arenas to their working size.
    await runCycles(1000);
    gc();
    const before = process.memoryUsage();
    cycle = 0;
    await runCycles(2000);
    expect(f.carrier.stats()).toMatchObject({ sessions: 0, groups: 0, connections: 0 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    gc();
    const after = process.memoryUsage();
    const mib = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;
    const growth = { heapMiB: mib(after.heapUsed - before.heapUsed), rssMiB: mib(after.rss - before.rss) };
    // 2,000 live nonces stay remembered until their envelopes expire (~0.5 MB); sessions leave nothing.
    expect(growth.heapMiB, JSON.stringify(growth)).toBeLessThan(4);
    // RSS moves with the allocator's arenas by several MiB either way; a native leak of 16 KiB per
    // session (a socket's buffers) would add over 30 MiB.
    expect(growth.rssMiB, JSON.stringify(growth)).toBeLessThan(30);
    expect(lines.filter((l) => l.includes('"level":"error"'))).toEqual([]);
    expect(f.carrier.stats().nonces).toBe(3000);
  }, 180_000);

  it('closes every stream with a final event when the carrier stops', async () => {
    fixture = await startFixture();
    const client = await fixture.subscribe(await fixture.sign());
    await client.until((c) => c.events.length === 1, 'initial');
    await fixture.carrier.close();
    await client.done;
    expect(JSON.parse(client.events.at(-1)!.data)).toEqual({ reason: 'server-closing' });
    expect(GRAPH).toBe('zebraGraph42');
  });
});

describe('clients that leave mid-handshake', () => {
  it('frees their slot and writes nothing to them, whether the handshake then fails or succeeds', async () => {
    const { startCarrier, loadSignerKeys, NONCE_SPACE, REQUEST_ID_SPACE, StoreReplayLedger } = await import('../../../src/graph/carrier/index.ts');
    const { createCarrierAccess } = await import('../../../src/graph/access/index.ts');
    const { silentLogger } = await import('../../../src/log/index.ts');
    const base = await startFixture();
    fixture = base;
    const keys = await loadSignerKeys(base.jwksPath);
    // Slow signer keys (a remote JWKS, say): the client is gone before verification ends.
    let verifications = 0;
    const slowKeys: typeof keys = async (header, token) => {
      verifications++;
      await new Promise((resolve) => setTimeout(resolve, 150));
      return keys(header, token);
    };
    const outcomes: string[] = [];
    const carrier = await startCarrier({
      host: '127.0.0.1', port: 0, graphs: base.engine, executor: countingExecutor(base.engine), access: createCarrierAccess(base.engine),
      signerKeys: slowKeys, logger: silentLogger(), maxConnections: 4, maxSessionSecs: 60, listLimit: DEFAULTS.graphqlListLimit, maxWork: DEFAULTS.carrierMaxWork, onHandshake: (outcome) => outcomes.push(outcome),
      ledgers: { nonces: new StoreReplayLedger(base.state, NONCE_SPACE), requestIds: new StoreReplayLedger(base.state, REQUEST_ID_SPACE) },
    });
    const errors: unknown[] = [];
    const onError = (error: unknown) => errors.push(error);
    process.on('uncaughtException', onError);
    try {
      const { SseClient } = await import('../../support/sse-client.ts');
      const valid = await base.sign();
      const tampered = { ...valid, headers: { ...valid.headers, authorization: `${valid.authorization}x` } };
      for (const [i, signed] of [tampered, valid, await base.sign()].entries()) {
        const client = new SseClient(carrier.origin, signed.path, { ...signed.headers });
        // Leave once the carrier is verifying this envelope.
        await vi.waitFor(() => expect(verifications).toBe(i + 1), { timeout: 10_000, interval: 2 });
        client.close();
        await client.done;
      }
      // Every handshake has ended (each after its client left), the failed one and the two that verified.
      await vi.waitFor(() => expect(outcomes).toHaveLength(3), { timeout: 10_000, interval: 5 });
      expect(outcomes).toEqual(['TG_ENVELOPE_INVALID', 'ok', 'ok']);
      await expect.poll(() => carrier.stats(), { timeout: 10_000 }).toMatchObject({ connections: 0, sessions: 0, groups: 0 });
      expect(errors).toEqual([]);
      const fresh = await base.sign();
      const ok = new SseClient(carrier.origin, fresh.path, { ...fresh.headers });
      await ok.opened();
      expect(ok.status).toBe(200);
      ok.close();
    } finally {
      process.off('uncaughtException', onError);
      await carrier.close();
    }
  });
});

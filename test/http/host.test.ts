import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routeOf, startHost, type HttpService, type RunningHost } from '../../src/http/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { OverloadSignal } from '../../src/overload/index.ts';
import { sendJson } from '../../src/http/index.ts';
import { validateHealth, validateLiveness } from '../../generated/validators/openapi.ts';

function service(name: string, prefixes: string[], fail?: Error): HttpService {
  return {
    name,
    prefixes,
    entryPath: prefixes[0]!,
    handle(req, res) {
      if (fail) throw fail;
      sendJson(res, 200, { service: name, url: req.url });
    },
  };
}

let host: RunningHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe('routeOf', () => {
  const services = [service('a', ['/schemas']), service('b', ['/schemas/special', '/dispatch']), service('c', ['/files/'])];
  it.each([
    ['/schemas', 'a'],
    ['/schemas/abc', 'a'],
    ['/schemas/special', 'b'],
    ['/schemas/special/x', 'b'],
    ['/schemasx', undefined],
    ['/dispatch', 'b'],
    ['/dispatch/', 'b'],
    ['/', undefined],
    ['/files/', 'c'],
    ['/files/a/b', 'c'],
    ['/files', undefined],
  ])('%s → %s', (path, name) => {
    expect(routeOf(services, path)?.name).toBe(name);
  });
});

describe('startHost', () => {
  it('serves every service on one port, /healthz, and documented 404/405/500 bodies', async () => {
    host = await startHost({
      services: [service('one', ['/one']), service('boom', ['/boom'], new Error('secret internals'))],
      logger: silentLogger(),
      host: '127.0.0.1',
      port: 0,
    });
    expect(host.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(`${host.origin}/one/x?y=1`)).json()).toEqual({ service: 'one', url: '/one/x?y=1' });
    expect(await (await fetch(`${host.origin}/healthz`)).json()).toEqual({ status: 'ok', services: ['one', 'boom'] });

    const missing = await fetch(`${host.origin}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 'TG_NOT_FOUND', message: 'No route for GET /nope; GET / lists the routes this server answers.' } });

    const post = await fetch(`${host.origin}/healthz`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');

    const boom = await fetch(`${host.origin}/boom`);
    expect(boom.status).toBe(500);
    const body = (await boom.json()) as { error: { code: string; message: string } };
    expect(body.error).toEqual({ code: 'TG_INTERNAL', message: 'Internal server error.' });
  });
});

/** A service whose requests wait until the test releases them, so a request can be in flight on demand. */
function gatedService(name: string, prefix: string): HttpService & { started: Promise<void>; release(): void } {
  let release!: () => void;
  let started!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const startedPromise = new Promise<void>((resolve) => (started = resolve));
  return {
    name,
    prefixes: [prefix],
    entryPath: prefix,
    started: startedPromise,
    release,
    async handle(_req, res) {
      started();
      await gate;
      sendJson(res, 200, { committed: true });
    },
  };
}

describe('readiness', () => {
  it('answers 503 starting on /healthz and on every route until each pending service is mounted, then ok', async () => {
    host = await startHost({ services: [], pending: ['graph', 'catalogue'], logger: silentLogger(), host: '127.0.0.1', port: 0 });
    const health = await fetch(`${host.origin}/healthz`);
    expect(health.status).toBe(503);
    expect(health.headers.get('retry-after')).toBe('1');
    const startingBody = await health.json();
    expect(startingBody).toEqual({ status: 'starting', services: [], starting: ['graph', 'catalogue'] });

    const early = await fetch(`${host.origin}/dispatch`, { method: 'POST', body: '{}' });
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('1');
    expect(await early.json()).toMatchObject({ error: { code: 'TG_NOT_READY', details: { status: 'starting', starting: ['graph', 'catalogue'] } } });

    // Liveness does not wait for the services.
    const live = await fetch(`${host.origin}/livez`);
    expect(live.status).toBe(200);
    const liveBody = await live.json();
    expect(liveBody).toEqual({ status: 'alive' });

    host.mount([service('graph', ['/dispatch'])]);
    expect((await fetch(`${host.origin}/dispatch`)).status).toBe(200);
    expect((await fetch(`${host.origin}/schemas/search`)).status).toBe(503);
    expect((await fetch(`${host.origin}/healthz`)).status).toBe(503);

    host.mount([service('catalogue', ['/schemas'])]);
    const ready = await fetch(`${host.origin}/healthz`);
    expect(ready.status).toBe(200);
    const readyBody = await ready.json();
    expect(readyBody).toEqual({ status: 'ok', services: ['graph', 'catalogue'] });
    // Every probe answer is what the OpenAPI document says.
    expect(validateHealth(readyBody)).toBe(true);
    expect(validateHealth(startingBody)).toBe(true);
    expect(validateLiveness(liveBody)).toBe(true);
    expect((await fetch(`${host.origin}/nope`)).status).toBe(404);
  });
});

describe('graceful close', () => {
  it('stops accepting, lets an in-flight request finish and answer, then closes', async () => {
    const slow = gatedService('slow', '/slow');
    const running = await startHost({ services: [slow], logger: silentLogger(), host: '127.0.0.1', port: 0 });
    host = running;
    const inFlight = fetch(`${running.origin}/slow`);
    await slow.started;
    expect(running.inFlight).toBe(1);

    let closed = false;
    const closing = running.close({ graceMs: 10_000 }).then(() => (closed = true));
    // New connections are refused once close began, and it has not finished while the request drains.
    await vi.waitFor(() => expect(fetch(`${running.origin}/healthz`)).rejects.toThrow(), { timeout: 10_000, interval: 5 });
    expect(closed).toBe(false);
    expect(running.inFlight).toBe(1);

    slow.release();
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ committed: true });
    await closing;
    expect(closed).toBe(true);
    expect(running.inFlight).toBe(0);
  });

  it('a request that arrives on a kept-alive connection after close began is sent elsewhere (503, Connection: close)', async () => {
    const slow = gatedService('slow', '/slow');
    const running = await startHost({ services: [slow, service('one', ['/one'])], logger: silentLogger(), host: '127.0.0.1', port: 0 });
    host = running;
    const { port } = new URL(running.origin);
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await slow.started;
    const closing = running.close({ graceMs: 10_000 });
    // The connection is still open (its request is in flight), so a client may send the next one on it.
    socket.write('GET /one HTTP/1.1\r\nHost: x\r\n\r\n');
    // Released only once the host has the second request.
    await vi.waitFor(() => expect(running.inFlight).toBe(2), { timeout: 10_000, interval: 2 });
    slow.release();
    await closing;
    await new Promise((resolve) => socket.once('close', resolve));
    const answers = received.split('HTTP/1.1 ').slice(1);
    expect(answers).toHaveLength(2);
    expect(answers[0]).toMatch(/^200 OK/);
    expect(answers[1]).toMatch(/^503 Service Unavailable/);
    expect(answers[1]!.toLowerCase()).toContain('connection: close');
    expect(answers[1]).toContain('"code":"TG_NOT_READY"');
  });

  it('does not wait for connections that have sent no request: nothing runs on them', async () => {
    const running = await startHost({ services: [service('one', ['/one'])], logger: silentLogger(), host: '127.0.0.1', port: 0 });
    host = running;
    const silent = rawConnection(running.origin);
    const partial = rawConnection(running.origin);
    partial.socket.write('GET /one HTTP/1.1\r\n');
    await expect.poll(() => running.connections().active).toBe(2);
    // With a grace period longer than the test's timeout, only cutting them lets close() finish.
    await running.close({ graceMs: 600_000 });
    await Promise.all([silent.closed, partial.closed]);
    await expect.poll(() => running.connections().active).toBe(0);
  });

  it('cuts requests still running when the grace period ends', async () => {
    const stuck = gatedService('stuck', '/stuck');
    const running = await startHost({ services: [stuck], logger: silentLogger(), host: '127.0.0.1', port: 0 });
    host = running;
    const inFlight = fetch(`${running.origin}/stuck`);
    await stuck.started;
    const started = performance.now();
    await running.close({ graceMs: 100 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
    await expect(inFlight).rejects.toThrow();
    stuck.release();
  });
});

describe('restrictHosts (DNS rebinding protection)', () => {
  /** Raw requests: fetch will not send a Host of our choosing. */
  async function raw(origin: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
    const { request } = await import('node:http');
    const url = new URL(origin);
    return new Promise((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path, headers }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('serves every service only to requests whose Host and Origin name this server; probes stay open', async () => {
    host = await startHost({ services: [service('graph', ['/dispatch']), service('catalogue', ['/schemas'])], logger: silentLogger(), host: '127.0.0.1', port: 0 });
    const port = new URL(host.origin).port;
    expect((await raw(host.origin, '/dispatch', { host: `attacker.example:${port}` })).status).toBe(200);
    host.restrictHosts([`127.0.0.1:${port}`, `localhost:${port}`]);
    for (const path of ['/dispatch', '/schemas/search']) {
      const rebound = await raw(host.origin, path, { host: `attacker.example:${port}` });
      expect(rebound.status).toBe(403);
      expect(JSON.parse(rebound.body).error).toMatchObject({ code: 'TG_FORBIDDEN', message: expect.stringContaining(`Host "attacker.example:${port}" is not an address of this server`) });
      expect((await raw(host.origin, path, { host: `127.0.0.1:${port}`, origin: 'http://attacker.example' })).status).toBe(403);
      expect((await raw(host.origin, path, { host: `127.0.0.1:${port}`, origin: 'null' })).status).toBe(403);
      expect((await raw(host.origin, path, { host: `LOCALHOST:${port}` })).status).toBe(200);
      expect((await raw(host.origin, path, { host: `127.0.0.1:${port}`, origin: `http://localhost:${port}` })).status).toBe(200);
    }
    expect((await raw(host.origin, '/healthz', { host: '10.0.0.7' })).status).toBe(200);
    expect((await raw(host.origin, '/livez', { host: '10.0.0.7' })).status).toBe(200);
  });
});

/** A raw connection: what it received, and a promise of its close. */
function rawConnection(origin: string): { socket: Socket; received(): string; closed: Promise<void> } {
  const { port } = new URL(origin);
  const socket = connect(Number(port), '127.0.0.1');
  let text = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => text, closed };
}

describe('connection limits', () => {
  const limits = { maxConnections: 3, requestHeadTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000 };

  it('past TOOLGRAPH_MAX_CONNECTIONS (idle connections count) answers probes and refuses anything else at once, then closes', async () => {
    host = await startHost({ services: [service('graph', ['/dispatch'])], logger: silentLogger(), host: '127.0.0.1', port: 0, connections: limits });
    const running = host;
    const idle = Array.from({ length: 3 }, () => rawConnection(running.origin));
    await expect.poll(() => running.connections().active).toBe(3);

    const refused = rawConnection(running.origin);
    refused.socket.write('GET /dispatch HTTP/1.1\r\nHost: x\r\n\r\n');
    await refused.closed;
    expect(refused.received()).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused.received().toLowerCase()).toContain('retry-after: 1');
    expect(refused.received().toLowerCase()).toContain('connection: close');
    const body = JSON.parse(refused.received().slice(refused.received().indexOf('\r\n\r\n') + 4)) as { error: object };
    expect(body.error).toEqual({
      code: 'TG_TOO_MANY_CONNECTIONS',
      message: 'toolgraph is at its limit of 3 open connections (TOOLGRAPH_MAX_CONNECTIONS); retry later.',
      details: { limit: 'maxConnections', max: 3, setting: 'TOOLGRAPH_MAX_CONNECTIONS' },
    });

    for (const path of ['/healthz', '/livez']) {
      const probe = rawConnection(running.origin);
      probe.socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      await probe.closed;
      expect(probe.received()).toMatch(/^HTTP\/1\.1 200 OK/);
    }
    expect(running.connections()).toEqual({ active: 3, overflowing: 0 });

    // A freed slot serves as before.
    idle[0]!.socket.destroy();
    await expect.poll(() => running.connections().active).toBe(2);
    expect((await fetch(`${running.origin}/dispatch`)).status).toBe(200);
  });

  it('closes a connection that sends no byte, or not its whole head, within TOOLGRAPH_REQUEST_HEAD_TIMEOUT_MS', async () => {
    host = await startHost({ services: [service('graph', ['/dispatch'])], logger: silentLogger(), host: '127.0.0.1', port: 0, connections: { ...limits, requestHeadTimeoutMs: 200 } });
    const silent = rawConnection(host.origin);
    const partial = rawConnection(host.origin);
    partial.socket.write('GET /dispatch HTTP/1.1\r\nHost: x\r\n');
    await Promise.all([silent.closed, partial.closed]);
    expect(silent.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(partial.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(host.connections().active).toBe(0);
  });

  it('closes a kept-alive connection TOOLGRAPH_KEEP_ALIVE_TIMEOUT_MS (plus node:http\'s second) after its last response', async () => {
    host = await startHost({ services: [service('graph', ['/dispatch'])], logger: silentLogger(), host: '127.0.0.1', port: 0, connections: { ...limits, keepAliveTimeoutMs: 2_000 } });
    const kept = rawConnection(host.origin);
    kept.socket.write('GET /dispatch HTTP/1.1\r\nHost: x\r\n\r\n');
    await kept.closed;
    expect(kept.received()).toMatch(/^HTTP\/1\.1 200 OK/);
    // The client is told (in seconds) how long the connection stays open; node:http's default is 5.
    expect(kept.received().toLowerCase()).toContain('keep-alive: timeout=2\r\n');
  });
});

describe('overload', () => {
  it('refuses every request but the probes with 503 TG_OVERLOADED and Retry-After while the signal is set; /healthz says overloaded', async () => {
    const overload = new OverloadSignal();
    host = await startHost({ services: [service('graph', ['/dispatch'])], logger: silentLogger(), host: '127.0.0.1', port: 0, overload });
    expect((await fetch(`${host.origin}/dispatch`)).status).toBe(200);
    const cause = { reason: 'heap', reading: 94.5, threshold: 90, setting: 'TOOLGRAPH_OVERLOAD_HEAP_PERCENT' } as const;
    overload.enter(cause);

    const shed = await fetch(`${host.origin}/dispatch`, { method: 'POST', body: '{}' });
    expect(shed.status).toBe(503);
    expect(shed.headers.get('retry-after')).toBe('1');
    expect(await shed.json()).toEqual({ error: { code: 'TG_OVERLOADED', message: expect.stringContaining('the heap is at 94.5% of its limit'), details: { ...cause, retryAfterSecs: 1 } } });

    const health = await fetch(`${host.origin}/healthz`);
    expect(health.status).toBe(503);
    expect(health.headers.get('retry-after')).toBe('1');
    const healthBody = await health.json();
    expect(healthBody).toEqual({ status: 'overloaded', services: ['graph'], overload: cause });
    expect(validateHealth(healthBody)).toBe(true);
    expect((await fetch(`${host.origin}/livez`)).status).toBe(200);

    overload.leave();
    expect((await fetch(`${host.origin}/dispatch`)).status).toBe(200);
    expect((await fetch(`${host.origin}/healthz`)).status).toBe(200);
  });
});

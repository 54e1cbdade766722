import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { carriesUnreadBody, DEFAULT_BODY_LIMITS, processBodies, readJsonBody, sendJson, startHost, type HttpService, type RunningHost } from '../../src/http/index.ts';
import { silentLogger } from '../../src/log/index.ts';

/** A service at /echo answering `{bytes}` of the JSON body it reads (POST), or `{ended}` for a GET, after the route starts. */
function echo(seen: IncomingMessage[]): HttpService {
  return {
    name: 'echo',
    prefixes: ['/echo'],
    entryPath: '/echo',
    async handle(req, res) {
      seen.push(req);
      if (req.method === 'GET') {
        sendJson(res, 200, { ended: req.readableEnded });
        return;
      }
      const body = await readJsonBody(req, { route: 'POST /echo', limitBytes: 1_000_000 });
      sendJson(res, 200, { bytes: JSON.stringify(body).length });
    },
  };
}

/** A raw HTTP/1.1 client: the head, then what the test writes; `text()` is all that came back once the server closed or `ms` passed. */
function raw(origin: string, head: string): { socket: Socket; text(ms: number): Promise<string> } {
  const url = new URL(origin);
  const socket = connect(Number(url.port), url.hostname);
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(head);
  return {
    socket,
    text: async (ms) => {
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, ms))]);
      return received;
    },
  };
}

let host: RunningHost | undefined;
afterEach(async () => {
  await host?.close({ graceMs: 0 });
  host = undefined;
  processBodies.configure(DEFAULT_BODY_LIMITS);
});

describe('carriesUnreadBody', () => {
  it.each<[string, Record<string, string>, boolean]>([
    ['GET', { 'transfer-encoding': 'chunked' }, true],
    ['GET', { 'content-length': '5' }, true],
    ['GET', { 'content-length': '0' }, false],
    ['GET', {}, false],
    ['HEAD', { 'content-length': '1' }, true],
    ['DELETE', { 'transfer-encoding': 'chunked' }, true],
    ['OPTIONS', { 'content-length': '3' }, true],
    ['POST', { 'transfer-encoding': 'chunked' }, false],
    ['PUT', { 'content-length': '3' }, false],
  ])('%s with %j: %s', (method, headers, want) => {
    expect(carriesUnreadBody({ method, headers } as unknown as IncomingMessage)).toBe(want);
  });
});

describe('the host and request bodies', () => {
  it('drops the body of a GET as it comes (one-byte chunks) and runs the route once it has ended', async () => {
    const seen: IncomingMessage[] = [];
    host = await startHost({ services: [echo(seen)], logger: silentLogger(), host: '127.0.0.1', port: 0 });
    const client = raw(host.origin, `GET /echo HTTP/1.1\r\nHost: ${new URL(host.origin).host}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`);
    client.socket.write('1\r\nx\r\n'.repeat(20_000));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Not run yet: the body has not ended.
    expect(seen).toHaveLength(0);
    client.socket.write('0\r\n\r\n');
    const answer = await client.text(2000);
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain('{"ended":true}');
    expect(seen).toHaveLength(1);
  });

  it('answers a body that stalls with 408 TG_BODY_TIMEOUT and closes the connection', async () => {
    processBodies.configure({ memoryBytes: DEFAULT_BODY_LIMITS.memoryBytes, timeoutMs: 300 });
    host = await startHost({ services: [echo([])], logger: silentLogger(), host: '127.0.0.1', port: 0 });
    const client = raw(host.origin, `POST /echo HTTP/1.1\r\nHost: ${new URL(host.origin).host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`);
    const started = performance.now();
    const answer = await client.text(3000);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(client.socket.destroyed || client.socket.readableEnded).toBe(true);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('"code":"TG_BODY_TIMEOUT"');
    expect(answer).toContain('"received":5,"declared":100');
  });

  it('answers a body past the process-wide allowance with 503 TG_BODY_MEMORY_FULL and Retry-After, and serves bodies again once it frees', async () => {
    processBodies.configure({ memoryBytes: 1000, timeoutMs: 5000 });
    host = await startHost({ services: [echo([])], logger: silentLogger(), host: '127.0.0.1', port: 0 });
    const hostHeader = new URL(host.origin).host;
    const holder = raw(host.origin, `POST /echo HTTP/1.1\r\nHost: ${hostHeader}\r\nContent-Type: application/json\r\nContent-Length: 902\r\nConnection: close\r\n\r\n"${'h'.repeat(800)}`);
    await expect.poll(() => processBodies.held, { timeout: 2000, interval: 10 }).toBe(801);
    const refused = await fetch(`${host.origin}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify('r'.repeat(500)) });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ error: { code: 'TG_BODY_MEMORY_FULL', details: { max: 1000, setting: 'TOOLGRAPH_BODY_MEMORY_BYTES' } } });
    holder.socket.write(`${'h'.repeat(100)}"`);
    expect(await holder.text(2000)).toContain('{"bytes":902}');
    expect(processBodies.held).toBe(0);
    const served = await fetch(`${host.origin}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify('s'.repeat(500)) });
    expect(await served.json()).toEqual({ bytes: 502 });
  });

  it('sets node:http\'s whole-request deadline to the head deadline plus the body deadline (and a second), not its own 300 s', async () => {
    processBodies.configure({ memoryBytes: DEFAULT_BODY_LIMITS.memoryBytes, timeoutMs: 4000 });
    host = await startHost({ services: [], logger: silentLogger(), host: '127.0.0.1', port: 0, connections: { maxConnections: 10, requestHeadTimeoutMs: 2000, keepAliveTimeoutMs: 1000 } });
    expect(host.server.requestTimeout).toBe(7000);
  });
});

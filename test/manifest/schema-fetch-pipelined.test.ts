import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchFragments, nodeHttpGet } from '../../src/manifest/client/index.ts';
import type { SchemaManifest } from '../../src/manifest/index.ts';

/** What the raw server does with the request for fragment `index` (the `nth` request on its connection, 0-based). */
type Answer = (index: number, nth: number, body: Buffer) => { head: string; body: Buffer } | 'destroy' | 'chunked' | 'close';

interface RawServer {
  origin: string;
  requests: number;
  /** Most requests received and not yet answered, over all connections at once. */
  maxOutstanding: number;
  connections: number;
  close(): Promise<void>;
}

const BYTES = 10 * 4096 + 123;
const DOCUMENT = Buffer.from(Array.from({ length: BYTES }, (_, i) => (i * 7) % 251));
const fragmentOf = (index: number) => DOCUMENT.subarray(index * 4096, Math.min(BYTES, (index + 1) * 4096));
const ok = (body: Buffer, extra = '') => ({ head: `HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\n${extra}\r\n`, body });

/** A minimal HTTP/1.1 server on `net`: answers pipelined GETs in order, one at a time, after `delayMs`. */
async function rawServer(answer: Answer, delayMs = 0): Promise<RawServer> {
  const state = { requests: 0, maxOutstanding: 0, connections: 0 };
  let outstanding = 0;
  const open = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    state.connections++;
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    let buffered = '';
    const queue: number[] = [];
    let nth = 0;
    let busy = false;
    const pump = () => {
      if (busy || queue.length === 0 || socket.destroyed) return;
      busy = true;
      setTimeout(() => {
        const index = queue.shift()!;
        outstanding--;
        busy = false;
        const result = answer(index, nth++, Buffer.from(fragmentOf(index)));
        if (result === 'destroy') {
          socket.destroy();
          return;
        }
        if (result === 'chunked') {
          const body = fragmentOf(index);
          socket.write(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n`);
          socket.write(body);
          socket.write('\r\n0\r\n\r\n');
        } else if (result === 'close') {
          const { head, body } = ok(fragmentOf(index), 'Connection: close\r\n');
          socket.end(Buffer.concat([Buffer.from(head), body]));
          return;
        } else {
          socket.write(Buffer.concat([Buffer.from(result.head), result.body]));
        }
        pump();
      }, delayMs);
    };
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      let end: number;
      while ((end = buffered.indexOf('\r\n\r\n')) >= 0) {
        const match = /^GET \/f\/(\d+)(?:\?\S*)? HTTP\/1\.1/.exec(buffered);
        buffered = buffered.slice(end + 4);
        state.requests++;
        outstanding++;
        state.maxOutstanding = Math.max(state.maxOutstanding, outstanding);
        queue.push(match ? Number(match[1]) : -1);
      }
      pump();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      outstanding -= queue.length;
      queue.length = 0;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return Object.assign(state, {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of open) socket.destroy();
    }),
  }) as RawServer;
}

const servers: RawServer[] = [];
const transports: { close(): void }[] = [];
afterEach(async () => {
  for (const transport of transports.splice(0)) transport.close();
  for (const server of servers.splice(0)) await server.close();
});

async function fetchFrom(answer: Answer, options: { concurrency?: number; sockets?: number; retries?: number; delayMs?: number; template?: string } = {}) {
  const server = await rawServer(answer, options.delayMs);
  servers.push(server);
  const get = nodeHttpGet(options.concurrency ?? 8);
  transports.push(get);
  const manifest = { schema_bytes: BYTES, fragment_count: 11, fragment_uri_template: `${server.origin}${options.template ?? '/f/{index}'}` } as SchemaManifest;
  const progress: number[] = [];
  const document = await fetchFragments(manifest, {
    get, retries: options.retries ?? 2, backoff: { baseMs: 1, maxMs: 2 }, concurrency: options.concurrency ?? 8,
    pipelineSockets: options.sockets ?? 2, onProgress: (done) => progress.push(done),
  });
  return { server, document, progress };
}

/** Answers the first `times` requests for fragment `index` with `bad`, everything else normally. */
function firstTimes(index: number, times: number, bad: () => ReturnType<Answer>): Answer {
  let seen = 0;
  return (i) => (i === index && seen++ < times ? bad() : ok(fragmentOf(i)));
}

describe('pipelined fragment fetching', () => {
  it('pipelines every fragment over the given sockets when the server keeps up', async () => {
    const { server, document, progress } = await fetchFrom((index) => ok(fragmentOf(index)));
    expect(document.equals(DOCUMENT)).toBe(true);
    expect(server.requests).toBe(11);
    expect(server.connections).toBe(2);
    expect(progress.at(-1)).toBe(BYTES);
  });

  it.each([1, 3, 8])('keeps at most concurrency = %i requests in flight', async (concurrency) => {
    const { server, document } = await fetchFrom((index) => ok(fragmentOf(index)), { concurrency, sockets: 2, delayMs: 2 });
    expect(document.equals(DOCUMENT)).toBe(true);
    expect(server.maxOutstanding).toBeLessThanOrEqual(concurrency);
    expect(server.maxOutstanding).toBeGreaterThanOrEqual(Math.min(concurrency, 2));
  });

  it.each<[string, Answer]>([
    ['chunked answers', (index) => (index % 3 === 0 ? 'chunked' : ok(fragmentOf(index)))],
    ['Connection: close', (_index, nth) => (nth === 2 ? 'close' : ok(fragmentOf(_index)))],
    ['a dropped connection', firstTimes(5, 1, () => 'destroy')],
    ['a 503 answer', firstTimes(4, 2, () => ({ head: 'HTTP/1.1 503 Busy\r\nContent-Length: 4\r\n\r\n', body: Buffer.from('busy') }))],
    ['an HTTP/1.0 answer', (index) => (index === 7 ? { head: `HTTP/1.0 200 OK\r\nContent-Length: ${fragmentOf(index).length}\r\n\r\n`, body: fragmentOf(index) } : ok(fragmentOf(index)))],
    ['a head split across writes', (index) => ok(fragmentOf(index), `X-Padding: ${'p'.repeat(9000)}\r\n`)],
  ])('falls back to ordinary requests on %s and still assembles the document', async (_label, answer) => {
    const { document } = await fetchFrom(answer);
    expect(document.equals(DOCUMENT)).toBe(true);
  });

  it.each(['/f{/index}', '/f/{index}?copy={index}', '/f/{index}?v=987654321012'])('expands the template %s for every fragment', async (template) => {
    const { server, document } = await fetchFrom((index) => ok(fragmentOf(index)), { template });
    expect(document.equals(DOCUMENT)).toBe(true);
    expect(server.requests).toBe(11);
  });

  it('counts a 503 on the pipeline as an attempt', async () => {
    const error = await fetchFrom((index) => (index === 4 ? { head: 'HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n', body: Buffer.alloc(0) } : ok(fragmentOf(index))), { retries: 1 })
      .then(() => undefined, (e: unknown) => e as Error);
    expect(error?.message).toMatch(/failed after 2 attempts: HTTP 503/);
  });

  it.each<[string, Answer, string]>([
    ['a short fragment', (index) => ok(index === 3 ? fragmentOf(index).subarray(1) : fragmentOf(index)), 'TG_FRAGMENT_LENGTH_MISMATCH'],
    ['a 404', (index) => (index === 3 ? { head: 'HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\n', body: Buffer.from('{}') } : ok(fragmentOf(index))), 'TG_FRAGMENT_NOT_FOUND'],
  ])('reports %s as the ordinary path does', async (_label, answer, code) => {
    await expect(fetchFrom(answer, { retries: 0 })).rejects.toMatchObject({ code });
  });
});

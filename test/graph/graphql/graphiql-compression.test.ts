import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { GraphEngine } from '../../../src/graph/engine/index.ts';
import { preferredCoding } from '../../../src/http/index.ts';
import { referenceEngine, startServer, type Server } from './support.ts';

// Counts the compressions the server runs (the real zlib does the work): the page is compressed
// once per coding, never per request.
const compressions = vi.hoisted(() => ({ br: 0, gzip: 0 }));
vi.mock('node:zlib', async (importOriginal) => {
  const zlib = await importOriginal<typeof import('node:zlib')>();
  return {
    ...zlib,
    brotliCompress: (...args: Parameters<typeof zlib.brotliCompress>) => { compressions.br += 1; return zlib.brotliCompress(...args); },
    gzip: (...args: Parameters<typeof zlib.gzip>) => { compressions.gzip += 1; return zlib.gzip(...args); },
  };
});

interface Raw { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }

/** A GET with exactly these headers (no client-side decompression), the body's bytes as sent. */
function get(url: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { accept: 'text/html', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject).end();
  });
}

let engine: GraphEngine;
let server: Server;
let plain: Raw;

describe('GraphiQL page on the wire', () => {
  beforeAll(async () => {
    engine = await referenceEngine();
    server = await startServer(engine);
    plain = await get(server.url, {});
  });
  afterAll(async () => {
    await server?.close();
    await engine?.close();
  });

  it('without Accept-Encoding is the whole page, with a strong ETag and caching headers', () => {
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(Number(plain.headers['content-length'])).toBe(plain.body.length);
    expect(plain.body.length).toBeGreaterThan(8 * 1024 * 1024);
    expect(plain.headers['etag']).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(plain.headers['vary']).toBe('Accept-Encoding');
    expect(plain.headers['cache-control']).toBe('private, no-cache');
    // One page for every graph: it posts to its own path and names no graph in its bytes.
    expect(plain.body.toString('utf8')).not.toContain('/graphql/demo');
  });

  it('is br for a browser (br preferred), and decompresses to the same page', async () => {
    const before = compressions.br;
    const answers = await Promise.all([1, 2, 3].map(() => get(server.url, { 'accept-encoding': 'gzip, deflate, br, zstd' })));
    const again = await get(server.url, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(compressions.br - before).toBe(1);
    for (const br of [...answers, again]) {
      expect(br.status).toBe(200);
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers['vary']).toBe('Accept-Encoding');
      expect(br.headers['cache-control']).toBe('private, no-cache');
      expect(Number(br.headers['content-length'])).toBe(br.body.length);
      expect(br.headers['etag']).toBe(`${String(plain.headers['etag']).slice(0, -1)}-br"`);
      expect(br.body.length).toBeLessThan(plain.body.length / 4);
      expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    }
  });

  it('is gzip when the client takes only gzip, or refuses br', async () => {
    for (const accept of ['gzip', 'br;q=0, gzip', 'x-gzip', 'gzip;q=1, br;q=0.5']) {
      const gz = await get(server.url, { 'accept-encoding': accept });
      expect(gz.headers['content-encoding'], accept).toBe('gzip');
      expect(gz.headers['etag']).toBe(`${String(plain.headers['etag']).slice(0, -1)}-gzip"`);
      expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    }
    expect(compressions.gzip).toBe(1);
  });

  it('is identity when no coding it keeps is acceptable', async () => {
    for (const accept of ['identity', 'deflate', 'br;q=0, gzip;q=0', 'zstd']) {
      const raw = await get(server.url, { 'accept-encoding': accept });
      expect(raw.headers['content-encoding'], accept).toBeUndefined();
      expect(raw.body.equals(plain.body)).toBe(true);
    }
  });

  it('answers 304 with no body when If-None-Match names the ETag of the coding it would send', async () => {
    const br = await get(server.url, { 'accept-encoding': 'br' });
    const etag = String(br.headers['etag']);
    for (const inm of [etag, `W/${etag}`, `"stale", ${etag}`, '*']) {
      const revalidated = await get(server.url, { 'accept-encoding': 'gzip, br', 'if-none-match': inm });
      expect(revalidated.status, inm).toBe(304);
      expect(revalidated.body.length).toBe(0);
      expect(revalidated.headers['etag']).toBe(etag);
      expect(revalidated.headers['vary']).toBe('Accept-Encoding');
      expect(revalidated.headers['cache-control']).toBe('private, no-cache');
    }
    // Another representation's ETag, or a stale one, gets the page.
    const gz = await get(server.url, { 'accept-encoding': 'gzip', 'if-none-match': etag });
    expect(gz.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    const stale = await get(server.url, { 'accept-encoding': 'br', 'if-none-match': '"stale"' });
    expect(stale.status).toBe(200);
    expect(stale.headers['content-encoding']).toBe('br');
    const plain304 = await get(server.url, { 'if-none-match': String(plain.headers['etag']) });
    expect(plain304.status).toBe(304);
  });

  it('refusals come before the page and its validators', async () => {
    const refused = await get(`${server.origin}/graphql/nosuchgraph`, { 'accept-encoding': 'br', 'if-none-match': '*' });
    expect(refused.status).toBe(404);
    expect(refused.headers['etag']).toBeUndefined();
  });
});

describe('preferredCoding', () => {
  it.each([
    [undefined, 'identity'], ['', 'identity'], ['br', 'br'], ['gzip, br', 'br'], ['*', 'br'],
    ['gzip;q=0.9, br;q=0.8', 'gzip'], ['br;q=0.8, gzip;q=0.8', 'br'], ['*;q=0, gzip', 'gzip'],
    ['BR', 'br'], ['identity;q=0', 'identity'], ['br;q=0.000', 'identity'],
  ] as const)('%j → %s', (header, coding) => {
    expect(preferredCoding(header)).toBe(coding);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type RunningHost } from '../../src/http/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import {
  buildCatalogueEntriesStrict, Catalogue, createCatalogueService, IMMUTABLE_CACHE_CONTROL, toolActionSource, type SchemaManifest,
} from '../../src/manifest/index.ts';

let host: RunningHost;
let catalogue: Catalogue;
let big: SchemaManifest;
let small: SchemaManifest;

beforeAll(async () => {
  catalogue = new Catalogue({ publicBaseUrl: 'http://placeholder.invalid' });
  catalogue.putSource('tools', buildCatalogueEntriesStrict(toolActionSource('tools', [
    { name: 'search', description: 'Searches documents for a search term', inputSchema: { type: 'object', properties: { term: { type: 'string' } } }, outputSchema: {} },
    { name: 'searchAll', description: 'Search across every search index; search, search, search', inputSchema: {}, outputSchema: {} },
    { name: 'bigOne', description: 'A large schema', inputSchema: { description: 'x'.repeat(10_000) }, outputSchema: {} },
  ])));
  host = await startHost({ services: [createCatalogueService({ catalogue, logger: silentLogger() })], logger: silentLogger(), host: '127.0.0.1', port: 0 });
  catalogue.setPublicBaseUrl(host.origin);
  big = catalogue.search('bigOne')[0]!.manifest;
  small = catalogue.search('search')[0]!.manifest;
});

afterAll(async () => {
  await host.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${host.origin}${path}`, { headers });

describe('GET /schemas/search', () => {
  it('ranks the exact operation match first and carries manifest, score and description', async () => {
    const response = await get('/schemas/search?q=search');
    expect(response.status).toBe(200);
    const body = await response.json() as { results: { manifest: SchemaManifest; score: number; description: string }[] };
    expect(body.results.map((r) => r.manifest.operation)).toEqual(['search', 'searchAll']);
    expect(body.results[0]!.score).toBeGreaterThan(body.results[1]!.score);
    expect(body.results[0]!.description).toBe('Searches documents for a search term');
    expect(body.results[0]!.manifest.manifest_uri).toBe(`${host.origin}/schemas/${body.results[0]!.manifest.schema_sha256}`);
  });

  it('ranks an exact alias match first and finds by field name', async () => {
    const byAlias = await (await get('/schemas/search?q=tools-searchall')).json() as { results: { manifest: SchemaManifest }[] };
    expect(byAlias.results[0]!.manifest.operation).toBe('searchAll');
    const byField = await (await get('/schemas/search?q=term')).json() as { results: { manifest: SchemaManifest }[] };
    expect(byField.results[0]!.manifest.operation).toBe('search');
  });

  it.each(['/schemas/search', '/schemas/search?q=', '/schemas/search?q=%20%20', '/schemas/search?q=nothingmatchesthis'])('answers %s with an empty list', async (path) => {
    const response = await get(path);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ results: [] });
  });

  it('honours limit and refuses a bad one with the error body', async () => {
    const one = await (await get('/schemas/search?q=search&limit=1')).json() as { results: unknown[] };
    expect(one.results).toHaveLength(1);
    for (const limit of ['0', '101', 'ten', '-1', '1.5', '']) {
      const response = await get(`/schemas/search?q=search&limit=${limit}`);
      expect(response.status, limit).toBe(400);
      expect(await response.json()).toEqual({ error: { code: 'TG_BAD_REQUEST', message: `limit: expected an integer from 1 to 100, got ${JSON.stringify(limit)}.` } });
    }
    const tooLong = await get(`/schemas/search?q=${'a'.repeat(257)}`);
    expect(tooLong.status).toBe(400);
  });

  it('bounds q by characters, as the document\'s maxLength does, and says so', async () => {
    const tooLong = await get(`/schemas/search?q=${'a'.repeat(257)}`);
    expect(await tooLong.json()).toEqual({ error: { code: 'TG_BAD_REQUEST', message: 'q: expected at most 256 characters, got 257.' } });
    // 256 characters outside the BMP are 512 UTF-16 units: still 256 characters.
    const astral = await get(`/schemas/search?q=${encodeURIComponent('\u{1F600}'.repeat(256))}`);
    expect(astral.status).toBe(200);
    const astralTooLong = await get(`/schemas/search?q=${encodeURIComponent('\u{1F600}'.repeat(257))}`);
    expect(await astralTooLong.json()).toEqual({ error: { code: 'TG_BAD_REQUEST', message: 'q: expected at most 256 characters, got 257.' } });
  });
});

describe('GET /schemas/{sha}', () => {
  it('serves the manifest with a strong ETag and immutable caching, and 304 on If-None-Match', async () => {
    const response = await get(`/schemas/${small.schema_sha256}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe(`"${small.schema_sha256}"`);
    expect(response.headers.get('cache-control')).toBe(IMMUTABLE_CACHE_CONTROL);
    expect(await response.json()).toEqual(small);
    const again = await get(`/schemas/${small.schema_sha256}`, { 'if-none-match': `"${small.schema_sha256}"` });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(`"${small.schema_sha256}"`);
    expect(await again.text()).toBe('');
    const other = await get(`/schemas/${small.schema_sha256}`, { 'if-none-match': '"nope"' });
    expect(other.status).toBe(200);
  });

  it.each([
    ['ABCDEF'.padEnd(64, '0'), 400, 'TG_DIGEST_MALFORMED'],
    ['abc', 400, 'TG_DIGEST_MALFORMED'],
    ['0'.repeat(65), 400, 'TG_DIGEST_MALFORMED'],
    ['0'.repeat(64), 404, 'TG_SCHEMA_NOT_FOUND'],
  ])('answers /schemas/%s with %i %s', async (digest, status, code) => {
    const response = await get(`/schemas/${digest}`);
    expect(response.status).toBe(status);
    const body = await response.json() as { error: { code: string; message: string } };
    expect(body.error.code).toBe(code);
    expect(body.error.message.length).toBeGreaterThan(10);
  });

  it('refuses other methods with 405 and answers HEAD without a body', async () => {
    const post = await fetch(`${host.origin}/schemas/${small.schema_sha256}`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`${host.origin}/schemas/${small.schema_sha256}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(`"${small.schema_sha256}"`);
    expect(await head.text()).toBe('');
  });

  it('answers unknown shapes under /schemas with 404', async () => {
    for (const path of ['/schemas', '/schemas/', `/schemas/${small.schema_sha256}/other/0`, `/schemas/${small.schema_sha256}/fragments`]) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect((await response.json() as { error: { code: string } }).error.code).toBe('TG_NOT_FOUND');
    }
  });
});

describe('GET /schemas/{sha}/fragments/{index}', () => {
  it('serves each fragment as octet-stream with a strong ETag; they reassemble to the digest', async () => {
    expect(big.fragment_count).toBe(3);
    const parts: Buffer[] = [];
    for (let index = 0; index < big.fragment_count; index++) {
      const response = await get(`/schemas/${big.schema_sha256}/fragments/${index}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/octet-stream');
      expect(response.headers.get('etag')).toBe(`"${big.schema_sha256}-${index}"`);
      expect(response.headers.get('cache-control')).toBe(IMMUTABLE_CACHE_CONTROL);
      parts.push(Buffer.from(await response.arrayBuffer()));
    }
    expect(parts.map((p) => p.length)).toEqual([4096, 4096, big.schema_bytes - 8192]);
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(Buffer.concat(parts)).digest('hex')).toBe(big.schema_sha256);
    const cached = await get(`/schemas/${big.schema_sha256}/fragments/1`, { 'if-none-match': `W/"x", "${big.schema_sha256}-1"` });
    expect(cached.status).toBe(304);
  });

  it.each([
    ['-1', 400, 'TG_FRAGMENT_INDEX_INVALID'],
    ['01', 400, 'TG_FRAGMENT_INDEX_INVALID'],
    ['1.0', 400, 'TG_FRAGMENT_INDEX_INVALID'],
    ['x', 400, 'TG_FRAGMENT_INDEX_INVALID'],
    ['99999', 400, 'TG_FRAGMENT_INDEX_INVALID'],
    ['3', 404, 'TG_FRAGMENT_NOT_FOUND'],
    ['4099', 404, 'TG_FRAGMENT_NOT_FOUND'],
  ])('answers index %s with %i %s', async (index, status, code) => {
    const response = await get(`/schemas/${big.schema_sha256}/fragments/${index}`);
    expect(response.status).toBe(status);
    expect((await response.json() as { error: { code: string } }).error.code).toBe(code);
  });

  it('checks the digest first: malformed 400, unknown 404', async () => {
    expect((await get('/schemas/xyz/fragments/0')).status).toBe(400);
    const unknown = await get(`/schemas/${'1'.repeat(64)}/fragments/0`);
    expect(unknown.status).toBe(404);
    expect((await unknown.json() as { error: { code: string } }).error.code).toBe('TG_SCHEMA_NOT_FOUND');
  });
});

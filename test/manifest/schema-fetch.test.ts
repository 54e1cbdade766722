import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registerSchemaCommand } from '../../src/cli/commands/schema-command.ts';
import { pathOf, startHost, type HttpService, type RunningHost } from '../../src/http/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import {
  assertFetchable, buildCatalogueEntriesStrict, canonicalSchema, Catalogue, createCatalogueService, createSchemaClient,
  MAX_SCHEMA_BYTES, sha256Hex, toolActionSource, type SchemaManifest,
} from '../../src/manifest/index.ts';
import { failure } from '../support/toolgraph-failure.ts';

/** What the test server does instead of serving fragment `index` (undefined: serve it). */
type FragmentOverride = (index: number, bytes: Buffer) => { status: number; body: Buffer } | undefined;

interface TestServer {
  host: RunningHost;
  catalogue: Catalogue;
  override: { current: FragmentOverride | undefined };
  requests: { fragments: number };
}

async function startServer(catalogue: Catalogue): Promise<TestServer> {
  const inner = createCatalogueService({ catalogue, logger: silentLogger() });
  const override: TestServer['override'] = { current: undefined };
  const requests = { fragments: 0 };
  // Sits in front of the real service so a test can tamper with, drop or resize a fragment.
  const service: HttpService = {
    ...inner,
    handle(req: IncomingMessage, res: ServerResponse) {
      const match = /^\/schemas\/([0-9a-f]{64})\/fragments\/([0-9]+)$/.exec(pathOf(req));
      if (match) {
        requests.fragments++;
        const index = Number(match[2]);
        const bytes = catalogue.fragment(match[1]!, index);
        const replaced = bytes && override.current?.(index, Buffer.from(bytes));
        if (replaced) {
          res.writeHead(replaced.status, { 'content-type': 'application/octet-stream', 'content-length': replaced.body.length });
          res.end(replaced.body);
          return;
        }
      }
      return inner.handle(req, res);
    },
  };
  const host = await startHost({ services: [service], logger: silentLogger(), host: '127.0.0.1', port: 0 });
  catalogue.setPublicBaseUrl(host.origin);
  return { host, catalogue, override, requests };
}

/** An action whose canonical document is exactly `bytes` long. */
function sizedAction(name: string, bytes: number) {
  const overhead = canonicalSchema({ operation: name, input: { description: '' }, output: {} }).document.length;
  return { name, description: `${bytes}-byte schema`, inputSchema: { description: 'x'.repeat(bytes - overhead) }, outputSchema: {} };
}

function cli() {
  const out: string[] = [];
  const err: string[] = [];
  const run = async (...args: string[]) => {
    const program = new Command('toolgraph').exitOverride();
    registerSchemaCommand(program, { out: (l) => out.push(l), err: (l) => err.push(l) });
    await program.parseAsync(args, { from: 'user' });
  };
  return { out, err, run };
}


const FAST = { baseMs: 1, maxMs: 5 };
let server: TestServer;
let big: SchemaManifest;
let small: SchemaManifest;
let workDir: string;

beforeAll(async () => {
  const catalogue = new Catalogue({ publicBaseUrl: 'http://placeholder.invalid' });
  catalogue.putSource('tools', buildCatalogueEntriesStrict(toolActionSource('tools', [sizedAction('big', MAX_SCHEMA_BYTES), sizedAction('small', 4 * 4096 + 100)])));
  server = await startServer(catalogue);
  big = catalogue.lookup('big').map((e) => catalogue.manifestOf(e))[0]!;
  small = catalogue.lookup('small').map((e) => catalogue.manifestOf(e))[0]!;
});

afterAll(async () => {
  await server.host.close();
});

beforeEach(() => {
  server.override.current = undefined;
  server.requests.fragments = 0;
  workDir = mkdtempSync(join(tmpdir(), 'tg-schema-get-'));
});

describe('schema get over loopback', () => {
  it('fetches and verifies a 16 MiB schema in 4096 fragments and writes it to --out', async () => {
    expect(big.schema_bytes).toBe(MAX_SCHEMA_BYTES);
    expect(big.fragment_count).toBe(4096);
    const { err, run } = cli();
    const out = join(workDir, 'big.json');
    await run('schema', 'get', 'big', '--url', server.host.origin, '--out', out, '--cache-dir', join(workDir, 'cache'));
    const written = readFileSync(out);
    expect(written.length).toBe(MAX_SCHEMA_BYTES);
    expect(sha256Hex(written)).toBe(big.schema_sha256);
    expect(server.requests.fragments).toBe(4096);
    expect(err.join('\n')).toContain('from network');
    expect(readdirSync(workDir).sort()).toEqual(['big.json', 'cache']);
  });

  it('catches one tampered byte in one fragment and writes nothing to --out', async () => {
    server.override.current = (index, bytes) => {
      if (index !== 2000) return undefined;
      bytes[17]! ^= 0x01;
      return { status: 200, body: bytes };
    };
    const out = join(workDir, 'big.json');
    const error = await failure(cli().run('schema', 'get', big.schema_sha256, '--url', server.host.origin, '--out', out, '--cache-dir', join(workDir, 'cache')));
    expect(error.code).toBe('TG_DIGEST_MISMATCH');
    expect(error.message).toContain(`schema_sha256 ${big.schema_sha256}`);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(workDir).filter((f) => f !== 'cache')).toEqual([]);
    expect(existsSync(join(workDir, 'cache', 'schemas', `${big.schema_sha256}.json`))).toBe(false);
  });

  it.each([
    ['missing (404)', 'TG_FRAGMENT_NOT_FOUND', () => ({ status: 404, body: Buffer.from('{"error":{"code":"TG_FRAGMENT_NOT_FOUND","message":"gone"}}') })],
    ['short', 'TG_FRAGMENT_LENGTH_MISMATCH', (bytes: Buffer) => ({ status: 200, body: bytes.subarray(0, 4095) })],
    ['long', 'TG_FRAGMENT_LENGTH_MISMATCH', (bytes: Buffer) => ({ status: 200, body: Buffer.concat([bytes, Buffer.from('x')]) })],
    ['empty', 'TG_FRAGMENT_LENGTH_MISMATCH', () => ({ status: 200, body: Buffer.alloc(0) })],
  ])('fails on a %s fragment with %s and writes nothing', async (_label, code, replace) => {
    server.override.current = (index, bytes) => (index === 1 ? replace(bytes) : undefined);
    const out = join(workDir, 'small.json');
    const error = await failure(cli().run('schema', 'get', 'tools-small', '--url', server.host.origin, '--out', out, '--cache-dir', join(workDir, 'cache'), '--retries', '0'));
    expect(error.code).toBe(code);
    expect(existsSync(out)).toBe(false);
  });

  it('fails on an extra byte in the last fragment with a length error', async () => {
    server.override.current = (index, bytes) => (index === small.fragment_count - 1 ? { status: 200, body: Buffer.concat([bytes, Buffer.from(' ')]) } : undefined);
    const client = createSchemaClient({ url: server.host.origin, retries: 0 });
    expect((await failure(client.get('small'))).code).toBe('TG_FRAGMENT_LENGTH_MISMATCH');
  });

  it('retries transient failures with backoff, then gives up with TG_FETCH_FAILED', async () => {
    let failures = 0;
    server.override.current = (index) => (index === 2 && failures++ < 2 ? { status: 503, body: Buffer.from('busy') } : undefined);
    const client = createSchemaClient({ url: server.host.origin, retries: 2, backoff: FAST });
    const fetched = await client.get('small');
    expect(fetched.document.length).toBe(small.schema_bytes);
    expect(failures).toBe(3);

    server.override.current = (index) => (index === 2 ? { status: 503, body: Buffer.from('busy') } : undefined);
    const error = await failure(createSchemaClient({ url: server.host.origin, retries: 1, backoff: FAST }).get('small'));
    expect(error.code).toBe('TG_FETCH_FAILED');
    expect(error.message).toContain('after 2 attempts: HTTP 503');
  });

  it('prints the verified document to stdout without --out', async () => {
    const { out, run } = cli();
    await run('schema', 'get', 'small', '--url', server.host.origin, '--cache-dir', join(workDir, 'cache'), '--concurrency', '2');
    expect(out).toHaveLength(1);
    expect(sha256Hex(out[0]!)).toBe(small.schema_sha256);
  });

  it('reports an unknown name or digest as TG_SCHEMA_NOT_FOUND', async () => {
    const client = createSchemaClient({ url: server.host.origin });
    expect((await failure(client.get('nope'))).code).toBe('TG_SCHEMA_NOT_FOUND');
    expect((await failure(client.get('0'.repeat(64)))).code).toBe('TG_SCHEMA_NOT_FOUND');
  });
});

describe('manifest checks before any download', () => {
  /** A fetch that edits the manifest the server sends and counts fragment requests. */
  function editingFetch(edit: (manifest: Record<string, unknown>) => void) {
    return async (url: string, init?: RequestInit) => {
      const response = await fetch(url, init);
      if (!/\/schemas\/[0-9a-f]{64}$/.test(url)) return response;
      const manifest = await response.json() as Record<string, unknown>;
      edit(manifest);
      return new Response(JSON.stringify(manifest), { status: 200, headers: { 'content-type': 'application/json' } });
    };
  }

  it.each([
    ['a fragment count that disagrees with schema_bytes', (m: Record<string, unknown>) => { m['fragment_count'] = 6; }, 'TG_SCHEMA_TOO_LARGE', /fragment_count is 6; expected ceil\(16484 \/ 4096\) = 5/],
    ['a fragment count one short', (m: Record<string, unknown>) => { m['fragment_count'] = 4; }, 'TG_SCHEMA_TOO_LARGE', /fragment_count is 4/],
    ['schema_bytes over 16 MiB', (m: Record<string, unknown>) => { m['schema_bytes'] = MAX_SCHEMA_BYTES + 1; m['fragment_count'] = 4097; }, 'TG_MANIFEST_INVALID', /\/schema_bytes: expected an integer from 1 to 16777216, got 16777217/],
    ['an unknown field', (m: Record<string, unknown>) => { m['extra'] = true; }, 'TG_MANIFEST_INVALID', /\/extra/],
  ])('refuses %s', async (_label, edit, code, message) => {
    const client = createSchemaClient({ url: server.host.origin, fetch: editingFetch(edit), cacheDir: join(workDir, 'cache') });
    const error = await failure(client.get(small.schema_sha256));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(server.requests.fragments).toBe(0);
  });

  it('refuses schema_bytes over 16 MiB even from a manifest the validator would pass', () => {
    const manifest = { ...small, schema_bytes: MAX_SCHEMA_BYTES + 1, fragment_count: 4097 };
    expect(() => assertFetchable(manifest)).toThrow(expect.objectContaining({ code: 'TG_SCHEMA_TOO_LARGE', message: expect.stringContaining('Nothing was downloaded') }));
  });
});

describe('the schema cache', () => {
  it('serves a second get offline, by name and by digest', async () => {
    const catalogue = new Catalogue({ publicBaseUrl: 'http://placeholder.invalid' });
    catalogue.putSource('tools', buildCatalogueEntriesStrict(toolActionSource('tools', [sizedAction('offline', 3 * 4096)])));
    const own = await startServer(catalogue);
    const url = own.host.origin;
    const cacheDir = join(workDir, 'cache');
    const first = await createSchemaClient({ url, cacheDir }).get('offline');
    expect(first.from).toBe('network');
    await createSchemaClient({ url, cacheDir }).get(first.manifest.schema_sha256);
    await own.host.close();

    const offline = createSchemaClient({ url, cacheDir, retries: 0 });
    const byName = await offline.get('offline');
    expect(byName.from).toBe('cache');
    expect(byName.document.equals(first.document)).toBe(true);
    expect((await offline.get(first.manifest.schema_sha256)).from).toBe('cache');
    const { run } = cli();
    const out = join(workDir, 'offline.json');
    await run('schema', 'get', 'tools-offline', '--url', url, '--cache-dir', cacheDir, '--out', out, '--retries', '0').catch(() => undefined);
    // The alias was never resolved online, so there is nothing to stand in for it offline.
    expect(existsSync(out)).toBe(false);
    expect((await failure(offline.get('tools-offline'))).code).toBe('TG_FETCH_FAILED');
  });

  it('detects a corrupted cache entry by its digest, drops it and fetches again', async () => {
    const cacheDir = join(workDir, 'cache');
    const client = createSchemaClient({ url: server.host.origin, cacheDir });
    await client.get('small');
    const file = join(cacheDir, 'schemas', `${small.schema_sha256}.json`);
    expect(sha256Hex(readFileSync(file))).toBe(small.schema_sha256);
    const corrupted = readFileSync(file);
    corrupted[10]! ^= 0xff;
    writeFileSync(file, corrupted);
    server.requests.fragments = 0;
    const again = await client.get('small');
    expect(again.from).toBe('network');
    expect(server.requests.fragments).toBe(small.fragment_count);
    expect(sha256Hex(readFileSync(file))).toBe(small.schema_sha256);
    server.requests.fragments = 0;
    expect((await client.get('small')).from).toBe('cache');
    expect(server.requests.fragments).toBe(0);
  });
});

describe('schema search', () => {
  it('prints ranked hits, JSON with --json, and nothing for an empty query', async () => {
    const { out, err, run } = cli();
    await run('schema', 'search', 'small', '--url', server.host.origin);
    expect(out[0]).toContain('tools-small');
    out.length = 0;
    await run('schema', 'search', 'schema', '--url', server.host.origin, '--json', '--limit', '1');
    const body = JSON.parse(out.join('\n')) as { results: { manifest: SchemaManifest }[] };
    expect(body.results).toHaveLength(1);
    out.length = 0;
    await run('schema', 'search', '', '--url', server.host.origin);
    expect(out).toEqual([]);
    expect(err).toContain('no matches');
    await expect(run('schema', 'search', 'x', '--limit', '0')).rejects.toThrow(/--limit: expected an integer from 1 to 100/);
  });
});

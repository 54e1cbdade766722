import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningToolgraph } from '../../src/serve/index.ts';
import { urlUnder } from '../../src/tools/index.ts';
import { captureLogger } from '../support/capture-logger.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { closedPort } from '../support/closed-port.ts';
import { mcpClient, restCall, startServe, textOf } from './support.ts';

const PUBLIC_KEY = 'pk-crm-public';
const SECRET_KEY = `sk-crm-${crypto.randomUUID()}`;
const WIKI_SECRET = `wiki-secret-${crypto.randomUUID()}`;

/** A REST API that accepts only API keys: Basic pk:sk, or the two key headers. */
interface KeyOnlyApi {
  url: string;
  seen: IncomingHttpHeaders[];
  close(): Promise<void>;
}

function keyOnlyApi(server: Server, accepts: (headers: IncomingHttpHeaders) => boolean, seen: IncomingHttpHeaders[]): void {
  server.on('request', (req, res) => {
    seen.push(req.headers);
    if (!accepts(req.headers)) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end('an API key is required');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://api');
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (url.pathname === '/api/v1/items' && req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items: ['a', 'b'], query: Object.fromEntries(url.searchParams) }));
      } else if (url.pathname === '/api/v1/items' && req.method === 'POST') {
        res.writeHead(201, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ created: JSON.parse(body) as unknown }));
      } else if (url.pathname === '/api/v1/notes') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('plain notes');
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' }).end(`no such item\n  at ${url.pathname}`);
      }
    });
  });
}

async function listen(server: Server, scheme: 'http' | 'https', seen: IncomingHttpHeaders[]): Promise<KeyOnlyApi> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `${scheme}://127.0.0.1:${port}/api`, seen, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

const basic = `Basic ${Buffer.from(`${PUBLIC_KEY}:${SECRET_KEY}`).toString('base64')}`;

let idp: TestIdp;
let crm: KeyOnlyApi;
let wiki: KeyOnlyApi;
let tls: KeyOnlyApi;
let running: RunningToolgraph;
let lines: string[];
const callerTokens: string[] = [];

beforeAll(async () => {
  idp = await startIdp();
  const crmServer = createServer();
  crm = await listen(crmServer, 'http', []);
  keyOnlyApi(crmServer, (h) => h.authorization === basic, crm.seen);
  const wikiServer = createServer();
  wiki = await listen(wikiServer, 'http', []);
  keyOnlyApi(wikiServer, (h) => h['x-wiki-key'] === 'wiki-public' && h['x-wiki-secret'] === WIKI_SECRET, wiki.seen);
  // A self-signed certificate, as a test system with a private CA has.
  const dir = mkdtempSync(join(tmpdir(), 'tg-tls-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const tlsServer = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }) as unknown as Server;
  tls = await listen(tlsServer, 'https', []);
  keyOnlyApi(tlsServer, (h) => h.authorization === basic, tls.seen);

  const captured = captureLogger('trace');
  lines = captured.lines;
  running = await startServe({
    logger: captured.logger,
    env: {
      AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl, LOG_LEVEL: 'trace',
      TOOLGRAPH_AGENT_CRM_URL: crm.url, TOOLGRAPH_AGENT_CRM_PUBLIC_KEY: PUBLIC_KEY, TOOLGRAPH_AGENT_CRM_SECRET_KEY: SECRET_KEY,
      TOOLGRAPH_AGENT_CRM_DESCRIPTION: 'The CRM: customers and deals.',
      TOOLGRAPH_AGENT_WIKI_HOST: wiki.url, TOOLGRAPH_AGENT_WIKI_PUBLIC_KEY: 'wiki-public', TOOLGRAPH_AGENT_WIKI_SECRET_KEY: WIKI_SECRET,
      TOOLGRAPH_AGENT_WIKI_API_KEY_STYLE: 'headers', TOOLGRAPH_AGENT_WIKI_PUBLIC_KEY_HEADER: 'X-Wiki-Key', TOOLGRAPH_AGENT_WIKI_SECRET_KEY_HEADER: 'X-Wiki-Secret',
      TOOLGRAPH_AGENT_STRICT_URL: tls.url, TOOLGRAPH_AGENT_STRICT_PUBLIC_KEY: PUBLIC_KEY, TOOLGRAPH_AGENT_STRICT_SECRET_KEY: SECRET_KEY,
      TOOLGRAPH_AGENT_LAX_URL: tls.url, TOOLGRAPH_AGENT_LAX_PUBLIC_KEY: PUBLIC_KEY, TOOLGRAPH_AGENT_LAX_SECRET_KEY: SECRET_KEY, TOOLGRAPH_AGENT_LAX_SSL_VERIFY: 'false',
      TOOLGRAPH_AGENT_GONE_URL: `http://127.0.0.1:${await closedPort()}`,
    },
  });
});
afterAll(async () => {
  await running?.close();
  for (const api of [crm, wiki, tls]) await api?.close();
  await idp?.close();
});

async function caller(): Promise<string> {
  const token = await idp.mintToken({ sub: 'passthrough-user', scope: 'kg:read', audience: running.origin });
  callerTokens.push(token);
  return token;
}

async function call(name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; structuredContent?: Record<string, unknown>; content: { text: string }[] }> {
  const response = await restCall(running.origin, { name, arguments: args }, { authorization: `Bearer ${await caller()}` });
  expect(response.status).toBe(200);
  return (await response.json()) as never;
}

describe('http agents: REST APIs that accept only API keys (identity passthrough)', () => {
  it('are listed as tools of their own, with the configured description', async () => {
    const { client } = await mcpClient(running.origin, await caller());
    const tools = (await client.listTools()).tools;
    expect(tools.map((t) => t.name)).toEqual(['graph', 'crm', 'gone', 'lax', 'strict', 'wiki', 'schemas', 'secrets', 'search_tools', 'persisted-peoplewithcolleagues', 'persisted-personpage']);
    expect(tools.find((t) => t.name === 'crm')!.description).toMatch(/^The CRM: customers and deals\. \(A REST API that accepts only API keys/);
    const result = await client.callTool({ name: 'crm', arguments: { action: 'get', path: '/v1/items', query: { limit: 2, open: true } } });
    expect(result.structuredContent).toEqual({ status: 200, content_type: 'application/json', body: { items: ['a', 'b'], query: { limit: '2', open: 'true' } } });
    await client.close();
  });

  it('send the agent\'s own key pair (Basic, or the configured headers), never the caller\'s token', async () => {
    const before = crm.seen.length;
    expect((await call('crm', { action: 'request', method: 'POST', path: '/v1/items', body: { name: 'deal' } })).structuredContent).toEqual({ status: 201, content_type: 'application/json; charset=utf-8', body: { created: { name: 'deal' } } });
    expect(crm.seen[before]!.authorization).toBe(basic);
    expect(crm.seen[before]!['content-type']).toBe('application/json');
    expect((await call('wiki', { action: 'get', path: '/v1/notes' })).structuredContent).toEqual({ status: 200, content_type: 'text/plain', body: 'plain notes' });
    expect(wiki.seen.at(-1)!.authorization).toBeUndefined();
    const everything = JSON.stringify([...crm.seen, ...wiki.seen, ...tls.seen]);
    for (const token of callerTokens) expect(everything).not.toContain(token.split('.')[1]);
    expect(lines.some((l) => l.includes('"agent":"crm"') && l.includes('"credential":"basic:credentials"'))).toBe(true);
    expect(lines.some((l) => l.includes('"agent":"wiki"') && l.includes('"credential":"headers:credentials"'))).toBe(true);
  });

  it('refuse a body on GET', async () => {
    const result = await call('crm', { action: 'request', method: 'GET', path: '/v1/items', body: { x: 1 } });
    expect(result.content[0]!.text).toBe('/body: a GET request has no body; use the query parameters, or another method.');
  });

  it('a status other than 2xx is a tool error quoting the answer', async () => {
    const result = await call('crm', { action: 'get', path: '/v1/missing' });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toBe('The crm API answered HTTP 404 to GET /api/v1/missing: no such item at /api/v1/missing');
  });

  it.each([
    ['//attacker.example/x', 'it must start with exactly one /'],
    ['/../admin', 'it has a . or .. segment'],
    ['/v1/%2E%2e/admin', 'it has a . or .. segment'],
    ['/v1/items?admin=1', 'it has ?, #, \\ or a control character'],
    ['/v1/items#x', 'it has ?, #, \\ or a control character'],
    ['/v1\\..\\admin', 'it has ?, #, \\ or a control character'],
  ])('keeps the keys on the API\'s own paths: %s is refused', async (path, why) => {
    const before = crm.seen.length;
    const result = await call('crm', { action: 'get', path });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain(why);
    expect(crm.seen.length).toBe(before);
  });

  it('check TLS certificates unless the agent\'s ssl_verify is false', async () => {
    const strict = await call('strict', { action: 'get', path: '/v1/items' });
    expect(strict.isError).toBe(true);
    expect(strict.content[0]!.text).toMatch(/^the strict API at https:\/\/127\.0\.0\.1:\d+ presented a TLS certificate that does not verify \(DEPTH_ZERO_SELF_SIGNED_CERT\); trust its CA \(NODE_EXTRA_CA_CERTS\) or, for a test system only, set the agent's ssl_verify to false\.$/);
    const lax = await call('lax', { action: 'get', path: '/v1/items' });
    expect(lax.isError).toBeUndefined();
    expect(lax.structuredContent).toMatchObject({ status: 200 });
  });

  it('an unreachable API is a tool error naming it', async () => {
    const result = await call('gone', { action: 'get', path: '/x' });
    expect(textOf(result)).toMatch(/^the gone API at http:\/\/127\.0\.0\.1:\d+ could not be reached \(ECONNREFUSED\)\.$/);
  });

  it('never log a key, a secret or the caller\'s token', () => {
    const text = lines.join('\n');
    for (const secret of [SECRET_KEY, WIKI_SECRET, ...callerTokens.flatMap((t) => t.split('.').filter((p) => p.length > 8))]) expect(text).not.toContain(secret);
  });
});

describe('urlUnder', () => {
  it.each([
    ['https://api.test', '/v1/x', undefined, 'https://api.test/v1/x'],
    ['https://api.test/', '/v1/x', undefined, 'https://api.test/v1/x'],
    ['https://api.test/base/', '/v1/x', { a: 1, b: 'two words' }, 'https://api.test/base/v1/x?a=1&b=two+words'],
    ['https://api.test/base', '/%20space', undefined, 'https://api.test/base/%20space'],
  ])('%s + %s', (base, path, query, want) => {
    expect(urlUnder(base, path, query).href).toBe(want);
  });
});

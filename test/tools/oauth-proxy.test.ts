import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningToolgraph } from '../../src/serve/index.ts';
import { Browser } from '../support/browser.ts';
import { captureLogger } from '../support/capture-logger.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { MemoryOAuthClientProvider, startRedirectReceiver, type RedirectReceiver } from '../support/mcp-oauth-client.ts';
import { refusedAddressKind } from '../../src/tools/oauth-proxy/ssrf-guard.ts';
import { startServe } from './support.ts';

const PROXY_CLIENT_ID = 'toolgraph-proxy';
const PROXY_CLIENT_SECRET = `proxy-secret-${crypto.randomUUID()}`;
const CYPHER = { name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: 'MATCH (o:Organization) RETURN count(*) AS n' } };

interface ClientAdapter { upsert(id: string, payload: Record<string, unknown>): Promise<void> }

let idp: TestIdp;
let receiver: RedirectReceiver;
/** Log lines of every proxy started here. */
const logs: string[][] = [];
/** Tokens and codes seen in this file, for the log check. */
const secrets: string[] = [PROXY_CLIENT_SECRET];

/**
 * The IdP knows the proxy as one confidential client whose redirect URI is the proxy's callback; it
 * knows nothing of the MCP clients that register at the proxy (oidc-provider's own registration is
 * off). Registered once the proxy's origin is known.
 */
async function registerProxyAtIdp(origin: string): Promise<void> {
  const adapter = (idp.provider as unknown as { Client: { adapter: ClientAdapter } }).Client.adapter;
  await adapter.upsert(PROXY_CLIENT_ID, {
    client_id: PROXY_CLIENT_ID,
    client_secret: PROXY_CLIENT_SECRET,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: [`${origin}/oauth/callback`],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'openid email offline_access api kg:read kg:write kg:admin query:graphql',
  });
}

async function startProxy(env: Record<string, string>): Promise<RunningToolgraph> {
  const captured = captureLogger('trace');
  const running = await startServe({ env: { OIDC_CLIENT_ID: PROXY_CLIENT_ID, OIDC_CLIENT_SECRET: PROXY_CLIENT_SECRET, LOG_LEVEL: 'trace', ...env }, logger: captured.logger });
  logs.push(captured.lines);
  await registerProxyAtIdp(running.origin);
  return running;
}

/** The whole sign-in the SDK's OAuth client provider drives: registration, PKCE, the browser steps, the code. */
async function signIn(origin: string, provider = new MemoryOAuthClientProvider(receiver.url)): Promise<{ provider: MemoryOAuthClientProvider; steps: string[] }> {
  const first = new Client({ name: 'proxy-test', version: '1' });
  await expect(first.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
  const visit = await new Browser().visit(provider.authorizationUrl!.href);
  expect(visit.url.startsWith(receiver.url), visit.steps.map((s) => `${s.method} ${s.url} ${s.status}`).join('\n')).toBe(true);
  const answer = receiver.received.at(-1)!;
  expect(answer.get('error')).toBeNull();
  const code = answer.get('code')!;
  secrets.push(code);
  await new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider }).finishAuth(code);
  secrets.push(provider.tokens()!.access_token, ...(provider.tokens()!.refresh_token ? [provider.tokens()!.refresh_token!] : []));
  return { provider, steps: visit.steps.map((s) => `${s.method} ${new URL(s.url).origin}${new URL(s.url).pathname} ${s.status}`) };
}

/** A client registered by hand, for the steps the SDK client never takes (deny, forged consent, code replay). */
async function registerClient(origin: string): Promise<{ client_id: string; client_secret: string }> {
  const response = await fetch(`${origin}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'manual client', redirect_uris: [receiver.url], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post' }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { client_id: string; client_secret: string };
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeUrl(origin: string, clientId: string, challenge: string, extra: Record<string, string> = {}): string {
  const url = new URL(`${origin}/authorize`);
  for (const [k, v] of Object.entries({ response_type: 'code', client_id: clientId, redirect_uri: receiver.url, code_challenge: challenge, code_challenge_method: 'S256', state: 'client-state-1', ...extra })) url.searchParams.set(k, v);
  return url.href;
}

/** Opens the consent page as a browser would: its cookie and the form's hidden fields. */
async function consentPage(url: string): Promise<{ cookie: string; transaction: string; csrf: string; html: string }> {
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status).toBe(200);
  const html = await response.text();
  const cookie = response.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)![1]!;
  return { cookie, transaction: field('transaction'), csrf: field('csrf'), html };
}

function postConsent(origin: string, fields: Record<string, string>, cookie?: string): Promise<Response> {
  return fetch(`${origin}/oauth/consent`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams(fields),
    redirect: 'manual',
  });
}

function tokenRequest(origin: string, form: Record<string, string>): Promise<Response> {
  return fetch(`${origin}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
}

beforeAll(async () => {
  // oidc-provider's default policy: a refresh token only for offline_access asked with prompt=consent.
  idp = await startIdp();
  receiver = await startRedirectReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await idp?.close();
});

describe('AUTH_TYPE=oidc-proxy: an MCP client that speaks only dynamic registration signs in through an IdP that does not', () => {
  let running: RunningToolgraph;
  beforeAll(async () => {
    running = await startProxy({ AUTH_TYPE: 'oidc-proxy', OIDC_CONFIG_URL: idp.discoveryUrl });
  });
  afterAll(() => running?.close());

  it('names itself as the authorization server, with registration and S256 PKCE', async () => {
    const resource = (await (await fetch(`${running.origin}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string; authorization_servers: string[] };
    expect(resource).toMatchObject({ resource: running.origin, authorization_servers: [`${running.origin}/`] });
    const metadata = (await (await fetch(`${running.origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: `${running.origin}/`,
      authorization_endpoint: `${running.origin}/authorize`,
      token_endpoint: `${running.origin}/token`,
      registration_endpoint: `${running.origin}/register`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
    });
  });

  it('the SDK client registers, signs in (proxy consent, IdP login) and calls tools with the IdP\'s token for this server', async () => {
    const { provider, steps } = await signIn(running.origin);
    expect(steps).toEqual([
      `GET ${running.origin}/authorize 200`,
      `POST ${running.origin}/oauth/consent 302`,
      `GET ${idp.issuer}/auth 303`,
      expect.stringMatching(new RegExp(`^GET ${idp.issuer}/interaction/`)),
      expect.stringMatching(new RegExp(`^GET ${idp.issuer}/auth/`)),
      expect.stringMatching(new RegExp(`^GET ${idp.issuer}/interaction/`)),
      expect.stringMatching(new RegExp(`^GET ${idp.issuer}/auth/`)),
      `GET ${running.origin}/oauth/callback 302`,
      `GET ${new URL(receiver.url).origin}/callback 200`,
    ]);
    const claims = decodeJwt(provider.tokens()!.access_token);
    // The IdP's own token (not one minted by the proxy), issued for this server's audience.
    expect(claims).toMatchObject({ iss: idp.issuer, aud: running.origin, sub: 'interactive-user' });
    const client = new Client({ name: 'proxy-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.origin}/mcp`), { authProvider: provider }));
    expect((await client.callTool(CYPHER)).structuredContent).toEqual({ columns: ['n'], rows: [[8]], version: 3 });
    await client.close();
  });

  it('refreshes through the IdP for the client the refresh token was handed to, and for no other', async () => {
    const { provider } = await signIn(running.origin);
    const info = provider.clientInformation() as { client_id: string; client_secret: string };
    const refresh = provider.tokens()!.refresh_token!;
    expect(refresh).toBeDefined();
    const other = await registerClient(running.origin);
    const stolen = await tokenRequest(running.origin, { grant_type: 'refresh_token', refresh_token: refresh, client_id: other.client_id, client_secret: other.client_secret });
    expect(stolen.status).toBe(400);
    expect(await stolen.json()).toMatchObject({ error: 'invalid_grant' });
    const renewed = await tokenRequest(running.origin, { grant_type: 'refresh_token', refresh_token: refresh, client_id: info.client_id, client_secret: info.client_secret });
    expect(renewed.status).toBe(200);
    const tokens = (await renewed.json()) as { access_token: string; refresh_token?: string };
    secrets.push(tokens.access_token, ...(tokens.refresh_token ? [tokens.refresh_token] : []));
    expect(decodeJwt(tokens.access_token)).toMatchObject({ iss: idp.issuer, aud: running.origin });
  });

  it('the user can deny on the proxy\'s consent page; the client learns access_denied with its state', async () => {
    const client = await registerClient(running.origin);
    const { cookie, transaction, csrf, html } = await consentPage(authorizeUrl(running.origin, client.client_id, pkce().challenge));
    expect(html).toContain('manual client');
    expect(html).toContain(new URL(receiver.url).host);
    const response = await postConsent(running.origin, { transaction, csrf, decision: 'deny' }, cookie);
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(receiver.url);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('client-state-1');
  });

  it('an approval not made in the browser the page was shown to is refused (no cookie, or a forged form)', async () => {
    const client = await registerClient(running.origin);
    const page = await consentPage(authorizeUrl(running.origin, client.client_id, pkce().challenge));
    // A page elsewhere that makes the user's browser post an attacker's transaction: no cookie of ours.
    expect((await postConsent(running.origin, { transaction: page.transaction, csrf: page.csrf, decision: 'approve' })).status).toBe(403);
    expect((await postConsent(running.origin, { transaction: page.transaction, csrf: 'forged', decision: 'approve' }, page.cookie)).status).toBe(403);
    const approved = await postConsent(running.origin, { transaction: page.transaction, csrf: page.csrf, decision: 'approve' }, page.cookie);
    expect(approved.status).toBe(302);
    expect(approved.headers.get('location')!.startsWith(`${idp.issuer}/auth?`)).toBe(true);
    // A decision is taken once.
    expect((await postConsent(running.origin, { transaction: page.transaction, csrf: page.csrf, decision: 'approve' }, page.cookie)).status).toBe(400);
  });

  it('checks the client\'s PKCE verifier and takes each code once', async () => {
    const client = await registerClient(running.origin);
    const { verifier, challenge } = pkce();
    const visit = await new Browser().visit(authorizeUrl(running.origin, client.client_id, challenge, { resource: running.origin }));
    expect(visit.url.startsWith(receiver.url)).toBe(true);
    const code = receiver.received.at(-1)!.get('code')!;
    expect(receiver.received.at(-1)!.get('state')).toBe('client-state-1');
    const base = { grant_type: 'authorization_code', code, redirect_uri: receiver.url, client_id: client.client_id, client_secret: client.client_secret };
    const wrong = await tokenRequest(running.origin, { ...base, code_verifier: pkce().verifier });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_grant' });
    const right = await tokenRequest(running.origin, { ...base, code_verifier: verifier });
    expect(right.status).toBe(200);
    secrets.push(((await right.json()) as { access_token: string }).access_token);
    const replay = await tokenRequest(running.origin, { ...base, code_verifier: verifier });
    expect(replay.status).toBe(400);
  });

  it('refuses a redirect URI the client did not register, and a resource other than this server', async () => {
    const client = await registerClient(running.origin);
    const foreign = await fetch(authorizeUrl(running.origin, client.client_id, pkce().challenge, { redirect_uri: 'https://attacker.example/cb' }), { redirect: 'manual' });
    expect(foreign.status).toBe(400);
    const target = await fetch(authorizeUrl(running.origin, client.client_id, pkce().challenge, { resource: 'https://other.example' }), { redirect: 'manual' });
    expect(target.status).toBe(302);
    expect(new URL(target.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
  });

  it('an unknown callback state is refused without reaching any client', async () => {
    const response = await fetch(`${running.origin}/oauth/callback?code=x&state=unknown`, { redirect: 'manual' });
    expect(response.status).toBe(400);
  });
});

describe('AUTH_TYPE=oauth-proxy with configured endpoints (no discovery document)', () => {
  it('signs the SDK client in through the IdP\'s authorization and token endpoints, verifying with OAUTH_ISSUER and OAUTH_JWKS_URI', async () => {
    const running = await startProxy({
      AUTH_TYPE: 'oauth-proxy',
      OAUTH_AUTHORIZATION_ENDPOINT: `${idp.issuer}/auth`,
      OAUTH_TOKEN_ENDPOINT: idp.tokenEndpoint,
      OAUTH_ISSUER: idp.issuer,
      OAUTH_JWKS_URI: idp.jwksUri,
    });
    try {
      const { provider } = await signIn(running.origin);
      const client = new Client({ name: 'proxy-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${running.origin}/mcp`), { authProvider: provider }));
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['graph', 'schemas', 'secrets', 'search_tools', 'persisted-peoplewithcolleagues', 'persisted-personpage']);
      await client.close();
    } finally {
      await running.close();
    }
  });
});

describe('registrations are capped (TOOLGRAPH_OAUTH_MAX_CLIENTS)', () => {
  it('refuses a registration past the cap (too_many_requests, naming the setting), counted over the shared store', async () => {
    const running = await startProxy({ AUTH_TYPE: 'oidc-proxy', OIDC_CONFIG_URL: idp.discoveryUrl, TOOLGRAPH_OAUTH_MAX_CLIENTS: '2' });
    try {
      await registerClient(running.origin);
      await registerClient(running.origin);
      const refused = await fetch(`${running.origin}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'one too many', redirect_uris: [receiver.url], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post' }),
      });
      // RFC 7591 answers every registration error with 400 and a JSON error code (the SDK's handler does).
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: 'too_many_requests', error_description: expect.stringContaining('TOOLGRAPH_OAUTH_MAX_CLIENTS') });
    } finally {
      await running.close();
    }
  });
});

/** An MCP client whose client_id is the https URL of its client ID metadata document (the SDK's clientMetadataUrl). */
class MetadataDocumentClientProvider extends MemoryOAuthClientProvider {
  readonly clientMetadataUrl: string;
  constructor(redirect: string, clientMetadataUrl: string) {
    super(redirect, 'CIMD test client');
    this.clientMetadataUrl = clientMetadataUrl;
  }
}

/**
 * The clients' own web server: https on loopback with a self-signed certificate (trusted by the
 * proxy through TOOLGRAPH_CIMD_CA_FILE), serving each document (or misbehaviour) at its own path.
 */
interface DocumentHost {
  readonly origin: string;
  readonly caFile: string;
  /** Requests per path. */
  readonly hits: Map<string, number>;
  /** Bytes the endless document wrote before the proxy hung up. */
  endlessWritten: number;
  endlessClosed: Promise<void>;
  close(): Promise<void>;
}

async function startDocumentHost(): Promise<DocumentHost> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-cimd-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
  let origin = '';
  const hits = new Map<string, number>();
  let closeEndless: () => void = () => undefined;
  const host: DocumentHost = {
    origin: '', caFile: join(dir, 'cert.pem'), hits, endlessWritten: 0,
    endlessClosed: new Promise<void>((resolve) => { closeEndless = resolve; }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const document = (path: string, overrides: Record<string, unknown> = {}) => JSON.stringify({
    client_id: `${origin}${path}`, client_name: 'CIMD test client', redirect_uris: [receiver.url],
    grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', ...overrides,
  });
  const server: HttpsServer = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://127.0.0.1').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const json = (body: string, headers: Record<string, string> = {}) => res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(body);
    switch (path) {
      case '/clients/good.json': return json(document(path), { 'cache-control': 'max-age=3600' });
      case '/clients/mismatch.json': return json(document(path, { client_id: `${origin}/clients/other.json` }));
      case '/clients/unlisted.json': return json(document(path, { redirect_uris: ['https://app.example/callback'] }));
      case '/clients/secret.json': return json(document(path, { token_endpoint_auth_method: 'client_secret_post' }));
      case '/clients/not-json.json': return json('{"client_id": oops');
      case '/clients/html.json': return res.writeHead(200, { 'content-type': 'text/html' }).end(document(path));
      case '/clients/redirect.json': return res.writeHead(302, { location: `${origin}/clients/good.json` }).end();
      case '/clients/hang.json': return undefined;
      case '/clients/endless.json': {
        // Streams for ever: only a reader that stops past its cap gets an answer.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"client_id": "');
        const chunk = 'x'.repeat(1024);
        const timer = setInterval(() => {
          res.write(chunk);
          host.endlessWritten += chunk.length;
        }, 2);
        res.on('close', () => {
          clearInterval(timer);
          closeEndless();
        });
        return undefined;
      }
      default: return res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(host, { origin });
}

describe('client ID metadata documents (MCP 2026-07-28, draft-ietf-oauth-client-id-metadata-document)', () => {
  let documents: DocumentHost;
  let running: RunningToolgraph;
  beforeAll(async () => {
    documents = await startDocumentHost();
    running = await startProxy({
      AUTH_TYPE: 'oidc-proxy', OIDC_CONFIG_URL: idp.discoveryUrl,
      TOOLGRAPH_CIMD_ALLOW_PRIVATE_ADDRESSES: 'true', TOOLGRAPH_CIMD_CA_FILE: documents.caFile, TOOLGRAPH_CIMD_FETCH_TIMEOUT_MS: '1000',
    });
  });
  afterAll(async () => {
    await running?.close();
    await documents?.close();
  });

  /** /authorize for `clientId`; the proxy's refusal as JSON. */
  async function refusal(origin: string, clientId: string): Promise<{ status: number; body: { error?: string; error_description?: string } }> {
    const response = await fetch(authorizeUrl(origin, clientId, pkce().challenge), { redirect: 'manual' });
    return { status: response.status, body: (await response.json().catch(() => ({}))) as { error?: string; error_description?: string } };
  }

  it('a client whose client_id is its document\'s URL signs in (authorize, IdP, callback, token) without registering, and calls tools', async () => {
    const url = `${documents.origin}/clients/good.json`;
    const { provider, steps } = await signIn(running.origin, new MetadataDocumentClientProvider(receiver.url, url));
    expect(provider.clientInformation()).toMatchObject({ client_id: url });
    expect(steps[0]).toBe(`GET ${running.origin}/authorize 200`);
    expect(steps.at(-2)).toBe(`GET ${running.origin}/oauth/callback 302`);
    expect(decodeJwt(provider.tokens()!.access_token)).toMatchObject({ iss: idp.issuer, aud: running.origin });
    const client = new Client({ name: 'proxy-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.origin}/mcp`), { authProvider: provider }));
    expect((await client.callTool(CYPHER)).structuredContent).toEqual({ columns: ['n'], rows: [[8]], version: 3 });
    await client.close();
    // /authorize and /token saw the same client, from one fetch (the document said max-age=3600).
    expect(documents.hits.get('/clients/good.json')).toBe(1);
  });

  it('the consent page names the client from its document', async () => {
    const { html } = await consentPage(authorizeUrl(running.origin, `${documents.origin}/clients/good.json`, pkce().challenge));
    expect(html).toContain('CIMD test client');
  });

  it.each([
    ['an http:// client_id', () => `${documents.origin.replace('https:', 'http:')}/clients/good.json`, 'invalid_client', /is not an https URL/],
    ['a document whose client_id is another URL', () => `${documents.origin}/clients/mismatch.json`, 'invalid_client', /its client_id "https:\/\/127\.0\.0\.1:\d+\/clients\/other\.json" is not the URL it was fetched from/],
    ['a redirect_uri the document does not list', () => `${documents.origin}/clients/unlisted.json`, 'invalid_request', /redirect_uri http:\/\/127\.0\.0\.1:\d+\/callback is not one of the redirect_uris/],
    ['a document naming a client secret method', () => `${documents.origin}/clients/secret.json`, 'invalid_client', /token_endpoint_auth_method client_secret_post needs a shared secret/],
    ['a document streaming past the cap', () => `${documents.origin}/clients/endless.json`, 'invalid_client', /larger than 5120 bytes .*TOOLGRAPH_CIMD_MAX_BYTES raises the cap/],
    ['a document host that never answers', () => `${documents.origin}/clients/hang.json`, 'invalid_client', /did not answer in full within 1000 ms \(TOOLGRAPH_CIMD_FETCH_TIMEOUT_MS\)/],
    ['a redirect', () => `${documents.origin}/clients/redirect.json`, 'invalid_client', /answered HTTP 302 \(a redirect to https:\/\/127\.0\.0\.1:\d+\/clients\/good\.json\); redirects are not followed/],
    ['an answer that is not JSON', () => `${documents.origin}/clients/not-json.json`, 'invalid_client', /: it is not JSON\.$/],
    ['an answer of another media type', () => `${documents.origin}/clients/html.json`, 'invalid_client', /content-type "text\/html", not application\/json/],
    ['a URL without a path', () => `${documents.origin}/`, 'invalid_client', /it has no path/],
    ['a URL with a dot segment', () => `${documents.origin}/clients/../clients/good.json`, 'invalid_client', /its path has a "\." or "\.\." segment/],
  ])('refuses %s (400, saying what is wrong)', async (_case, clientId, error, description) => {
    const { status, body } = await refusal(running.origin, clientId());
    expect(status).toBe(400);
    expect(body.error).toBe(error);
    expect(body.error_description).toMatch(description);
  });

  it('reads no further than the cap of a document that never ends', async () => {
    await documents.endlessClosed;
    expect(documents.endlessWritten).toBeLessThan(256 * 1024);
  });

  it('remembers a refusal, so a client cannot make the proxy fetch on every request', async () => {
    const before = documents.hits.get('/clients/mismatch.json') ?? 0;
    expect(before).toBeGreaterThanOrEqual(1);
    expect((await refusal(running.origin, `${documents.origin}/clients/mismatch.json`)).body.error).toBe('invalid_client');
    expect(documents.hits.get('/clients/mismatch.json')).toBe(before);
  });

  it('/token refuses a metadata-document client as /authorize does', async () => {
    const response = await tokenRequest(running.origin, { grant_type: 'authorization_code', code: 'x', code_verifier: pkce().verifier, redirect_uri: receiver.url, client_id: `${documents.origin}/clients/mismatch.json` });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_client', error_description: expect.stringContaining('is not the URL it was fetched from') });
  });

  it('without TOOLGRAPH_CIMD_ALLOW_PRIVATE_ADDRESSES, refuses a loopback host, by address or by name, before connecting', async () => {
    const strict = await startProxy({ AUTH_TYPE: 'oidc-proxy', OIDC_CONFIG_URL: idp.discoveryUrl, TOOLGRAPH_CIMD_CA_FILE: documents.caFile });
    try {
      const hitsBefore = documents.hits.get('/clients/good.json');
      const byAddress = await refusal(strict.origin, `${documents.origin}/clients/good.json`);
      expect(byAddress.status).toBe(400);
      expect(byAddress.body).toEqual({
        error: 'invalid_client',
        error_description: `The client ID metadata document ${documents.origin}/clients/good.json is refused: its host is the loopback address 127.0.0.1: private address refused; set TOOLGRAPH_CIMD_ALLOW_PRIVATE_ADDRESSES=true for tests.`,
      });
      const byName = await refusal(strict.origin, `${documents.origin.replace('127.0.0.1', 'localhost')}/clients/good.json`);
      expect(byName.body.error).toBe('invalid_client');
      expect(byName.body.error_description).toMatch(/its host is the loopback address (127\.0\.0\.1|::1) \(localhost resolves to it\): private address refused; set TOOLGRAPH_CIMD_ALLOW_PRIVATE_ADDRESSES=true for tests\.$/);
      expect(documents.hits.get('/clients/good.json')).toBe(hitsBefore);
    } finally {
      await strict.close();
    }
  });
});

describe('the addresses a client ID metadata document is never fetched from', () => {
  it.each([
    ['127.0.0.1', 'loopback'], ['127.255.0.9', 'loopback'], ['::1', 'loopback'], ['[::1]', 'loopback'],
    ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'], ['fe80::1', 'link-local'], ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique-local'], ['fd12:3456::1', 'unique-local'],
    ['100.64.0.1', 'CGNAT'], ['100.127.255.254', 'CGNAT'],
    ['224.0.0.1', 'multicast'], ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'], ['::', 'unspecified'],
    ['::ffff:127.0.0.1', 'loopback'], ['::ffff:7f00:1', 'loopback'], ['::ffff:10.0.0.1', 'private'], ['::ffff:169.254.169.254', 'link-local'],
    ['64:ff9b::a9fe:a9fe', 'link-local'], ['2002:c0a8:0101::1', 'private'],
    ['255.255.255.255', 'reserved'], ['localhost', 'reserved'],
  ])('%s is refused as %s', (address, kind) => {
    expect(refusedAddressKind(address)).toBe(kind);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(refusedAddressKind(address)).toBeUndefined();
  });
});

describe('proxy logs', () => {
  it('carry no token, code or client secret', () => {
    const text = logs.flat().join('\n');
    expect(text).toContain('OAuth proxy: sign-in completed');
    for (const secret of secrets) {
      for (const part of secret.split('.').filter((p) => p.length >= 8)) expect(text).not.toContain(part);
    }
  });
});

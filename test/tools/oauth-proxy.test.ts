import { createHash, randomBytes } from 'node:crypto';
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
async function signIn(origin: string): Promise<{ provider: MemoryOAuthClientProvider; steps: string[] }> {
  const provider = new MemoryOAuthClientProvider(receiver.url);
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
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['graph', 'schemas', 'secrets']);
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

describe('proxy logs', () => {
  it('carry no token, code or client secret', () => {
    const text = logs.flat().join('\n');
    expect(text).toContain('OAuth proxy: sign-in completed');
    for (const secret of secrets) {
      for (const part of secret.split('.').filter((p) => p.length >= 8)) expect(text).not.toContain(part);
    }
  });
});

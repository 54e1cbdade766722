import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { base64url, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProgram } from '../../src/cli/program.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { GRAPH_SCOPES } from '../../src/principal/index.ts';
import { startToolgraph, type RunningToolgraph } from '../../src/serve/index.ts';
import { captureLogger } from '../support/capture-logger.ts';
import { closedPort } from '../support/closed-port.ts';
import { rawRequest } from '../support/raw-request.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';

function config(env: Record<string, string>) {
  return resolveConfig({ env: { HOME: mkdtempSync(join(tmpdir(), 'tg-home-')), PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory', ...env } });
}

// Values that must never reach a log line: the user's subject and groups are claim values.
const SUBJECT = 'alice-e2e-subject';
const GROUP = 'team-e2e-hidden-group';

let idp: TestIdp;
beforeAll(async () => {
  idp = await startIdp({ clientGroups: ['svc-e2e-group'] });
});
afterAll(() => idp.close());

interface ErrorBody { error: { code: string; message: string; details?: Record<string, unknown> } }

function dispatch(origin: string, query: string, token?: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${origin}/dispatch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify({ id: 7, graph: 'demo', method: { Cypher: { query } } }),
  });
}

const READ = 'MATCH (o:Organization) RETURN count(*) AS n';
const WRITE = "CREATE (s:Spaceship {id: 'ship-e2e'}) RETURN s.id";

describe('AUTH_TYPE=jwt: every service needs a verified bearer token', () => {
  let running: RunningToolgraph;
  let lines: string[];
  let metadataUrl: string;
  const tokens: string[] = [];
  const mint = async (scope: string, audience?: string) => {
    const token = await idp.mintToken({ sub: SUBJECT, scope, groups: [GROUP], audience: audience ?? running.origin });
    tokens.push(token);
    return token;
  };

  beforeAll(async () => {
    const captured = captureLogger('trace');
    lines = captured.lines;
    // No TOKEN_AUDIENCE: the audience is the bound origin.
    running = await startToolgraph({ config: config({ AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl, LOG_LEVEL: 'trace' }), logger: captured.logger });
    metadataUrl = `${running.origin}/.well-known/oauth-protected-resource`;
  });
  afterAll(() => running.close());

  it.each([
    ['POST /dispatch', () => dispatch(running.origin, READ)],
    ['GET /schemas/search', () => fetch(`${running.origin}/schemas/search?q=Organization`)],
    ['GET a manifest', () => fetch(`${running.origin}/schemas/${'0'.repeat(64)}`)],
  ])('refuses an anonymous %s with 401 and a Bearer challenge pointing at the metadata', async (_name, send) => {
    const res = await send();
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", error_description="This service needs an access token from the identity provider in Authorization: Bearer <token>; the request has none.", resource_metadata="${metadataUrl}"`);
    const body = (await res.json()) as ErrorBody;
    expect(body.error).toMatchObject({ code: 'TG_UNAUTHENTICATED', details: { reason: 'missing' } });
  });

  it('refuses a malformed Authorization header', async () => {
    const res = await fetch(`${running.origin}/schemas/search?q=x`, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(((await res.json()) as ErrorBody).error.details).toEqual({ reason: 'malformed' });
  });

  it('answers a valid token: a Cypher read with kg:read, the catalogue with any scope', async () => {
    const token = await mint('kg:read');
    const res = await dispatch(running.origin, READ, token);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { result: { rows: number[][] } };
    expect(answer.result.rows[0]![0]).toBeGreaterThan(0);
    const search = await fetch(`${running.origin}/schemas/search?q=Organization`, { headers: { authorization: `Bearer ${await mint('openid')}` } });
    expect(search.status).toBe(200);
  });

  it('answers 403 insufficient_scope naming the scope a Cypher read needs', async () => {
    const token = await mint('query:graphql');
    const res = await dispatch(running.origin, READ, token);
    expect(res.status).toBe(403);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer error="insufficient_scope", error_description="[^"]+", scope="kg:read", resource_metadata="/);
    expect(challenge.endsWith(`resource_metadata="${metadataUrl}"`)).toBe(true);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe('TG_INSUFFICIENT_SCOPE');
    expect(JSON.stringify(body)).not.toContain(token);
  });

  it('the token\'s scopes reach dispatch: kg:read cannot write, kg:write can', async () => {
    const denied = await dispatch(running.origin, WRITE, await mint('kg:read'));
    expect(denied.status).toBe(403);
    expect(denied.headers.get('www-authenticate')).toContain('scope="kg:write"');
    const allowed = await dispatch(running.origin, WRITE, await mint('kg:write'));
    expect(allowed.status).toBe(200);
    expect(((await allowed.json()) as { result: { rows: string[][] } }).result.rows).toEqual([['ship-e2e']]);
  });

  it.each<[string, () => Promise<string>, string]>([
    ['a token for another resource', () => mint('kg:read', `${running.origin}/mcp`), 'audience'],
    ['a token for another audience', () => mint('kg:read', 'https://secrets.toolgraph.test'), 'audience'],
    ['alg: none', async () => {
      const claims = decodeJwt(await mint('kg:admin'));
      return `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64url.encode(JSON.stringify(claims))}.`;
    }, 'algorithm'],
  ])('refuses %s with 401, never echoing the token', async (_name, makeToken, reason) => {
    const token = await makeToken();
    const res = await dispatch(running.origin, READ, token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${metadataUrl}"`);
    const text = await res.text();
    expect((JSON.parse(text) as ErrorBody).error.details).toEqual({ reason });
    for (const part of token.split('.').filter((p) => p.length > 8)) {
      expect(text).not.toContain(part);
      expect(res.headers.get('www-authenticate')).not.toContain(part);
    }
  });

  const JSON_HEADERS = ['content-type', 'application/json', 'accept', 'application/json, text/event-stream'];
  it.each<[string, string, string, string | undefined]>([
    ['POST /dispatch', 'POST', '/dispatch', JSON.stringify({ id: 7, graph: 'demo', method: { Cypher: { query: READ } } })],
    ['POST /graphql', 'POST', '/graphql/demo', JSON.stringify({ query: '{ Organization(first: 1) { name } }' })],
    ['GET /schemas/search', 'GET', '/schemas/search?q=Organization', undefined],
    ['POST /mcp (initialize)', 'POST', '/mcp', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })],
    ['POST /mcp/tools/call', 'POST', '/mcp/tools/call', JSON.stringify({ name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: READ } })],
  ])('refuses two Authorization headers on %s with 401, whichever comes first, cached or not', async (_name, method, path, body) => {
    const good = await mint('kg:read');
    const other = await mint('kg:admin');
    // One header: accepted (and the token is now in the verified-token cache).
    const single = await rawRequest(running.origin, { method, path, body, headers: [...JSON_HEADERS, 'authorization', `Bearer ${good}`] });
    expect(single.status, `${single.status} ${single.body}`).toBeLessThan(300);
    for (const pair of [[good, other], [other, good], [good, good], [good, 'garbage']]) {
      const res = await rawRequest(running.origin, { method, path, body, headers: [...JSON_HEADERS, 'authorization', `Bearer ${pair[0]}`, 'Authorization', `Bearer ${pair[1]}`] });
      expect(res.status, res.body).toBe(401);
      expect(res.headers['www-authenticate']).toContain(`resource_metadata="${metadataUrl}"`);
      expect(JSON.parse(res.body)).toEqual({ error: { code: 'TG_UNAUTHENTICATED', message: 'The request carries 2 Authorization headers; send exactly one, Authorization: Bearer <token>.', details: { reason: 'malformed' } } });
    }
  });

  it.each(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/dispatch'])('serves protected resource metadata at %s without a token', async (path) => {
    const res = await fetch(`${running.origin}${path}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      resource: running.origin,
      authorization_servers: [idp.issuer],
      scopes_supported: [...GRAPH_SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'toolgraph',
    });
  });

  it('keeps /healthz open', async () => {
    const res = await fetch(`${running.origin}/healthz`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { services: string[] }).services).toEqual(['graph', 'graphql', 'catalogue', 'tools', 'metrics', 'metadata']);
    expect(running.services.map((s) => s.name)).toEqual(['graph', 'graphql', 'catalogue', 'tools', 'metrics', 'metadata']);
  });

  // Runs last in this block: it reads every log line the session above wrote.
  it('no log line of the session carries a token, a secret or a claim value', async () => {
    expect(tokens.length).toBeGreaterThan(5);
    const all = lines.join('\n');
    expect(all).toContain('"msg":"access token refused"');
    expect(all).toContain('"reason":"audience"');
    expect(all).toContain('"msg":"dispatch"');
    const forbidden = [SUBJECT, GROUP, 'svc-e2e-group'];
    for (const token of tokens) {
      forbidden.push(...token.split('.').filter((p) => p.length > 8));
      forbidden.push(String(decodeJwt(token).jti));
    }
    for (const value of forbidden) expect(all).not.toContain(value);
    expect(all).not.toMatch(/eyJ[A-Za-z0-9_-]{8,}/);
  });
});

describe('AUTH_TYPE=jwt with TOKEN_AUDIENCE and TOOLGRAPH_PUBLIC_URL', () => {
  it('accepts exactly TOKEN_AUDIENCE and advertises it, with the metadata under the public URL', async () => {
    const running = await startToolgraph({
      config: config({ AUTH_TYPE: 'remote', OIDC_CONFIG_URL: idp.discoveryUrl, TOKEN_AUDIENCE: 'api://toolgraph', TOOLGRAPH_PUBLIC_URL: 'https://tools.example.test/base' }),
      logger: silentLogger(),
      only: ['graph'],
    });
    try {
      const anonymous = await dispatch(running.origin, READ);
      expect(anonymous.headers.get('www-authenticate')).toContain('resource_metadata="https://tools.example.test/.well-known/oauth-protected-resource/base"');
      const metadata = (await (await fetch(`${running.origin}/.well-known/oauth-protected-resource/base`)).json()) as { resource: string };
      expect(metadata.resource).toBe('api://toolgraph');
      const forOrigin = await idp.mintToken({ sub: SUBJECT, scope: 'kg:read', audience: running.origin });
      const refused = await dispatch(running.origin, READ, forOrigin);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as ErrorBody).error.message).toBe(`The token's audience is "${running.origin}"; this server accepts "api://toolgraph" (TOKEN_AUDIENCE).`);
      const good = await idp.mintToken({ sub: SUBJECT, scope: 'kg:read', audience: 'api://toolgraph' });
      expect((await dispatch(running.origin, READ, good)).status).toBe(200);
    } finally {
      await running.close();
    }
  });
});

describe('start-up', () => {
  it('starts without the IdP: /healthz says it waits for OIDC_CONFIG_URL, giving the discovery failure (test/replicas/idp-readiness.test.ts: until it comes up)', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/.well-known/openid-configuration`;
    const running = await startToolgraph({ config: config({ AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: url }), logger: silentLogger() });
    try {
      const health = await fetch(`${running.origin}/healthz`);
      expect(health.status).toBe(503);
      expect(((await health.json()) as { waiting: Record<string, string> }).waiting['idp']).toContain(`OIDC discovery at OIDC_CONFIG_URL ${url} failed: the IdP cannot be reached (ECONNREFUSED).`);
    } finally {
      await running.close();
    }
  });

  it('`toolgraph serve --auth-type jwt` without OIDC_CONFIG_URL fails naming the setting', async () => {
    const errors: string[] = [];
    const configFile = join(mkdtempSync(join(tmpdir(), 'tg-cfg-')), 'config.json');
    writeFileSync(configFile, '{}');
    const code = await runProgram(['serve', '--auth-type', 'jwt', '--port', '0', '--persistence', 'memory', '--config', configFile], { out: () => undefined, err: (l) => errors.push(l) });
    expect(errors.join('\n')).toContain('OIDC_CONFIG_URL is required when AUTH_TYPE is jwt');
    expect(code).toBe(78);
  });
});

import { Client, InsufficientScopeError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { base64url, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningToolgraph } from '../../src/serve/index.ts';
import { captureLogger } from '../support/capture-logger.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { modernRequest } from '../support/modern-mcp-client.ts';
import { openRawSession, rawToolsListStatus } from '../support/raw-mcp-session.ts';
import { mcpClient, restCall, startServe } from './support.ts';

const SUBJECT = 'tools-e2e-subject';
const CYPHER = { name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: 'MATCH (o:Organization) RETURN count(*) AS n' } };

let idp: TestIdp;
let running: RunningToolgraph;
let lines: string[];
/** Every token handed to the server in this file, for the log and body checks. */
const tokens: string[] = [];
const bodies: string[] = [];

async function mint(options: { scope?: string; audience?: string; sub?: string } = {}): Promise<string> {
  const token = await idp.mintToken({ sub: options.sub ?? SUBJECT, scope: options.scope ?? 'kg:read kg:write', audience: options.audience ?? running.origin });
  tokens.push(token);
  return token;
}

function initialize(token: string | undefined): Promise<Response> {
  return fetch(`${running.origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
}

beforeAll(async () => {
  idp = await startIdp();
  const captured = captureLogger('trace');
  lines = captured.lines;
  running = await startServe({ env: { AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl, LOG_LEVEL: 'trace' }, logger: captured.logger });
});
afterAll(async () => {
  await running?.close();
  await idp?.close();
});

describe('AUTH_TYPE=jwt: the tool server verifies the caller\'s token before any tool runs', () => {
  it('the SDK client with a client-credentials token lists and calls tools; the graph tool passes the token on to the graph service, whose audience it is', async () => {
    const token = await idp.mintToken({ scope: 'kg:read', audience: running.origin });
    tokens.push(token);
    expect(decodeJwt(token).sub).toBe(idp.clientId);
    const { client } = await mcpClient(running.origin, token);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['graph', 'schemas', 'secrets', 'search_tools', 'persisted-peoplewithcolleagues', 'persisted-personpage']);
    const result = await client.callTool(CYPHER);
    expect(result.structuredContent).toEqual({ columns: ['n'], rows: [[8]], version: 3 });
    // The graph service verified the same token: a second, token-protected hop.
    expect(lines.some((l) => l.includes('"credential":"bearer:caller-token"'))).toBe(true);
    await client.close();
  });

  it('a missing token is a 401 whose challenge points at the protected resource metadata', async () => {
    const response = await initialize(undefined);
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate')!;
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(`resource_metadata="${running.origin}/.well-known/oauth-protected-resource"`);
    const body = await response.text();
    bodies.push(body);
    expect(JSON.parse(body)).toMatchObject({ error: { code: 'TG_UNAUTHENTICATED', details: { reason: 'missing' } } });
    const metadata = (await (await fetch(`${running.origin}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string; authorization_servers: string[] };
    expect(metadata).toMatchObject({ resource: running.origin, authorization_servers: [idp.issuer] });
    const rest = await restCall(running.origin, CYPHER);
    expect(rest.status).toBe(401);
    bodies.push(await rest.text());
  });

  it.each([
    ['expired', async () => idp.signToken({ iss: idp.issuer, aud: running.origin, sub: SUBJECT, exp: Math.floor(Date.now() / 1000) - 120, scope: 'kg:read' }), 'expired'],
    ['issued for another audience', async () => mint({ audience: `${running.origin}/mcp` }), 'audience'],
    ['from another issuer', async () => idp.signToken({ iss: 'https://evil.example', aud: running.origin, sub: SUBJECT, exp: Math.floor(Date.now() / 1000) + 300, scope: 'kg:read' }), 'issuer'],
    ['alg none', async () => {
      const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }));
      const claims = base64url.encode(JSON.stringify({ iss: idp.issuer, aud: running.origin, sub: SUBJECT, exp: Math.floor(Date.now() / 1000) + 300, scope: 'kg:read' }));
      return `${header}.${claims}.`;
    }, 'algorithm'],
    ['not a JWT', async () => 'opaque-token-value-1234567890', 'malformed'],
  ])('a token %s is refused with 401 before any tool runs (MCP and REST)', async (_what, make, reason) => {
    const token = await make();
    tokens.push(token);
    const before = lines.filter((l) => l.includes('"msg":"tool call"')).length;
    const response = await initialize(token);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const body = await response.text();
    bodies.push(body);
    expect(JSON.parse(body)).toMatchObject({ error: { code: 'TG_UNAUTHENTICATED', details: { reason } } });
    const rest = await restCall(running.origin, CYPHER, { authorization: `Bearer ${token}` });
    expect(rest.status).toBe(401);
    bodies.push(await rest.text());
    expect(lines.filter((l) => l.includes('"msg":"tool call"')).length).toBe(before);
  });

  it('a token without a scope the action needs is a 403 insufficient_scope challenge naming the scope (MCP step-up), before the call runs', async () => {
    const token = await mint({ scope: 'openid' });
    const { client, transport } = await mcpClient(running.origin, token);
    // Tools without scope needs still work with the same token.
    expect((await client.callTool({ name: 'schemas', arguments: { action: 'search', query: 'person', limit: 1 } })).isError).toBeUndefined();
    const raw = await fetch(`${running.origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: CYPHER }),
    });
    expect(raw.status).toBe(403);
    const challenge = raw.headers.get('www-authenticate')!;
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="kg:read"');
    expect(challenge).toContain('resource_metadata=');
    const body = await raw.text();
    bodies.push(body);
    expect(JSON.parse(body)).toMatchObject({ error: { code: 'TG_INSUFFICIENT_SCOPE', message: 'The graph.cypher action needs one of the scopes kg:read, kg:write, kg:admin, query:cypher, query:*, *; the token has openid.' } });
    const rest = await restCall(running.origin, { name: 'graph', arguments: { action: 'mutate', graph: 'demo', query: 'mutation { x }' } }, { authorization: `Bearer ${token}` });
    expect(rest.status).toBe(403);
    expect(rest.headers.get('www-authenticate')).toContain('scope="kg:write"');
    bodies.push(await rest.text());
    await client.close();
  });

  it('on revision 2026-07-28 too: the same 403 insufficient_scope challenge, which the SDK 2.x client surfaces as InsufficientScopeError', async () => {
    const token = await mint({ scope: 'openid' });
    const raw = await modernRequest(running.origin, 'tools/call', CYPHER, { authorization: `Bearer ${token}` });
    expect(raw.status).toBe(403);
    const challenge = raw.headers.get('www-authenticate')!;
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="kg:read"');
    const body = await raw.text();
    bodies.push(body);
    expect(JSON.parse(body)).toMatchObject({ error: { code: 'TG_INSUFFICIENT_SCOPE' } });

    const client = new Client({ name: 'step-up-2026', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } }, onInsufficientScope: 'throw' }));
    // A tool without scope needs still runs with the same token.
    expect((await client.callTool({ name: 'schemas', arguments: { action: 'search', query: 'person', limit: 1 } })).isError).not.toBe(true);
    const before = lines.filter((l) => l.includes('"msg":"tool call"')).length;
    const refused = await client.callTool(CYPHER).then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(InsufficientScopeError);
    expect((refused as InsufficientScopeError).requiredScope).toBe('kg:read');
    expect((refused as InsufficientScopeError).resourceMetadataUrl?.href).toContain('/.well-known/oauth-protected-resource');
    // Refused before the call ran.
    expect(lines.filter((l) => l.includes('"msg":"tool call"')).length).toBe(before);
    await client.close();
  });

  it('the graph service refuses a write the token\'s scopes do not cover, and the tool says so', async () => {
    const token = await mint({ scope: 'kg:read' });
    const response = await restCall(running.origin, { name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: "CREATE (s:Spaceship {id: 'ship-x'}) RETURN s.id" } }, { authorization: `Bearer ${token}` });
    const body = (await response.json()) as { isError: boolean; content: { text: string }[] };
    expect(body.isError).toBe(true);
    expect(body.content[0]!.text).toBe('A Cypher statement with CREATE, SET, REMOVE or DELETE needs one of the scopes kg:write, kg:admin, *; the token has kg:read.');
  });

  it('a session belongs to the caller who opened it: another caller\'s token gets 404 for its id', async () => {
    const { client, transport } = await mcpClient(running.origin, await mint());
    const other = await mint({ sub: 'someone-else' });
    const hijack = await fetch(`${running.origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${other}`, 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    expect(hijack.status).toBe(404);
    expect((await client.listTools()).tools.length).toBe(6);
    await client.close();
  });

  it('no token, part of one, subject or header value appears in any log line or error body', () => {
    const text = `${lines.join('\n')}\n${bodies.join('\n')}`;
    expect(lines.length).toBeGreaterThan(10);
    for (const token of tokens) {
      for (const part of token.split('.').filter((p) => p.length >= 8)) expect(text, 'a token part is in the logs or a body').not.toContain(part);
    }
    expect(lines.join('\n')).not.toContain(SUBJECT);
  });
});

describe('AUTH_TYPE=remote', () => {
  it('names the real authorization server in the protected resource metadata and verifies tokens like jwt', async () => {
    const remote = await startServe({ env: { AUTH_TYPE: 'remote', OIDC_CONFIG_URL: idp.discoveryUrl }, only: ['tools'] });
    try {
      const metadata = (await (await fetch(`${remote.origin}/.well-known/oauth-protected-resource`)).json()) as { authorization_servers: string[] };
      expect(metadata.authorization_servers).toEqual([idp.issuer]);
      expect((await fetch(`${remote.origin}/.well-known/oauth-authorization-server`)).status).toBe(404);
      const token = await idp.mintToken({ scope: 'kg:read', audience: remote.origin });
      const { client } = await mcpClient(remote.origin, token);
      // Only the tool server runs: there is no graph service here, so no graph tool is promised.
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['schemas', 'secrets']);
      await client.close();
    } finally {
      await remote.close();
    }
  });
});

describe('MCP sessions are shared fairly between callers', () => {
  it('one caller opening more sessions than the whole server holds (defaults) closes only its own', async () => {
    const server = await startServe({ env: { AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl }, only: ['tools'] });
    try {
      const victimToken = await idp.mintToken({ sub: 'victim', scope: 'kg:read', audience: server.origin });
      const { client: victim } = await mcpClient(server.origin, victimToken);
      const hog = await idp.mintToken({ sub: 'hog', scope: 'kg:read', audience: server.origin });
      // More than the default process-wide cap of 1000, 10 at a time (fewer than the 16 one caller may have opening at once).
      const ids: string[] = [];
      for (let batch = 0; batch < 105; batch++) {
        const opened = await Promise.all(Array.from({ length: 10 }, () => openRawSession(server.origin, hog)));
        for (const o of opened) {
          expect(o.status, o.body).toBe(200);
          ids.push(o.id!);
        }
      }
      // The victim's session is untouched; the hog keeps its 16 most recent (the per-caller default).
      expect((await victim.listTools()).tools.length).toBe(2);
      const statuses = await Promise.all(ids.map((id) => rawToolsListStatus(server.origin, hog, id)));
      expect(statuses.filter((s) => s === 200)).toHaveLength(16);
      expect(statuses.slice(-16)).toEqual(Array(16).fill(200));
      await victim.close();
    } finally {
      await server.close();
    }
  }, 120_000);

  it('a full server refuses a caller with no session to give up, naming the setting; a caller with sessions trades its oldest', async () => {
    const server = await startServe({
      env: { AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl, TOOLGRAPH_MCP_MAX_SESSIONS: '5', TOOLGRAPH_MCP_MAX_SESSIONS_PER_SUBJECT: '3' },
      only: ['tools'],
    });
    try {
      const token = (sub: string) => idp.mintToken({ sub, scope: 'kg:read', audience: server.origin });
      const [alice, bob, carol] = await Promise.all([token('alice'), token('bob'), token('carol')]);
      const a = [await openRawSession(server.origin, alice), await openRawSession(server.origin, alice)];
      const b = [await openRawSession(server.origin, bob), await openRawSession(server.origin, bob), await openRawSession(server.origin, bob)];
      expect([...a, ...b].map((o) => o.status)).toEqual([200, 200, 200, 200, 200]);
      // Full (5). Carol has nothing to give up: refused, and nobody's session closes.
      const refused = await openRawSession(server.origin, carol);
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBe('60');
      expect(JSON.parse(refused.body)).toEqual({
        error: {
          code: 'TG_RATE_LIMITED',
          message: 'The tool server holds its limit of 5 MCP sessions (TOOLGRAPH_MCP_MAX_SESSIONS) and this caller has none to give up; other callers\' sessions are never closed to make room. Retry when sessions end (idle ones close after 30 minutes), or raise TOOLGRAPH_MCP_MAX_SESSIONS.',
          details: { limit: 'mcpMaxSessions', max: 5, setting: 'TOOLGRAPH_MCP_MAX_SESSIONS', retryAfterSecs: 60 },
        },
      });
      // Bob, at his own cap of 3, trades his least recently used session for the new one.
      await rawToolsListStatus(server.origin, bob, b[0]!.id!);
      const bobNew = await openRawSession(server.origin, bob);
      expect(bobNew.status).toBe(200);
      expect(await Promise.all([...b, bobNew].map((o) => rawToolsListStatus(server.origin, bob, o.id!)))).toEqual([200, 404, 200, 200]);
      // Alice, under her cap but with the server full, trades her own oldest too.
      const aliceNew = await openRawSession(server.origin, alice);
      expect(aliceNew.status).toBe(200);
      expect(await Promise.all([...a, aliceNew].map((o) => rawToolsListStatus(server.origin, alice, o.id!)))).toEqual([404, 200, 200]);
      // Once a session ends, Carol gets in.
      await fetch(`${server.origin}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${alice}`, 'mcp-session-id': a[1]!.id!, 'mcp-protocol-version': '2025-06-18' } });
      expect((await openRawSession(server.origin, carol)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

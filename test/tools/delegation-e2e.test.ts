import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
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
import { startIdp, TOKEN_EXCHANGE_GRANT, type TestIdp } from '../support/idp.ts';
import { MemoryOAuthClientProvider, startRedirectReceiver, type RedirectReceiver } from '../support/mcp-oauth-client.ts';
import { restCall, startServe } from './support.ts';

/** The graph service runs on its own, as its own resource: it accepts only tokens for this audience. */
const GRAPH_AUDIENCE = 'https://graph.toolgraph.test';
const PROXY_CLIENT_ID = 'toolgraph-proxy';
const PROXY_CLIENT_SECRET = `proxy-secret-${crypto.randomUUID()}`;
const CYPHER = { name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: 'MATCH (o:Organization) RETURN count(*) AS n' } };

let idp: TestIdp;
let graph: RunningToolgraph;
let tools: RunningToolgraph;
let receiver: RedirectReceiver;
let graphLines: string[];
let toolLines: string[];
let auditFile: string;
let api: Server;
const apiSeen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  idp = await startIdp({ registeredAudiences: [GRAPH_AUDIENCE] });
  const graphLog = captureLogger('trace');
  graphLines = graphLog.lines;
  graph = await startServe({ only: ['graph'], logger: graphLog.logger, env: { AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl, TOKEN_AUDIENCE: GRAPH_AUDIENCE, LOG_LEVEL: 'trace' } });
  const state = mkdtempSync(join(tmpdir(), 'tg-delegation-'));
  auditFile = join(state, 'audit.jsonl');
  // A REST API that takes only its API key pair (identity passthrough).
  api = createServer((req, res) => {
    apiSeen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const toolLog = captureLogger('trace');
  toolLines = toolLog.lines;
  tools = await startServe({
    only: ['tools'],
    logger: toolLog.logger,
    env: {
      AUTH_TYPE: 'oidc-proxy', OIDC_CONFIG_URL: idp.discoveryUrl, OIDC_CLIENT_ID: PROXY_CLIENT_ID, OIDC_CLIENT_SECRET: PROXY_CLIENT_SECRET,
      ENABLE_DELEGATION: 'true', AUDIENCE: GRAPH_AUDIENCE, DELEGATED_SCOPES: 'kg:read', TOOLGRAPH_STATE_DIR: state, TOOLGRAPH_AUDIT_LOG: join(state, 'audit.jsonl'),
      TOOLGRAPH_AGENT_GRAPH_URL: graph.origin, LOG_LEVEL: 'trace',
      TOOLGRAPH_AGENT_TRACES_URL: `http://127.0.0.1:${(api.address() as AddressInfo).port}`, TOOLGRAPH_AGENT_TRACES_PUBLIC_KEY: 'pk-traces', TOOLGRAPH_AGENT_TRACES_SECRET_KEY: 'sk-traces-0123456789',
    },
  });
  // One client at the IdP for the proxy's sign-ins and for the token exchange.
  const adapter = (idp.provider as unknown as { Client: { adapter: { upsert(id: string, payload: Record<string, unknown>): Promise<void> } } }).Client.adapter;
  await adapter.upsert(PROXY_CLIENT_ID, {
    client_id: PROXY_CLIENT_ID,
    client_secret: PROXY_CLIENT_SECRET,
    grant_types: ['authorization_code', 'refresh_token', TOKEN_EXCHANGE_GRANT],
    response_types: ['code'],
    redirect_uris: [`${tools.origin}/oauth/callback`],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'openid email offline_access api kg:read kg:write kg:admin query:graphql',
  });
  receiver = await startRedirectReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await tools?.close();
  await new Promise<void>((resolve) => api?.close(() => resolve()));
  await graph?.close();
  await idp?.close();
});

describe('--auth-type oidc-proxy --enable-delegation: a signed-in client\'s graph call reaches the graph service with a delegated token for the graph\'s audience', () => {
  it('signs in through the proxy, and the graph tool exchanges the caller\'s token once (RFC 8693), then reuses it', async () => {
    const provider = new MemoryOAuthClientProvider(receiver.url);
    await expect(new Client({ name: 'e2e', version: '1' }).connect(new StreamableHTTPClientTransport(new URL(`${tools.origin}/mcp`), { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
    await new Browser().visit(provider.authorizationUrl!.href);
    await new StreamableHTTPClientTransport(new URL(`${tools.origin}/mcp`), { authProvider: provider }).finishAuth(receiver.received.at(-1)!.get('code')!);
    const callerToken = provider.tokens()!.access_token;
    expect(decodeJwt(callerToken).aud).toBe(tools.origin);

    // The caller's own token is not one the graph service accepts: it was issued for the tool server.
    const direct = await fetch(`${graph.origin}/dispatch`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${callerToken}` }, body: JSON.stringify({ id: 1, graph: 'demo', method: { Cypher: { query: 'RETURN 1 AS one' } } }) });
    expect(direct.status).toBe(401);
    expect(((await direct.json()) as { error: { details: { reason: string } } }).error.details.reason).toBe('audience');

    const client = new Client({ name: 'e2e', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${tools.origin}/mcp`), { authProvider: provider }));
    const before = idp.tokenExchanges();
    const first = await client.callTool(CYPHER);
    expect(first.structuredContent, JSON.stringify(first)).toEqual({ columns: ['n'], rows: [[8]], version: 3 });
    expect((await client.callTool(CYPHER)).structuredContent).toEqual({ columns: ['n'], rows: [[8]], version: 3 });
    // The REST endpoint: the tool server reads the caller's context from the request (requireBearer
    // binds it there, entering no AsyncLocalStorage scope), so the same cached delegation serves it.
    const rest = await restCall(tools.origin, CYPHER, { authorization: `Bearer ${callerToken}` });
    const restResult = (await rest.json()) as { structuredContent?: unknown };
    expect(restResult.structuredContent, JSON.stringify(restResult)).toEqual({ columns: ['n'], rows: [[8]], version: 3 });
    expect(idp.tokenExchanges() - before).toBe(1);
    expect(toolLines.some((l) => l.includes('"credential":"bearer:delegation"'))).toBe(true);
    // The graph service verified a token for its own audience and served it (its log has the dispatch, no refusal).
    expect(graphLines.filter((l) => l.includes('"msg":"dispatch"') && l.includes('"outcome":"ok"')).length).toBe(3);

    // An API-key agent gets its keys, never a token, and the caller's SSO identity goes to the audit log.
    expect((await client.callTool({ name: 'traces', arguments: { action: 'get', path: '/v1/list' } })).structuredContent).toEqual({ status: 200, content_type: 'application/json', body: { ok: true } });
    expect(apiSeen.at(-1)!.authorization).toBe(`Basic ${Buffer.from('pk-traces:sk-traces-0123456789').toString('base64')}`);
    const audit = readFileSync(auditFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(audit.at(-1)).toMatchObject({ agent: 'traces', operation: 'traces.get' });
    expect(JSON.stringify(audit.at(-1))).toContain('interactive-user');
    expect(readFileSync(auditFile, 'utf8')).not.toContain(callerToken.split('.')[1]!);
    await client.close();
  });
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Browser } from '../support/browser.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { MemoryOAuthClientProvider, startRedirectReceiver, type RedirectReceiver } from '../support/mcp-oauth-client.ts';
import { ensureDist } from './support/dist.ts';
import { startNginx, type RunningNginx } from './support/nginx.ts';
import { replicaSuite, testDatabaseUrl } from './support/prerequisites.ts';
import { freePort, freshSchema, Replica } from './support/replicas.ts';

const suite = replicaSuite('The replica suite load-balanced-sign-in (two replicas over PostgreSQL behind nginx)', { postgres: true, nginx: true });

/**
 * Two `toolgraph serve` replicas (dist/) over one PostgreSQL schema, behind nginx as a plain
 * round-robin load balancer (no sticky sessions), AUTH_TYPE=oidc-proxy in front of the test IdP.
 * nginx logs which replica answered each request, so the tests see every step land elsewhere.
 */
const PROXY_CLIENT_ID = 'toolgraph-replicas';
const PROXY_CLIENT_SECRET = `proxy-secret-${crypto.randomUUID()}`;
const CYPHER = { name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: 'MATCH (o:Organization) RETURN count(*) AS n' } };

interface ClientAdapter { upsert(id: string, payload: Record<string, unknown>): Promise<void> }

let idp: TestIdp;
let receiver: RedirectReceiver;
let nginx: RunningNginx;
let lb: string;
let replicas: Replica[] = [];
let dropSchema: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  const script = await ensureDist();
  idp = await startIdp();
  receiver = await startRedirectReceiver();
  const schema = await freshSchema();
  dropSchema = schema.drop;
  const lbPort = await freePort();
  lb = `http://127.0.0.1:${lbPort}`;
  // The IdP knows the proxy as one client whose callback is on the load balancer's address.
  const adapter = (idp.provider as unknown as { Client: { adapter: ClientAdapter } }).Client.adapter;
  await adapter.upsert(PROXY_CLIENT_ID, {
    client_id: PROXY_CLIENT_ID, client_secret: PROXY_CLIENT_SECRET, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
    redirect_uris: [`${lb}/oauth/callback`], token_endpoint_auth_method: 'client_secret_basic', scope: 'openid email offline_access api kg:read kg:write kg:admin query:graphql',
  });
  const env = {
    AUTH_TYPE: 'oidc-proxy', OIDC_CONFIG_URL: idp.discoveryUrl, OIDC_CLIENT_ID: PROXY_CLIENT_ID, OIDC_CLIENT_SECRET: PROXY_CLIENT_SECRET,
    TOOLGRAPH_PUBLIC_URL: lb, TOOLGRAPH_PERSISTENCE: 'postgres', DATABASE_URL: testDatabaseUrl(), TOOLGRAPH_DATABASE_SCHEMA: schema.name, LOG_LEVEL: 'info', TOOLGRAPH_SHUTDOWN_GRACE_SECS: '1',
  };
  const ports = await Promise.all([freePort(), freePort()]);
  replicas = ports.map((port, i) => new Replica(`replica-${i + 1}`, script, port, env));
  // One at a time: the first seeds the demo graph.
  for (const replica of replicas) await replica.start();
  nginx = await startNginx((dir) => `
  log_format replicas '$request_method $uri $status $upstream_addr';
  upstream toolgraph {
${ports.map((port) => `    server 127.0.0.1:${port} max_fails=1 fail_timeout=1s;`).join('\n')}
  }
  server {
    listen 127.0.0.1:${lbPort};
    access_log ${dir}/replicas.log replicas;
    location / {
      proxy_pass http://toolgraph;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header Connection "";
      proxy_buffering off;
      add_header X-Upstream $upstream_addr always;
    }
  }`, [lbPort]);
}, 240_000);

afterAll(async () => {
  // The replicas' logs, for a failure's post-mortem (CI keeps .tmp/).
  mkdirSync('.tmp', { recursive: true });
  for (const replica of replicas) writeFileSync(`.tmp/load-balanced-sign-in.${replica.name}.log`, replica.lines.join('\n'));
  await nginx?.stop();
  await Promise.all(replicas.map((r) => r.dispose()));
  await receiver?.close();
  await idp?.close();
  await dropSchema();
});

/** Which replica (port) nginx sent each request of `path` to, in order, from its log. */
function upstreamsOf(path: string | RegExp): string[] {
  return nginx.log('replicas.log').split('\n').filter(Boolean).map((line) => line.split(' '))
    .filter(([, uri]) => (typeof path === 'string' ? uri === path : path.test(uri!))).map((fields) => fields[3]!);
}

/** Every replica stops (SIGTERM) and starts again: no state survives in any process. */
async function restartAll(): Promise<void> {
  await Promise.all(replicas.map((replica) => replica.stop()));
  await Promise.all(replicas.map((replica) => replica.start()));
}

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0]!.text);
}

suite('two replicas behind a round-robin load balancer', () => {
  it('spreads consecutive requests over every replica', async () => {
    const answered: string[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await fetch(`${lb}/healthz`);
      expect(response.status).toBe(200);
      answered.push(response.headers.get('x-upstream')!);
    }
    expect(new Set(answered).size).toBe(2);
    // Strictly alternating: round robin, no stickiness.
    expect(answered.every((upstream, i) => i === 0 || upstream !== answered[i - 1])).toBe(true);
  });

  it('the MCP SDK client signs in through oidc-proxy and calls tools, its steps and requests landing on different replicas', async () => {
    const provider = new MemoryOAuthClientProvider(receiver.url);
    const first = new Client({ name: 'replicas-test', version: '1' });
    await expect(first.connect(new StreamableHTTPClientTransport(new URL(`${lb}/mcp`), { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
    const visit = await new Browser().visit(provider.authorizationUrl!.href);
    expect(visit.url.startsWith(receiver.url), visit.steps.map((s) => `${s.method} ${s.url} ${s.status}`).join('\n')).toBe(true);
    const answer = receiver.received.at(-1)!;
    expect(answer.get('error')).toBeNull();
    await new StreamableHTTPClientTransport(new URL(`${lb}/mcp`), { authProvider: provider }).finishAuth(answer.get('code')!);
    const client = new Client({ name: 'replicas-test', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${lb}/mcp`), { authProvider: provider });
    await client.connect(transport);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('graph');
    for (let i = 0; i < 3; i++) expect(JSON.parse(textOf(await client.callTool(CYPHER)))).toMatchObject({ columns: ['n'], rows: [[expect.any(Number)]] });
    // Registration, consent page, consent, callback and token: the sign-in crossed replicas.
    const signInSteps = ['/register', '/authorize', '/oauth/consent', '/oauth/callback', '/token'].flatMap((path) => upstreamsOf(path));
    expect(new Set(signInSteps).size).toBeGreaterThanOrEqual(2);
    // One MCP session, its requests served by both replicas.
    expect(new Set(upstreamsOf('/mcp')).size).toBe(2);
    await client.close();
  });

  it('a restart of every replica in the middle of a sign-in and of an MCP session loses neither', async () => {
    const provider = new MemoryOAuthClientProvider(receiver.url);
    await expect(new Client({ name: 'restart-test', version: '1' }).connect(new StreamableHTTPClientTransport(new URL(`${lb}/mcp`), { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
    // Registered, consent page shown (its state crossed replicas in the test before).
    const consent = await fetch(provider.authorizationUrl!.href, { redirect: 'manual' });
    expect(consent.status).toBe(200);
    const cookie = consent.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const html = await consent.text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)![1]!;
    const approved = await fetch(`${lb}/oauth/consent`, {
      method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ transaction: field('transaction'), csrf: field('csrf'), decision: 'approve' }),
    });
    expect(approved.status).toBe(302);
    const atIdp = approved.headers.get('location')!;
    expect(atIdp.startsWith(idp.issuer)).toBe(true);
    // The replicas restart again while the user is away at the IdP; its callback lands after.
    await restartAll();
    const visit = await new Browser().visit(atIdp);
    expect(visit.url.startsWith(receiver.url), visit.steps.map((s) => `${s.method} ${s.url} ${s.status}`).join('\n')).toBe(true);
    const code = receiver.received.at(-1)!.get('code')!;
    await new StreamableHTTPClientTransport(new URL(`${lb}/mcp`), { authProvider: provider }).finishAuth(code);
    const refresh = provider.tokens()!.refresh_token!;
    expect(refresh).toBeTruthy();

    const client = new Client({ name: 'restart-test', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${lb}/mcp`), { authProvider: provider });
    await client.connect(transport);
    const session = transport.sessionId;
    expect(JSON.parse(textOf(await client.callTool(CYPHER)))).toMatchObject({ columns: ['n'], rows: [[expect.any(Number)]] });
    await restartAll();
    // The same session, after every process it touched has gone.
    expect(JSON.parse(textOf(await client.callTool(CYPHER)))).toMatchObject({ columns: ['n'], rows: [[expect.any(Number)]] });
    expect(transport.sessionId).toBe(session);
    // The refresh token is still this client's (ownership lives in the store too).
    const info = provider.clientInformation() as { client_id: string; client_secret: string };
    const renewed = await fetch(`${lb}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh, client_id: info.client_id, client_secret: info.client_secret }) });
    expect(renewed.status, await renewed.clone().text()).toBe(200);
    await client.close();
  }, 120_000);
});

import { mkdirSync, writeFileSync } from 'node:fs';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { modernMcpClient, modernRequest } from '../support/modern-mcp-client.ts';
import { until } from '../support/until.ts';
import { ensureDist } from './support/dist.ts';
import { startNginx, type RunningNginx } from './support/nginx.ts';
import { replicaSuite, testDatabaseUrl } from './support/prerequisites.ts';
import { freePort, freshSchema, Replica } from './support/replicas.ts';

const suite = replicaSuite('The replica suite mcp-revisions-replicas (both MCP revisions through two replicas over PostgreSQL behind nginx)', { postgres: true, nginx: true });

/**
 * Issue 25's "Done when": two `toolgraph serve` replicas (dist/) over one PostgreSQL schema, behind
 * nginx as a plain round-robin load balancer (no stickiness), AUTH_TYPE=jwt against the test IdP.
 * The official SDK 2.x client (revision 2026-07-28, stateless) and SDK 1.x client (2025-11-25, a
 * session in the shared store) each list the tools, call search_tools and run a persisted document.
 * nginx logs, per request, the replica that answered, the revision and method headers and the
 * Mcp-Session-Id sent and answered, so the tests see the requests spread over both replicas; the
 * store's own table shows which revision left a session record.
 */
const PERSISTED = 'persisted-personpage';
/** The state store's space of the MCP session table (src/tools/stored-mcp-sessions.ts). */
const MCP_SESSION_SPACE = 'mcp-sessions';

let idp: TestIdp;
let nginx: RunningNginx;
let lb: string;
let token: string;
let schemaName: string;
let replicas: Replica[] = [];
let dropSchema: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  const script = await ensureDist();
  idp = await startIdp();
  const schema = await freshSchema();
  schemaName = schema.name;
  dropSchema = schema.drop;
  const lbPort = await freePort();
  lb = `http://127.0.0.1:${lbPort}`;
  const env = {
    AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl,
    TOOLGRAPH_PUBLIC_URL: lb, TOOLGRAPH_PERSISTENCE: 'postgres', DATABASE_URL: testDatabaseUrl(), TOOLGRAPH_DATABASE_SCHEMA: schema.name,
    LOG_LEVEL: 'info', TOOLGRAPH_SHUTDOWN_GRACE_SECS: '1',
  };
  const ports = await Promise.all([freePort(), freePort()]);
  replicas = ports.map((port, i) => new Replica(`replica-${i + 1}`, script, port, env));
  // One at a time: the first seeds the demo graph.
  for (const replica of replicas) await replica.start();
  nginx = await startNginx((dir) => `
  log_format mcp '$request_method|$uri|$status|$upstream_addr|$http_mcp_protocol_version|$http_mcp_method|$http_mcp_session_id|$sent_http_mcp_session_id';
  upstream toolgraph {
${ports.map((port) => `    server 127.0.0.1:${port} max_fails=1 fail_timeout=1s;`).join('\n')}
  }
  server {
    listen 127.0.0.1:${lbPort};
    access_log ${dir}/replicas.log mcp;
    location / {
      proxy_pass http://toolgraph;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header Connection "";
      proxy_buffering off;
    }
  }`, [lbPort]);
  token = await idp.mintToken({ sub: 'alice', scope: 'kg:read', audience: lb });
  // Each replica lists the operation tools once its catalogue has settled (asked directly, not through nginx).
  for (const replica of replicas) {
    await until(`${replica.name} lists ${PERSISTED}`, async () => {
      const listed = await (await modernRequest(replica.origin, 'tools/list', {}, { authorization: `Bearer ${token}` })).text();
      if (listed.includes(`"name":"${PERSISTED}"`)) return true;
      await new Promise((r) => setTimeout(r, 200));
      return false;
    }, 30_000);
  }
}, 240_000);

afterAll(async () => {
  // The replicas' logs and nginx's, for a failure's post-mortem (CI keeps .tmp/).
  mkdirSync('.tmp', { recursive: true });
  for (const replica of replicas) writeFileSync(`.tmp/mcp-revisions-replicas.${replica.name}.log`, replica.lines.join('\n'));
  if (nginx) writeFileSync('.tmp/mcp-revisions-replicas.nginx.log', nginx.log('replicas.log'));
  await nginx?.stop();
  await Promise.all(replicas.map((r) => r.dispose()));
  await idp?.close();
  await dropSchema();
});

interface Logged { method: string; uri: string; status: string; upstream: string; revision: string; mcpMethod: string; sessionSent: string; sessionAnswered: string }

/** nginx's log of /mcp requests, from line `from` on. */
function mcpRequests(from = 0): Logged[] {
  return nginx.log('replicas.log').split('\n').filter(Boolean).slice(from).map((line) => {
    const [method, uri, status, upstream, revision, mcpMethod, sessionSent, sessionAnswered] = line.split('|') as [string, string, string, string, string, string, string, string];
    return { method, uri, status, upstream, revision, mcpMethod, sessionSent, sessionAnswered };
  }).filter((r) => r.uri === '/mcp');
}

const logLength = () => nginx.log('replicas.log').split('\n').filter(Boolean).length;

/** How many requests each replica (its port) answered. */
function perReplica(requests: readonly Logged[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of requests) counts[r.upstream] = (counts[r.upstream] ?? 0) + 1;
  return counts;
}

/** The MCP session records in the shared store, read from PostgreSQL itself: [key, stored session ids]. */
async function sessionRecords(): Promise<[string, string[]][]> {
  const client = new pg.Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    const table = `"${schemaName}"."toolgraph_state"`;
    const exists = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [table]);
    if (exists.rows[0]?.t == null) return [];
    const { rows } = await client.query<{ key: string; value: { rows?: [string, ...unknown[]][] } }>(`SELECT key, value FROM ${table} WHERE space = $1 ORDER BY key`, [MCP_SESSION_SPACE]);
    return rows.map((r) => [r.key, (r.value.rows ?? []).map(([id]) => id)]);
  } finally {
    await client.end();
  }
}

interface Found { tools: { name: string }[] }
interface Page { data: { PersonConnection: { edges: { node: { name: string } }[] } } }

/** What both clients do: list the tools, search them and run the persisted document, `rounds` times. */
async function exercise(client: Pick<ModernClient, 'listTools' | 'callTool'> | Client, rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['graph', 'search_tools', PERSISTED]));
    const found = await client.callTool({ name: 'search_tools', arguments: { query: 'person page' } });
    expect(found.isError).toBeFalsy();
    expect((found.structuredContent as Found).tools[0]?.name).toBe(PERSISTED);
    const page = await client.callTool({ name: PERSISTED, arguments: { first: 2 } });
    expect(page.isError, JSON.stringify(page)).toBeFalsy();
    expect((page.structuredContent as Page).data.PersonConnection.edges.map((e) => e.node.name)).toEqual(['Ada Lovelace', 'Grace Hopper']);
  }
}

suite('both MCP revisions through two replicas behind a round-robin load balancer', () => {
  it('2026-07-28 (SDK 2.x client): lists tools, searches them and runs a persisted document, its requests on both replicas, with no session anywhere', async () => {
    const from = logLength();
    const client = await modernMcpClient(lb, { token });
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      await exercise(client, 3);
    } finally {
      await client.close();
    }
    // nginx logs a request once it has sent the answer: the last line may trail the client's return by a moment.
    await until('nginx logged the six calls', () => mcpRequests(from).filter((r) => r.mcpMethod === 'tools/call').length >= 6, 5_000);
    const requests = mcpRequests(from);
    console.log(`2026-07-28 requests per replica: ${JSON.stringify(perReplica(requests))}`);
    // Every request said its revision, and nothing carried or answered a session id.
    expect(requests.every((r) => r.revision === '2026-07-28' && r.status === '200')).toBe(true);
    expect(requests.every((r) => r.sessionSent === '-' && r.sessionAnswered === '-')).toBe(true);
    // server/discover and tools/list once each (the client keeps the list for the ttlMs it was given), then every call.
    const methods = requests.map((r) => r.mcpMethod);
    expect(methods.filter((m) => m === 'tools/list')).toHaveLength(1);
    expect(methods.filter((m) => m === 'tools/call')).toHaveLength(6);
    // Spread: both replicas answered, the calls alternating between them.
    expect(Object.keys(perReplica(requests))).toHaveLength(2);
    const calls = requests.filter((r) => r.mcpMethod === 'tools/call').map((r) => r.upstream);
    expect(calls.every((upstream, i) => i === 0 || upstream !== calls[i - 1])).toBe(true);
    // The store holds no MCP session record: the 2026 requests wrote none.
    expect(await sessionRecords()).toEqual([]);
  });

  it('2025-11-25 (SDK 1.x client): the same over one stored session whose requests both replicas serve; the store holds that session only', async () => {
    const from = logLength();
    const transport = new StreamableHTTPClientTransport(new URL(`${lb}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const client = new Client({ name: 'replicas-test', version: '1.0.0' });
    await client.connect(transport);
    const session = transport.sessionId!;
    try {
      expect(session).toMatch(/^[0-9a-f-]{36}$/);
      expect(transport.protocolVersion).toBe('2025-11-25');
      await exercise(client, 3);
    } finally {
      await client.close();
    }
    // initialize, notifications/initialized, then three rounds of three requests.
    await until('nginx logged every POST of the session', () => mcpRequests(from).filter((r) => r.method === 'POST').length >= 11, 5_000);
    const requests = mcpRequests(from).filter((r) => r.method === 'POST');
    console.log(`2025-11-25 requests per replica: ${JSON.stringify(perReplica(requests))}`);
    // initialize answered the session id; every later request carried it and said its revision.
    expect(requests[0]).toMatchObject({ sessionSent: '-', sessionAnswered: session });
    const inSession = requests.slice(1);
    expect(inSession).toHaveLength(10);
    expect(inSession.every((r) => r.sessionSent === session && r.revision === '2025-11-25')).toBe(true);
    expect(Object.keys(perReplica(inSession))).toHaveLength(2);
    // The positive control of the test before: the one session record holds this session, and only it.
    expect(await sessionRecords()).toEqual([['table', [session]]]);
  });

  it('2026-07-28 requests beside a live 2025 session leave the session record as it was', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${lb}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const legacy = new Client({ name: 'replicas-test', version: '1.0.0' });
    await legacy.connect(transport);
    try {
      const before = await sessionRecords();
      expect(before).toHaveLength(1);
      expect(before[0]![1]).toContain(transport.sessionId);
      const from = logLength();
      const modern = await modernMcpClient(lb, { token });
      try {
        await exercise(modern, 2);
      } finally {
        await modern.close();
      }
      expect(Object.keys(perReplica(mcpRequests(from)))).toHaveLength(2);
      expect(await sessionRecords()).toEqual(before);
      // The 2025 session still works on either replica afterwards.
      await exercise(legacy, 1);
    } finally {
      await legacy.close();
    }
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index.ts';
import { signEnvelope } from '../../src/graph/carrier/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { startToolgraph, type RunningToolgraph } from '../../src/serve/index.ts';
import { generateSigner } from '../graph/carrier/carrier-fixture.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { scrape, type Scrape } from '../support/scrape.ts';
import { SseClient } from '../support/sse-client.ts';
import { freePort } from '../support/free-port.ts';

// Names that must never reach a metric unless the operator opts in: a graph, a subject.
const TENANT_GRAPH = 'tenantQuokka77';
const SUBJECT = 'metrics-subject-okapi';

let idp: TestIdp;
let running: RunningToolgraph;
let carrierPort: number;
let metricsPort: number;
let privateKey: CryptoKey;
const tokens: string[] = [];

beforeAll(async () => {
  idp = await startIdp();
  const dir = mkdtempSync(join(tmpdir(), 'tg-metrics-'));
  const signer = await generateSigner();
  privateKey = signer.privateKey;
  writeFileSync(join(dir, 'jwks.json'), JSON.stringify(signer.jwks));
  carrierPort = await freePort();
  metricsPort = await freePort();
  running = await startToolgraph({
    config: resolveConfig({ env: {
      HOME: mkdtempSync(join(tmpdir(), 'tg-home-')), PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory',
      AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl, OIDC_CLIENT_ID: idp.clientId, OIDC_CLIENT_SECRET: idp.clientSecret,
      // Delegation on: the graph tool exchanges the caller's token for one per action (AUDIENCE names some other API).
      ENABLE_DELEGATION: 'true', AUDIENCE: 'https://api.elsewhere.test', TOOLGRAPH_STATE_DIR: dir, TOOLGRAPH_AUDIT_LOG: join(dir, 'audit.jsonl'),
      SERVICE_GRAPHQL_ADDR: `127.0.0.1:${carrierPort}`, SERVICE_GRAPHQL_SIGNER_JWKS: join(dir, 'jwks.json'),
      TOOLGRAPH_METRICS_LISTEN: `127.0.0.1:${metricsPort}`,
      TOOLGRAPH_QUERY_MAX_ROWS: '10',
    } }),
    logger: silentLogger(),
  });
  await running.engine!.createGraph(TENANT_GRAPH);
});
afterAll(async () => {
  await running?.close();
  await idp?.close();
});

async function token(scope: string): Promise<string> {
  const minted = await idp.mintToken({ sub: SUBJECT, scope, audience: running.origin });
  tokens.push(minted);
  return minted;
}

async function post(path: string, body: unknown, bearer?: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${running.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }) },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const adminScrape = async (): Promise<Scrape> => scrape(`${running.origin}/metrics`, { authorization: `Bearer ${await token('kg:admin')}` });

/** A GET with a Host header of our choosing (fetch does not let one set it). */
function getWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('/metrics end to end, under AUTH_TYPE=jwt, every surface', () => {
  it('counts requests, refusals and budget refusals per surface by outcome code, and reads the engine, caches, exchanges and carrier', async () => {
    const reader = await token('kg:read');
    const before = await adminScrape();

    // dispatch: one answer, one budget refusal (10 rows), one request without a token.
    expect((await post('/dispatch', { id: 1, graph: 'demo', method: { Cypher: { query: 'RETURN 1 AS one' } } }, reader)).json).toHaveProperty('result');
    const overBudget = await post('/dispatch', { id: 2, graph: 'demo', method: { Cypher: { query: 'MATCH (n) RETURN n' } } }, reader);
    expect(overBudget.json).toMatchObject({ error: { code: 'TG_QUERY_BUDGET_EXCEEDED', details: { limit: 'maxRows' } } });
    expect((await post('/dispatch', { id: 3, graph: 'demo', method: { Cypher: { query: 'RETURN 1' } } })).status).toBe(401);
    await post('/dispatch', { id: 4, graph: TENANT_GRAPH, method: { Cypher: { query: 'MATCH (n) RETURN count(n) AS n' } } }, reader);

    // graphql: one answer, one refusal before execution (too deep), one budget refusal while running.
    expect((await post('/graphql/demo', { query: '{ Organization(first: 1) { name } }' }, reader)).status).toBe(200);
    const deep = await post('/graphql/demo', { query: `{ Person(first: 1) { ${'knows { '.repeat(30)}id${' }'.repeat(30)} } }` }, reader);
    const [first] = deep.json['errors'] as { extensions: { code: string; details: { limit: string } } }[];
    expect(first!.extensions).toMatchObject({ code: 'TG_QUERY_TOO_COMPLEX', details: { limit: 'depth' } });
    const rows = await post('/graphql/demo', { query: '{ Person { name } }' }, reader);
    expect(rows.json).toMatchObject({ errors: [{ extensions: { code: 'TG_QUERY_BUDGET_EXCEEDED' } }] });
    const rowsLimit = (rows.json['errors'] as { extensions: { details: { limit: string } } }[])[0]!.extensions.details.limit;

    // catalogue: a search, a malformed digest.
    expect((await fetch(`${running.origin}/schemas/search?q=person`, { headers: { authorization: `Bearer ${reader}` } })).status).toBe(200);
    expect((await fetch(`${running.origin}/schemas/not-a-digest`, { headers: { authorization: `Bearer ${reader}` } })).status).toBe(400);

    // tools: the graph tool twice (one exchange, then the delegated-token cache), and a call that fails in its action.
    const call = (graph: string) => post('/mcp/tools/call', { name: 'graph', arguments: { action: 'query', graph, query: '{ Organization(first: 1) { name } }' } }, reader);
    const exchangesBefore = idp.exchanges.length;
    expect((await call('demo')).json).not.toHaveProperty('isError', true);
    expect((await call('demo')).json).not.toHaveProperty('isError', true);
    expect(idp.exchanges.length - exchangesBefore).toBe(1);
    const failed = await call('noSuchGraph');
    expect(failed.json).toHaveProperty('isError', true);

    // carrier: one stream opened (its initial frame), then the same signed request again (its nonce is spent).
    const signed = await signEnvelope({ key: privateKey, alg: 'EdDSA', kid: 'signer-1', graph: 'demo', query: 'subscription { Organization(first: 1) { name } }', subject: SUBJECT, scopes: ['kg:read'], groups: [] });
    const stream = new SseClient(`http://127.0.0.1:${carrierPort}`, signed.path, { ...signed.headers });
    await stream.opened();
    await stream.until((c) => c.events.length >= 1, 'initial frame');
    const refused = await fetch(`http://127.0.0.1:${carrierPort}${signed.path}`, { headers: { ...signed.headers } });
    expect(refused.status).toBe(401);

    const after = await adminScrape();
    const moved = (name: string, labels: Record<string, string> = {}) => after.value(name, labels) - before.value(name, labels);
    // RETURN 1, and the graph tool's two calls (it calls the local graph service's /dispatch).
    expect(moved('toolgraph_requests_total', { surface: 'dispatch', outcome: 'ok' })).toBe(3);
    // The graph no policy opens (hidden: not found), and the graph tool's call on a graph that does not exist.
    expect(moved('toolgraph_requests_total', { surface: 'dispatch', outcome: 'TG_GRAPH_NOT_FOUND' })).toBe(2);
    expect(moved('toolgraph_requests_total', { surface: 'dispatch', outcome: 'TG_QUERY_BUDGET_EXCEEDED' })).toBe(1);
    expect(moved('toolgraph_requests_total', { surface: 'dispatch', outcome: 'TG_UNAUTHENTICATED' })).toBe(1);
    expect(moved('toolgraph_requests_total', { surface: 'graphql', outcome: 'ok' })).toBe(1);
    expect(moved('toolgraph_requests_total', { surface: 'graphql', outcome: 'TG_QUERY_TOO_COMPLEX' })).toBe(1);
    expect(moved('toolgraph_budget_refusals_total', { surface: 'graphql', code: 'TG_QUERY_TOO_COMPLEX', limit: 'depth' })).toBe(1);
    expect(moved('toolgraph_request_duration_seconds', { surface: 'graphql', outcome: 'TG_QUERY_BUDGET_EXCEEDED' })).toBe(1);
    expect(moved('toolgraph_budget_refusals_total', { surface: 'dispatch', code: 'TG_QUERY_BUDGET_EXCEEDED', limit: 'maxRows' })).toBe(1);
    expect(moved('toolgraph_budget_refusals_total', { surface: 'graphql', code: 'TG_QUERY_BUDGET_EXCEEDED', limit: rowsLimit })).toBe(1);
    expect(moved('toolgraph_requests_total', { surface: 'catalogue', outcome: 'ok' })).toBe(1);
    expect(moved('toolgraph_requests_total', { surface: 'catalogue', outcome: 'TG_DIGEST_MALFORMED' })).toBe(1);
    expect(moved('toolgraph_requests_total', { surface: 'tools', outcome: 'ok' })).toBe(3);
    expect(moved('toolgraph_tool_calls_total', { outcome: 'ok' })).toBe(2);
    // The failed call counted under its code (the result carries only the message).
    const failedCalls = after.family('toolgraph_tool_calls_total').metrics.filter((m) => m.labels?.['outcome'] !== 'ok');
    expect(failedCalls.map((m) => [m.labels?.['outcome'], Number(m.value) - before.value('toolgraph_tool_calls_total', { outcome: m.labels!['outcome']! })])).toEqual([[expect.stringMatching(/^TG_[A-Z_]+$/), 1]]);
    expect(moved('toolgraph_tool_call_duration_seconds', { outcome: 'ok' })).toBe(2);
    expect(moved('toolgraph_requests_total', { surface: 'carrier', outcome: 'ok' })).toBe(1);
    expect(moved('toolgraph_requests_total', { surface: 'carrier', outcome: 'TG_NONCE_REPLAYED' })).toBe(1);
    expect(after.value('toolgraph_carrier_sessions')).toBe(1);
    expect(moved('toolgraph_carrier_sessions_opened_total')).toBe(1);
    expect(moved('toolgraph_carrier_frames_total')).toBeGreaterThanOrEqual(1);
    expect(moved('toolgraph_token_exchanges_total', { outcome: 'ok' })).toBe(1);
    expect(moved('toolgraph_delegated_token_cache_requests_total', { result: 'miss' })).toBe(1);
    expect(moved('toolgraph_delegated_token_cache_requests_total', { result: 'hit' })).toBeGreaterThanOrEqual(1);
    expect(moved('toolgraph_verified_token_cache_requests_total', { result: 'hit' })).toBeGreaterThan(0);
    expect(after.value('toolgraph_verified_token_cache_requests_total', { result: 'miss' })).toBeGreaterThan(0);
    // Engine gauges: sums over the graphs, no graph label.
    expect(after.value('toolgraph_graphs')).toBe(2);
    expect(after.value('toolgraph_graph_nodes')).toBe(running.engine!.listGraphs().reduce((n, g) => n + g.nodes, 0));
    expect(after.family('toolgraph_graph_nodes').metrics).toEqual([{ value: expect.any(String) }]);
    // The process's default metrics.
    for (const name of ['nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_gc_duration_seconds', 'process_cpu_user_seconds_total']) expect(after.families.has(name), name).toBe(true);
    // No graph name, subject or token anywhere in the text.
    for (const secret of [TENANT_GRAPH, 'demo', SUBJECT, ...tokens]) expect(after.text).not.toContain(secret);
    stream.close();
  });

  it('is 401 without a token and 403 without kg:admin', async () => {
    const anonymous = await fetch(`${running.origin}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const reader = await fetch(`${running.origin}/metrics`, { headers: { authorization: `Bearer ${await token('kg:read kg:write')}` } });
    expect(reader.status).toBe(403);
    expect(await reader.json()).toMatchObject({ error: { code: 'TG_INSUFFICIENT_SCOPE', details: { required: ['kg:admin', '*'] } } });
    expect(reader.headers.get('www-authenticate')).toMatch(/insufficient_scope/);
  });

  it('the loopback listener answers GET /metrics without a token, and nothing else', async () => {
    const origin = `http://127.0.0.1:${metricsPort}`;
    expect(running.services).toContainEqual({ name: 'metrics', url: `${origin}/metrics` });
    const open = await scrape(`${origin}/metrics`);
    expect(open.value('toolgraph_requests_total', { surface: 'dispatch', outcome: 'ok' })).toBeGreaterThanOrEqual(2);
    expect((await fetch(`${origin}/other`)).status).toBe(404);
    expect((await fetch(`${origin}/metrics`, { method: 'POST' })).status).toBe(405);
    // A page that rebinds a name of its own to 127.0.0.1 sends that name as Host: refused.
    expect(await getWithHost(`${origin}/metrics`, `attacker.example:${metricsPort}`)).toBe(403);
    expect(await getWithHost(`${origin}/metrics`, `localhost:${metricsPort}`)).toBe(200);
  });
});

describe('settings', () => {
  let other: RunningToolgraph | undefined;
  afterAll(async () => {
    await other?.close();
  });
  const start = (env: Record<string, string>) => startToolgraph({
    config: resolveConfig({ env: { HOME: mkdtempSync(join(tmpdir(), 'tg-home-')), PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory', ...env } }),
    logger: silentLogger(),
  });

  it('TOOLGRAPH_METRICS_GRAPH_LABELS=true labels the engine gauges by graph; a second server in the process counts on its own', async () => {
    other = await start({ TOOLGRAPH_METRICS_GRAPH_LABELS: 'true' });
    await other.engine!.createGraph(TENANT_GRAPH);
    const scraped = await scrape(`${other.origin}/metrics`);
    const demo = other.engine!.listGraphs().find((g) => g.name === 'demo')!;
    expect(scraped.value('toolgraph_graph_nodes', { graph: 'demo' })).toBe(demo.nodes);
    expect(scraped.value('toolgraph_graph_version', { graph: 'demo' })).toBe(demo.version);
    expect(scraped.sample('toolgraph_graph_edges', { graph: TENANT_GRAPH })).toEqual({ value: '0', labels: { graph: TENANT_GRAPH } });
    // Its own registry: the first server's requests are not here.
    expect(scraped.family('toolgraph_requests_total').metrics).toEqual([]);
    await other.close();
    other = undefined;
  });

  it('TOOLGRAPH_METRICS=false serves no /metrics', async () => {
    other = await start({ TOOLGRAPH_METRICS: 'false' });
    expect((await fetch(`${other.origin}/metrics`)).status).toBe(404);
    expect(other.services.map((s) => s.name)).not.toContain('metrics');
  });
});

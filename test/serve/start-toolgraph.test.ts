import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { parseServiceNames, startToolgraph, type RunningToolgraph } from '../../src/serve/index.ts';
import { FEATURES_NOT_IN_BUILD, refuseSettingsOfMissingFeatures, type MissingFeature } from '../../src/serve/features-not-in-build.ts';
import { publicBaseUrl, refuseUnsafeExposure } from '../../src/serve/exposure.ts';
import type { SettingName } from '../../src/config/index.ts';

function config(env: Record<string, string> = {}) {
  return resolveConfig({ env: { HOME: mkdtempSync(join(tmpdir(), 'tg-home-')), PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory', ...env } });
}

let running: RunningToolgraph | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function dispatchCypher(origin: string, graph: string, query: string): Promise<{ id: number; result?: { rows: unknown[][]; version: number }; error?: { code: string } }> {
  const response = await fetch(`${origin}/dispatch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 7, graph, method: { Cypher: { query } } }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as never;
}

interface SearchBody { results: { manifest: { operation: string; alias: string; manifest_uri: string } }[] }

describe('startToolgraph', () => {
  it('gives every query the execution budget of the query_* settings', async () => {
    running = await startToolgraph({ config: config({ TOOLGRAPH_QUERY_MAX_ROWS: '500' }), logger: silentLogger(), only: ['graph'] });
    const answer = await dispatchCypher(running.origin, 'demo', 'MATCH (a), (b) RETURN count(*)') as { error?: { code: string; details?: unknown } };
    expect(answer.error).toMatchObject({ code: 'TG_QUERY_BUDGET_EXCEEDED', details: { limit: 'maxRows', max: 500, setting: 'TOOLGRAPH_QUERY_MAX_ROWS' } });
  });

  it('caps every write, Cypher or GraphQL, by the write_* settings', async () => {
    // The smallest cap the setting takes: the reference graph still seeds, in batches that fit it.
    running = await startToolgraph({ config: config({ TOOLGRAPH_WRITE_MAX_CHANGES: '100', TOOLGRAPH_GRAPHQL_MAX_ALIASES: '100' }), logger: silentLogger(), only: ['graph'] });
    const cypher = await dispatchCypher(running.origin, 'demo', 'MATCH (a), (b) SET a.flag = true') as { error?: { code: string; details?: unknown } };
    expect(cypher.error).toMatchObject({ code: 'TG_WRITE_TOO_LARGE', details: { limit: 'maxChanges', max: 100, setting: 'TOOLGRAPH_WRITE_MAX_CHANGES' } });
    // Fifty-one new topics with a name each: 102 changes in one batch.
    const fields = Array.from({ length: 51 }, (_, i) => `t${i}: createNode(label: "Topic", props: {name: "t${i}"}) { id }`).join(' ');
    const response = await fetch(`${running.origin}/graphql/demo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `mutation { ${fields} }` }),
    });
    const body = (await response.json()) as { errors?: { extensions?: { code?: string; details?: unknown } }[] };
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'TG_WRITE_TOO_LARGE', details: expect.objectContaining({ limit: 'maxChanges', setting: 'TOOLGRAPH_WRITE_MAX_CHANGES' }) });
  });


  it('serves the seeded demo graph over /dispatch and its manifests over /schemas on one port', async () => {
    running = await startToolgraph({ config: config(), logger: silentLogger() });
    expect(running.services.map((s) => s.name)).toEqual(['graph', 'graphql', 'catalogue', 'tools', 'metrics']);
    const answer = await dispatchCypher(running.origin, 'demo', 'MATCH (o:Organization) RETURN count(*) AS n');
    expect(answer.result!.rows[0]![0]).toBeGreaterThan(0);

    const search = (await (await fetch(`${running.origin}/schemas/search?q=Organization`)).json()) as SearchBody;
    expect(search.results[0]!.manifest.operation).toBe('Organization');
    // Manifest URIs carry the bound origin when no public URL is configured.
    expect(search.results[0]!.manifest.manifest_uri.startsWith(`${running.origin}/schemas/`)).toBe(true);
    // OpenAPI operations come from the static catalogue built at codegen time.
    const openapi = (await (await fetch(`${running.origin}/schemas/search?q=searchSchemas`)).json()) as SearchBody;
    expect(openapi.results[0]!.manifest.operation).toBe('searchSchemas');
  });

  it('refuses a rebound Host on every service (DNS rebinding), and answers the public URL\'s host', async () => {
    running = await startToolgraph({ config: config({ TOOLGRAPH_PUBLIC_URL: 'https://graph.example.com' }), logger: silentLogger() });
    const { request } = await import('node:http');
    const url = new URL(running.origin);
    const status = (path: string, host: string) => new Promise<number>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path, method: 'GET', headers: { host } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
    for (const path of ['/dispatch', '/graphql/demo?query=%7B__typename%7D', '/schemas/search?q=x', '/mcp']) {
      expect(await status(path, `attacker.example:${url.port}`), path).toBe(403);
    }
    expect(await status('/graphql/demo?query=%7B__typename%7D', `localhost:${url.port}`)).toBe(200);
    expect(await status('/graphql/demo?query=%7B__typename%7D', 'graph.example.com')).toBe(200);
  });

  it('publishes callTool and the tool server\'s own actions, now that the tool server serves them', async () => {
    running = await startToolgraph({ config: config(), logger: silentLogger() });
    const search = (await (await fetch(`${running.origin}/schemas/search?q=callTool%20tool%20call&limit=100`)).json()) as SearchBody;
    expect(search.results.map((r) => r.manifest.operation)).toContain('callTool');
    const own = (await (await fetch(`${running.origin}/schemas/search?q=graph_cypher&limit=5`)).json()) as SearchBody;
    expect(own.results[0]!.manifest.alias).toBe('tools-graph_cypher');
    const call = await fetch(`${running.origin}/mcp/tools/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'schemas', arguments: { action: 'search', query: 'person' } }) });
    expect(call.status).toBe(200);
  });

  it('refuses MCP_TRANSPORT=stdio: serve is HTTP, the stdio tool server is toolgraph tools serve', async () => {
    await expect(startToolgraph({ config: config({ MCP_TRANSPORT: 'stdio' }), logger: silentLogger() })).rejects.toThrow('MCP_TRANSPORT stdio: serve runs every service over HTTP');
  });

  it('publishes a new label as a manifest once a write changes the graph catalogue', async () => {
    running = await startToolgraph({ config: config({ TOOLGRAPH_PUBLIC_URL: 'https://tools.example.test/base' }), logger: silentLogger() });
    const before = (await (await fetch(`${running.origin}/schemas/search?q=Spaceship`)).json()) as SearchBody;
    expect(before.results.filter((r) => r.manifest.operation === 'Spaceship')).toEqual([]);
    const created = await dispatchCypher(running.origin, 'demo', "CREATE (s:Spaceship {id: 'ship-1', name: 'Heart of Gold'}) RETURN s.name");
    expect(created.error).toBeUndefined();
    // The catalogue rebuilds off the commit path; settled() is the read-your-writes point.
    await running.settled();
    const after = (await (await fetch(`${running.origin}/schemas/search?q=Spaceship`)).json()) as SearchBody;
    const hit = after.results.find((r) => r.manifest.operation === 'Spaceship');
    expect(hit, JSON.stringify(after)).toBeDefined();
    expect(hit!.manifest.manifest_uri.startsWith('https://tools.example.test/base/schemas/')).toBe(true);
  });

  it('--only runs just the named services', async () => {
    running = await startToolgraph({ config: config(), logger: silentLogger(), only: parseServiceNames('catalogue') });
    expect(running.services.map((s) => s.name)).toEqual(['catalogue', 'metrics']);
    expect(running.engine).toBeUndefined();
    expect((await fetch(`${running.origin}/dispatch`, { method: 'POST' })).status).toBe(404);
    expect(parseServiceNames('graph,tools')).toEqual(['graph', 'tools']);
    expect(() => parseServiceNames('graph,mcp')).toThrow('--only: expected a comma-separated list of graph, catalogue, tools, got "mcp"');
  });


  it('names the address when the port is taken', async () => {
    running = await startToolgraph({ config: config(), logger: silentLogger(), only: ['catalogue'] });
    const port = new URL(running.origin).port;
    await expect(startToolgraph({ config: config({ PORT: port }), logger: silentLogger(), only: ['catalogue'] })).rejects.toThrow(`127.0.0.1:${port} is already in use`);
  });

  it('seeds demo only into a fresh file store, so dropping it is final', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tg-data-'));
    const cfg = config({ TOOLGRAPH_PERSISTENCE: 'file', TOOLGRAPH_DATA_DIR: dataDir });
    running = await startToolgraph({ config: cfg, logger: silentLogger(), only: ['graph'] });
    expect(running.engine!.listGraphs().map((g) => g.name)).toEqual(['demo']);
    await running.engine!.dropGraph('demo');
    await running.close();
    running = await startToolgraph({ config: cfg, logger: silentLogger(), only: ['graph'] });
    expect(running.engine!.listGraphs()).toEqual([]);
  });
});

describe('readiness while the engine recovers', () => {
  it('answers 503 starting (Retry-After) on /healthz and /dispatch until the services are mounted', async () => {
    const seen: { health: number; body: unknown; dispatch: number; retryAfter: string | null; code: unknown }[] = [];
    running = await startToolgraph({
      config: config(),
      logger: silentLogger(),
      async onListening(origin) {
        const health = await fetch(`${origin}/healthz`);
        const dispatch = await fetch(`${origin}/dispatch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":1,"graph":"demo","method":{"Cypher":{"query":"RETURN 1"}}}' });
        const answer = (await dispatch.json()) as { error: { code: string } };
        seen.push({ health: health.status, body: await health.json(), dispatch: dispatch.status, retryAfter: dispatch.headers.get('retry-after'), code: answer.error.code });
      },
    });
    expect(seen).toEqual([{
      health: 503,
      body: { status: 'starting', services: [], starting: ['graph', 'catalogue', 'tools'] },
      dispatch: 503,
      retryAfter: '1',
      code: 'TG_NOT_READY',
    }]);
    const ready = await fetch(`${running.origin}/healthz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', services: ['graph', 'graphql', 'catalogue', 'tools', 'metrics'] });
  });
});

describe('settings of features this build does not have', () => {
  // This build has every feature whose settings the spec lists (FEATURES_NOT_IN_BUILD has none with
  // settings), so the refusal is shown on a table of the same shape.
  const table: MissingFeature[] = [
    { feature: 'the SSE subscription carrier', settings: [{ name: 'graphqlAddr' }, { name: 'graphqlMaxConnections' }], operations: ['subscribeGraph'] },
    { feature: 'delegation', settings: [{ name: 'enableDelegation', offValue: false }], operations: [] },
  ];
  const configOf = (env: Record<string, string>, flags: Partial<Record<SettingName, string>> = {}) =>
    resolveConfig({ env: { HOME: mkdtempSync(join(tmpdir(), 'tg-home-')), PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory', ...env }, flags });

  it('this build refuses nothing: no missing feature has settings', () => {
    expect(FEATURES_NOT_IN_BUILD.flatMap((row) => row.settings)).toEqual([]);
  });

  it('refuses every set setting of a missing feature, naming each and where it came from', () => {
    expect(() => refuseSettingsOfMissingFeatures(configOf({ SERVICE_GRAPHQL_MAX_CONNECTIONS: '64' }, { graphqlAddr: 'on' }), table)).toThrow(
      'the SSE subscription carrier is not in this build, so SERVICE_GRAPHQL_ADDR (from flag --graphql-addr), SERVICE_GRAPHQL_MAX_CONNECTIONS (from env) would do nothing. Unset them to start.');
    expect(() => refuseSettingsOfMissingFeatures(configOf({ ENABLE_DELEGATION: 'true', AUDIENCE: 'api://downstream', OIDC_CONFIG_URL: 'https://idp.example.test/.well-known/openid-configuration' }), table))
      .toThrow(expect.objectContaining({ code: 'TG_CONFIG_INVALID', message: 'delegation is not in this build, so ENABLE_DELEGATION (from env) would do nothing. Unset it to start.' }));
  });

  it('accepts the off position of a switch and settings left at their defaults', () => {
    expect(() => refuseSettingsOfMissingFeatures(configOf({ ENABLE_DELEGATION: 'false' }), table)).not.toThrow();
    expect(() => refuseSettingsOfMissingFeatures(configOf({}), table)).not.toThrow();
  });
});

describe('exposure under AUTH_TYPE=none', () => {
  it.each(['0.0.0.0', '::', '192.0.2.10'])('refuses HOST %s, naming HOST and AUTH_TYPE', async (host) => {
    const attempt = startToolgraph({ config: config({ HOST: host }), logger: silentLogger(), only: ['catalogue'] });
    await expect(attempt).rejects.toMatchObject({ code: 'TG_CONFIG_INVALID' });
    await expect(attempt).rejects.toThrow(`HOST ${host} is not a loopback address, and AUTH_TYPE is none`);
  });

  it('checks every address a host name resolves to', async () => {
    const resolver = (async () => [{ address: '127.0.0.1', family: 4 }, { address: '10.1.2.3', family: 4 }]) as never;
    await expect(refuseUnsafeExposure({ host: 'intranet.example', authType: 'none' }, resolver)).rejects.toThrow('HOST intranet.example (127.0.0.1, 10.1.2.3) is not a loopback address');
    const loop = (async () => [{ address: '::1', family: 6 }, { address: '127.0.0.1', family: 4 }]) as never;
    await expect(refuseUnsafeExposure({ host: 'localhost', authType: 'none' }, loop)).resolves.toBeUndefined();
    await expect(refuseUnsafeExposure({ host: '127.0.0.2', authType: 'none' })).resolves.toBeUndefined();
    await expect(refuseUnsafeExposure({ host: '::1', authType: 'none' })).resolves.toBeUndefined();
  });

  it('never publishes an unspecified address in manifest URIs', () => {
    expect(publicBaseUrl('http://127.0.0.1:4000', undefined)).toBe('http://127.0.0.1:4000');
    expect(publicBaseUrl('http://0.0.0.0:4000', 'https://tools.example.test')).toBe('https://tools.example.test');
    expect(() => publicBaseUrl('http://0.0.0.0:4000', undefined)).toThrow('set TOOLGRAPH_PUBLIC_URL');
    expect(() => publicBaseUrl('http://[::]:4000', undefined)).toThrow('set TOOLGRAPH_PUBLIC_URL');
    expect(() => publicBaseUrl('http://127.0.0.1:4000', 'http://0.0.0.0:4000/')).toThrow('names the unspecified address');
    expect(() => publicBaseUrl('http://127.0.0.1:4000', 'http://[::]:4000/')).toThrow('names the unspecified address');
  });
});

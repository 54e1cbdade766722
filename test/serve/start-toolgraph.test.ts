import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { parseServiceNames, startToolgraph, type RunningToolgraph } from '../../src/serve/index.ts';

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
  it('serves the seeded demo graph over /dispatch and its manifests over /schemas on one port', async () => {
    running = await startToolgraph({ config: config(), logger: silentLogger() });
    expect(running.services.map((s) => s.name)).toEqual(['graph', 'catalogue']);
    const answer = await dispatchCypher(running.origin, 'demo', 'MATCH (o:Organization) RETURN count(*) AS n');
    expect(answer.result!.rows[0]![0]).toBeGreaterThan(0);

    const search = (await (await fetch(`${running.origin}/schemas/search?q=Organization`)).json()) as SearchBody;
    expect(search.results[0]!.manifest.operation).toBe('Organization');
    // Manifest URIs carry the bound origin when no public URL is configured.
    expect(search.results[0]!.manifest.manifest_uri.startsWith(`${running.origin}/schemas/`)).toBe(true);
    // OpenAPI operations come from the static catalogue built at codegen time.
    const openapi = (await (await fetch(`${running.origin}/schemas/search?q=callTool`)).json()) as SearchBody;
    expect(openapi.results[0]!.manifest.operation).toBe('callTool');
  });

  it('publishes a new label as a manifest once a write changes the graph catalogue', async () => {
    running = await startToolgraph({ config: config({ TOOLGRAPH_PUBLIC_URL: 'https://tools.example.test/base' }), logger: silentLogger() });
    const before = (await (await fetch(`${running.origin}/schemas/search?q=Spaceship`)).json()) as SearchBody;
    expect(before.results.filter((r) => r.manifest.operation === 'Spaceship')).toEqual([]);
    const created = await dispatchCypher(running.origin, 'demo', "CREATE (s:Spaceship {id: 'ship-1', name: 'Heart of Gold'}) RETURN s.name");
    expect(created.error).toBeUndefined();
    const after = (await (await fetch(`${running.origin}/schemas/search?q=Spaceship`)).json()) as SearchBody;
    const hit = after.results.find((r) => r.manifest.operation === 'Spaceship');
    expect(hit, JSON.stringify(after)).toBeDefined();
    expect(hit!.manifest.manifest_uri.startsWith('https://tools.example.test/base/schemas/')).toBe(true);
  });

  it('--only runs just the named services', async () => {
    running = await startToolgraph({ config: config(), logger: silentLogger(), only: parseServiceNames('catalogue') });
    expect(running.services.map((s) => s.name)).toEqual(['catalogue']);
    expect(running.engine).toBeUndefined();
    expect((await fetch(`${running.origin}/dispatch`, { method: 'POST' })).status).toBe(404);
    expect(() => parseServiceNames('graph,tools')).toThrow('--only: expected a comma-separated list of graph, catalogue, got "tools"');
  });

  it('refuses an auth type this build cannot enforce instead of serving unprotected', async () => {
    const cfg = config({ AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: 'http://127.0.0.1:9/.well-known/openid-configuration' });
    await expect(startToolgraph({ config: cfg, logger: silentLogger() })).rejects.toThrow('AUTH_TYPE jwt: this build serves only AUTH_TYPE=none');
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

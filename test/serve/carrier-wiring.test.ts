import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index.ts';
import { signEnvelope } from '../../src/graph/carrier/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { productCarrierPorts, startToolgraph, type RunningToolgraph } from '../../src/serve/index.ts';
import { SseClient } from '../support/sse-client.ts';
import { generateSigner } from '../graph/carrier/carrier-fixture.ts';
import { TEAM_POLICY, seedTeams } from '../graph/access/fixture.ts';
import { replaceAccessPolicy } from '../../src/graph/access/index.ts';
import { openEngine } from '../graph/engine/helpers.ts';
import { freePort } from '../support/free-port.ts';

function config(env: Record<string, string>) {
  return resolveConfig({ env: { HOME: mkdtempSync(join(tmpdir(), 'tg-home-')), PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory', ...env } });
}

let running: RunningToolgraph | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('the carrier in the composition root', () => {
  it('is off unless SERVICE_GRAPHQL_ADDR is set', async () => {
    running = await startToolgraph({ config: config({}), logger: silentLogger() });
    expect(running.services.map((s) => s.name)).toEqual(['graph', 'graphql', 'catalogue', 'tools', 'metrics']);
  });

  it('streams through the product ports: the GraphQL executor reading through the access module', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-carrier-'));
    const { privateKey, jwks } = await generateSigner();
    writeFileSync(join(dir, 'jwks.json'), JSON.stringify(jwks));
    const port = await freePort();
    running = await startToolgraph({
      config: config({ SERVICE_GRAPHQL_ADDR: `127.0.0.1:${port}`, SERVICE_GRAPHQL_SIGNER_JWKS: join(dir, 'jwks.json') }),
      logger: silentLogger(),
    });
    const engine = running.engine!;
    await seedTeams(engine, 'teams');
    await replaceAccessPolicy(engine, 'teams', TEAM_POLICY);
    const query = 'subscription { Document(first: 10) { id title } }';
    const subscribe = async (groups: string[]) => {
      const signed = await signEnvelope({ key: privateKey, alg: 'EdDSA', kid: 'signer-1', graph: 'teams', query, subject: `member of ${groups.join(',') || 'nothing'}`, scopes: ['kg:read'], groups });
      return new SseClient(`http://127.0.0.1:${port}`, signed.path, { ...signed.headers });
    };
    const red = await subscribe(['red']);
    await red.opened();
    await red.until((c) => c.events.length === 1, 'initial red frame');
    expect(red.frames()[0]).toEqual({ data: { Document: [{ id: 'd1', title: 'red one' }, { id: 'd3', title: 'red two' }, { id: 'd6', title: 'red three' }] } });
    // Nobody the read ACL does not name gets a stream: refused before any row is read.
    const outsider = await subscribe(['green']);
    await outsider.done;
    expect(outsider.status).toBe(403);
    // A change to a row red may not see makes no frame; a visible one does, and only that one.
    await engine.commit({ graph: 'teams', mutations: [{ op: 'updateNode', id: 'd2', set: { title: 'blue renamed' } }] });
    await engine.commit({ graph: 'teams', mutations: [{ op: 'updateNode', id: 'd3', set: { title: 'red renamed' } }] });
    await red.until((c) => c.events.length === 2, 'the frame of the visible change');
    expect(red.frames()[1]).toEqual({ data: { Document: [{ id: 'd1', title: 'red one' }, { id: 'd3', title: 'red renamed' }, { id: 'd6', title: 'red three' }] } });
    expect(red.events.map((e) => e.event)).toEqual(['next', 'next']);
    red.close();
  });

  it('refuses to start without trusted signer keys, and without the graph service, before taking the port or the store', async () => {
    // Even with the product's ports handed in, the carrier's settings are checked first.
    const engine = await openEngine();
    const ports = productCarrierPorts(engine, config({}).values);
    const port = await freePort();
    await expect(startToolgraph({ config: config({ SERVICE_GRAPHQL_ADDR: `127.0.0.1:${port}` }), logger: silentLogger(), carrierPorts: ports }))
      .rejects.toThrow('SERVICE_GRAPHQL_SIGNER_JWKS is required when SERVICE_GRAPHQL_ADDR is set');
    // A second serve on a store and port another process holds names the missing signers, not the lock.
    const home = mkdtempSync(join(tmpdir(), 'tg-home-'));
    const shared = (env: Record<string, string>) => resolveConfig({ env: { HOME: home, PORT: '0', TOOLGRAPH_PERSISTENCE: 'file', ...env } });
    running = await startToolgraph({ config: shared({}), logger: silentLogger(), only: ['graph'] });
    await expect(startToolgraph({ config: shared({ SERVICE_GRAPHQL_ADDR: 'on', PORT: new URL(running.origin).port }), logger: silentLogger() }))
      .rejects.toThrow('SERVICE_GRAPHQL_SIGNER_JWKS is required when SERVICE_GRAPHQL_ADDR is set');
    await expect(startToolgraph({ config: config({ SERVICE_GRAPHQL_ADDR: `127.0.0.1:${port}`, SERVICE_GRAPHQL_SIGNER_JWKS: '/x/jwks.json' }), logger: silentLogger(), carrierPorts: ports, only: ['catalogue'] }))
      .rejects.toThrow('include graph in --only');
    await engine.close();
  });

  it('streams the served graph on the configured loopback address, Cypher writes included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-carrier-'));
    const { privateKey, jwks } = await generateSigner();
    writeFileSync(join(dir, 'jwks.json'), JSON.stringify(jwks));
    const port = await freePort();
    running = await startToolgraph({
      config: config({ SERVICE_GRAPHQL_ADDR: `127.0.0.1:${port}`, SERVICE_GRAPHQL_SIGNER_JWKS: join(dir, 'jwks.json'), SERVICE_GRAPHQL_MAX_SESSION_SECS: '30' }),
      logger: silentLogger(),
    });
    expect(running.services.at(-1)).toEqual({ name: 'carrier', url: `http://127.0.0.1:${port}/graphql/subscribe` });
    const query = 'subscription { Organization(first: 1) { name } }';
    const signed = await signEnvelope({ key: privateKey, alg: 'EdDSA', kid: 'signer-1', graph: 'demo', query, subject: 'ada', scopes: ['query:graphql'] });
    const client = new SseClient(`http://127.0.0.1:${port}`, signed.path, { ...signed.headers });
    await client.opened();
    await client.until((c) => c.events.length === 1, 'initial');
    const first = client.frames()[0] as { data: { Organization: { name: string }[] } };
    expect(first.data.Organization).toHaveLength(1);
    const name = first.data.Organization[0]!.name;
    const write = await fetch(`${running.origin}/dispatch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 1, graph: 'demo', method: { Cypher: { query: "MATCH (o:Organization {name: $name}) SET o.name = 'Renamed' RETURN o.name", params: { name } } } }),
    });
    expect(await write.json()).toMatchObject({ result: { rows: [['Renamed']] } });
    await client.until((c) => c.events.length === 2, 'the frame of the Cypher write');
    expect(client.frames()[1]).toEqual({ data: { Organization: [{ name: 'Renamed' }] } });
    await running.close();
    running = undefined;
    await client.done;
    expect(JSON.parse(client.events.at(-1)!.data)).toEqual({ reason: 'server-closing' });
  });
});

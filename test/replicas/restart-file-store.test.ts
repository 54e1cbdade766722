import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index.ts';
import { signEnvelope } from '../../src/graph/carrier/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { startToolgraph, type RunningToolgraph } from '../../src/serve/index.ts';
import { generateSigner } from '../graph/carrier/carrier-fixture.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { freePort } from './support/replicas.ts';
import { TimedSse } from './support/timed-sse.ts';

/** With the default file persistence, state lives beside the graphs: one restart loses none of it. */
const home = mkdtempSync(join(tmpdir(), 'tg-restart-'));
let idp: TestIdp;
let port: number;
let carrierPort: number;
let signer: CryptoKey;

beforeAll(async () => {
  idp = await startIdp();
  [port, carrierPort] = await Promise.all([freePort(), freePort()]);
  const generated = await generateSigner();
  signer = generated.privateKey;
  writeFileSync(join(home, 'signers.json'), JSON.stringify(generated.jwks));
});
afterAll(async () => {
  await idp?.close();
  rmSync(home, { recursive: true, force: true });
});

function start(env: Record<string, string>): Promise<RunningToolgraph> {
  return startToolgraph({
    config: resolveConfig({ env: { HOME: home, PORT: String(port), TOOLGRAPH_PERSISTENCE: 'file', TOOLGRAPH_DATA_DIR: join(home, 'data'), ...env } }),
    logger: silentLogger(),
  });
}

describe('a restart with the file store', () => {
  it('keeps the OAuth proxy\'s registered clients: the same client id signs in after the restart', async () => {
    const env = { AUTH_TYPE: 'oidc-proxy', OIDC_CONFIG_URL: idp.discoveryUrl, OIDC_CLIENT_ID: idp.clientId, OIDC_CLIENT_SECRET: idp.clientSecret };
    let running = await start(env);
    const registered = await fetch(`${running.origin}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'kept', redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' }) });
    expect(registered.status).toBe(201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    await running.close();
    running = await start(env);
    try {
      const authorize = new URL(`${running.origin}/authorize`);
      for (const [k, v] of Object.entries({ response_type: 'code', client_id: clientId, redirect_uri: 'http://127.0.0.1:9/cb', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })) authorize.searchParams.set(k, v);
      const consent = await fetch(authorize, { redirect: 'manual' });
      expect(consent.status, await consent.clone().text()).toBe(200);
      expect(await consent.text()).toContain('Allow kept to use toolgraph?');
    } finally {
      await running.close();
    }
  });

  it('keeps MCP sessions and consumed carrier envelopes', async () => {
    const env = { SERVICE_GRAPHQL_ADDR: `127.0.0.1:${carrierPort}`, SERVICE_GRAPHQL_SIGNER_JWKS: join(home, 'signers.json') };
    let running = await start(env);
    const init = await fetch(`${running.origin}/mcp`, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    expect(init.status).toBe(200);
    await init.text();
    const session = init.headers.get('mcp-session-id')!;
    const signed = await signEnvelope({ key: signer, alg: 'EdDSA', kid: 'signer-1', graph: 'demo', query: 'subscription { Organization(first: 1) { id } }', subject: 'restart', scopes: ['kg:read'] });
    const stream = new TimedSse(`http://127.0.0.1:${carrierPort}${signed.path}`, { ...signed.headers });
    await stream.opened;
    expect(stream.status).toBe(200);
    stream.close();
    await running.close();
    running = await start(env);
    try {
      const list = await fetch(`${running.origin}/mcp`, {
        method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      expect(list.status).toBe(200);
      expect(await list.text()).toContain('"name":"graph"');
      const replayed = await new TimedSse(`http://127.0.0.1:${carrierPort}${signed.path}`, { ...signed.headers }).refusal();
      expect(replayed.status).toBe(401);
      expect(JSON.parse(replayed.body)).toMatchObject({ error: { code: 'TG_NONCE_REPLAYED' } });
    } finally {
      await running.close();
    }
  });
});

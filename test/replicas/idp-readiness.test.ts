import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELEGATION_FALLBACK_WARNING, type DownstreamAgent } from '../../src/auth/index.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { startToolgraph } from '../../src/serve/index.ts';
import { startDelegationFixture, type DelegationFixture } from '../auth/delegation-fixture.ts';
import { captureLogger } from '../support/capture-logger.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';

function config(env: Record<string, string>) {
  return resolveConfig({ env: { HOME: mkdtempSync(join(tmpdir(), 'tg-home-')), PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory', TOOLGRAPH_IDP_RETRY_MAX_MS: '400', ...env } });
}

interface Health { status: string; starting?: string[]; waiting?: Record<string, string> }
const parsed = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

let idp: TestIdp;
beforeAll(async () => {
  idp = await startIdp();
});
afterAll(() => idp.close());

describe('start without the IdP, become ready with it', () => {
  it('AUTH_TYPE=jwt: serves 503 TG_NOT_READY + Retry-After and a /healthz naming OIDC_CONFIG_URL, retries with a log line per attempt, then serves tokens', async () => {
    idp.setDown(true);
    const { lines, logger } = captureLogger('info');
    const running = await startToolgraph({ config: config({ AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl }), logger });
    try {
      const health = await fetch(`${running.origin}/healthz`);
      expect(health.status).toBe(503);
      expect(health.headers.get('retry-after')).toBe('1');
      const body = (await health.json()) as Health;
      expect(body).toMatchObject({ status: 'starting', starting: ['idp'] });
      expect(body.waiting?.['idp']).toContain(`OIDC discovery and the key set of OIDC_CONFIG_URL ${idp.discoveryUrl}`);
      // A request that needs a token: 503 with Retry-After, never 401 (the client's token may be fine).
      const refused = await fetch(`${running.origin}/dispatch`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer x.y.z' }, body: '{}' });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('2');
      expect(await refused.json()).toMatchObject({ error: { code: 'TG_NOT_READY', details: { waitingFor: 'idp' } } });
      expect((await fetch(`${running.origin}/.well-known/oauth-protected-resource`)).status).toBe(503);
      // Retried in the background, one warning per attempt, the backoff capped (400 ms here).
      await expect.poll(() => parsed(lines).filter((l) => l['level'] === 'warn' && typeof l['attempt'] === 'number').length, { timeout: 10_000 }).toBeGreaterThanOrEqual(4);
      const attempts = parsed(lines).filter((l) => typeof l['attempt'] === 'number' && l['level'] === 'warn');
      expect(attempts.map((l) => l['attempt'])).toEqual(attempts.map((_, i) => i + 1));
      expect(Math.max(...attempts.map((l) => l['retryInMs'] as number))).toBe(400);

      idp.setDown(false);
      const up = performance.now();
      await expect.poll(async () => (await fetch(`${running.origin}/healthz`)).status, { interval: 10, timeout: 10_000 }).toBe(200);
      const readyMs = performance.now() - up;
      console.log(`IdP up to ready: ${readyMs.toFixed(0)} ms (TOOLGRAPH_IDP_RETRY_MAX_MS=400)`);
      // Generous: the next attempt is at most 400 ms away, then one discovery and one JWKS fetch.
      expect(readyMs).toBeLessThan(5_000);
      const token = await idp.mintToken({ sub: 'alice', scope: 'kg:read', audience: running.origin });
      const served = await fetch(`${running.origin}/dispatch`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ id: 1, graph: 'demo', method: { Cypher: { query: 'MATCH (o:Organization) RETURN count(*) AS n' } } }) });
      expect(served.status).toBe(200);
      expect(parsed(lines).some((l) => String(l['msg']).endsWith('succeeded; ready'))).toBe(true);
    } finally {
      idp.setDown(false);
      await running.close();
    }
  });

  it('AUTH_TYPE=oidc-proxy: the sign-in proxy answers 503 TG_NOT_READY until discovery resolves, then registers clients', async () => {
    idp.setDown(true);
    const running = await startToolgraph({ config: config({ AUTH_TYPE: 'oidc-proxy', OIDC_CONFIG_URL: idp.discoveryUrl, OIDC_CLIENT_ID: idp.clientId, OIDC_CLIENT_SECRET: idp.clientSecret }), logger: captureLogger('info').logger });
    const register = () => fetch(`${running.origin}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'x', redirect_uris: ['http://127.0.0.1:1/cb'] }) });
    try {
      const refused = await register();
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('2');
      expect(await refused.json()).toMatchObject({ error: { code: 'TG_NOT_READY' } });
      idp.setDown(false);
      await expect.poll(async () => (await fetch(`${running.origin}/healthz`)).status, { interval: 20, timeout: 10_000 }).toBe(200);
      expect((await register()).status).toBe(201);
    } finally {
      idp.setDown(false);
      await running.close();
    }
  });
});

describe('delegation with discovery unresolved', () => {
  let f: DelegationFixture;
  beforeAll(async () => {
    f = await startDelegationFixture();
  });
  afterAll(() => f.close());

  it('opens without the IdP; exchanges fail with "No token_endpoint configured", agents with credentials fall back with the spec\'s warning, and delegation works once discovery resolves', async () => {
    // The caller's token was issued before the outage.
    const context = await f.contextFor(await f.callerToken('alice'));
    f.idp.setDown(true);
    try {
      const { lines, logger } = captureLogger('info');
      const downstream = await f.open({ idpRetryMaxMs: 200 }, { logger });
      const graph: DownstreamAgent = { name: 'graph', pattern: 'full-delegation' };
      const error = await downstream.resolve(graph, { context }).then(() => undefined, (e: unknown) => e as { code: string; message: string });
      expect(error).toMatchObject({ code: 'TG_NO_TOKEN_ENDPOINT', message: 'No token_endpoint configured' });
      const withKey: DownstreamAgent = { ...graph, credentials: { kind: 'api-key', ...f.apiKey } };
      const fallback = await downstream.resolve(withKey, { context });
      expect(fallback).toMatchObject({ source: 'credentials', fallback: true });
      expect(parsed(lines).filter((l) => l['msg'] === DELEGATION_FALLBACK_WARNING)).toHaveLength(1);

      f.idp.setDown(false);
      await expect.poll(async () => (await downstream.resolve(graph, { context }).catch(() => undefined))?.source, { interval: 50, timeout: 10_000 }).toBe('delegation');
    } finally {
      f.idp.setDown(false);
    }
  });
});

import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELEGATION_FALLBACK_WARNING, HYBRID_VENDOR_TOKEN_INFO, TokenSetStore, signInWithDeviceFlow, type DownstreamAgent, type TokenSet } from '../../src/auth/index.ts';
import { Browser } from '../support/browser.ts';
import { captureLogger } from '../support/capture-logger.ts';
import { whoami } from '../support/downstream-api.ts';
import { API, TOOLGRAPH, clientConfigurations, startDelegationFixture, type DelegationFixture } from './delegation-fixture.ts';
import { failure } from '../support/toolgraph-failure.ts';

let f: DelegationFixture;
let configs: { idp: oidc.Configuration; vendor: oidc.Configuration };
beforeAll(async () => {
  f = await startDelegationFixture();
  configs = await clientConfigurations(f);
});
afterAll(async () => {
  await f?.close();
});


/** Signs `agent` in by the device flow, the user's browser confirming the code. */
async function deviceSignIn(agent: string, config = configs.idp): Promise<TokenSet> {
  let confirmed: Promise<unknown> = Promise.resolve();
  const set = await signInWithDeviceFlow(config, {
    agent, scopes: ['openid', 'api', 'offline_access'], resource: API, pollIntervalSeconds: 0.05,
    onPrompt: (prompt) => {
      confirmed = new Browser().visit(prompt.verificationUriComplete!);
    },
  });
  await confirmed;
  return set;
}

describe('identity passthrough', () => {
  const agent: DownstreamAgent = { name: 'traces', pattern: 'identity-passthrough', credentials: { kind: 'api-key', publicKey: '', secretKey: '' } };

  it('always calls with the API keys; with delegation enabled each call writes the SSO identity to the JSON-lines audit log (mode 0600)', async () => {
    const auditLog = join(f.dir, 'passthrough-audit.jsonl');
    const downstream = await f.open({ auditLog });
    const traces = downstream.agent({ ...agent, credentials: { kind: 'api-key', ...f.apiKey } });
    const alice = await f.contextFor(await f.callerToken('alice', { email: 'alice@example.test' }));
    const before = f.idp.tokenExchanges();
    const first = await traces.resolve({ context: alice, operation: 'traces.list' });
    expect(first).toMatchObject({ source: 'credentials', fallback: false });
    expect(await whoami(f.api, first.headers)).toEqual({ status: 200, body: { via: 'api-key', project: 'downstream-test' } });
    await traces.resolve({ context: null });
    await downstream.close();
    expect(f.idp.tokenExchanges()).toBe(before);
    const lines = readFileSync(auditLog, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      { time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), event: 'identity_passthrough', agent: 'traces', operation: 'traces.list', user: { sub: 'alice', iss: f.idp.issuer, email: 'alice@example.test' } },
      { time: expect.any(String), event: 'identity_passthrough', agent: 'traces', user: null },
    ]);
    expect(statSync(auditLog).mode & 0o777).toBe(0o600);
  });

  it('with delegation disabled it writes no audit record', async () => {
    const auditLog = join(f.dir, 'no-audit.jsonl');
    const downstream = await f.open({ enableDelegation: false, auditLog });
    const credential = await downstream.resolve({ ...agent, credentials: { kind: 'api-key', ...f.apiKey, placement: 'headers' } }, { context: await f.contextFor(await f.callerToken('alice')) });
    expect(credential.headers).toEqual({ 'x-api-key': f.apiKey.publicKey, 'x-api-secret': f.apiKey.secretKey });
    expect((await whoami(f.api, credential.headers)).status).toBe(200);
    await downstream.close();
    expect(() => statSync(auditLog)).toThrow(/ENOENT/);
  });

  it('an audit log that cannot be written stops the call (no unaudited passthrough)', async () => {
    // A regular file where the log's directory should be.
    const blocker = join(f.dir, 'not-a-directory');
    writeFileSync(blocker, '');
    const downstream = await f.open({ auditLog: join(blocker, 'audit.jsonl') });
    const error = await failure(downstream.resolve({ ...agent, credentials: { kind: 'api-key', ...f.apiKey } }, { context: null }));
    expect(error.code).toBe('TG_INTERNAL');
    expect(error.message).toBe(`the audit log ${join(blocker, 'audit.jsonl')} (TOOLGRAPH_AUDIT_LOG) could not be written (EEXIST), so the identity-passthrough call was not made`);
  });

  it('an agent without API keys is refused when registered', async () => {
    const downstream = await f.open();
    expect(() => downstream.agent({ name: 'traces', pattern: 'identity-passthrough' })).toThrow('agent traces: identity passthrough calls the API with its API keys');
  });
});

describe('hybrid: OIDC delegation, then the device flow\'s cached token, then the caller\'s token', () => {
  const hybrid = (name: string): DownstreamAgent => ({ name, pattern: 'hybrid', audience: API });

  it('1. delegation first, even when a device-flow token is cached', async () => {
    const downstream = await f.open();
    await new TokenSetStore(f.dir).save(await deviceSignIn('vendor-1'));
    const credential = await downstream.resolve(hybrid('vendor-1'), { context: await f.contextFor(await f.callerToken('alice')) });
    expect(credential.source).toBe('delegation');
    expect((await whoami(f.api, credential.headers)).body).toMatchObject({ sub: 'alice', act: { sub: f.idp.clientId } });
  });

  it('2. when delegation fails, the device flow\'s cached token, with an info line (the spec\'s warning is for falling back to credentials); it reuses OIDC_CLIENT_ID', async () => {
    const { lines, logger } = captureLogger();
    const downstream = await f.open({ oidcClientSecret: 'wrong-secret-for-the-exchange' }, { logger });
    const set = await deviceSignIn('vendor-2');
    expect(set).toMatchObject({ clientId: f.idp.clientId, flow: 'device_code', agent: 'vendor-2' });
    await new TokenSetStore(f.dir).save(set);
    const credential = await downstream.resolve(hybrid('vendor-2'), { context: await f.contextFor(await f.callerToken('alice')) });
    expect(credential.source).toBe('device-flow');
    expect((await whoami(f.api, credential.headers)).body).toMatchObject({ via: 'bearer', sub: 'interactive-user', act: null });
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged.filter((l) => l['level'] === 'warn')).toEqual([]);
    expect(logged.filter((l) => l['msg'] === HYBRID_VENDOR_TOKEN_INFO)).toEqual([expect.objectContaining({ level: 'info', agent: 'vendor-2', pattern: 'hybrid', step: 2, delegation: 'TG_TOKEN_EXCHANGE_FAILED' })]);
    expect(lines.join('\n')).not.toContain('alice');
  });

  it('3. with neither, the caller\'s own token, only because its audience includes the API', async () => {
    const downstream = await f.open({ enableDelegation: false });
    const token = await f.callerToken('grace', { audience: API });
    const credential = await downstream.resolve(hybrid('vendor-3'), { context: await f.contextFor(token, API) });
    expect(credential).toMatchObject({ source: 'caller-token', headers: { authorization: `Bearer ${token}` } });
    expect((await whoami(f.api, credential.headers)).body['sub']).toBe('grace');
  });

  it('a caller token issued for another audience is never passed on; the error lists every step and its fix', async () => {
    const downstream = await f.open({ enableDelegation: false });
    const error = await failure(downstream.resolve(hybrid('vendor-4'), { context: await f.contextFor(await f.callerToken('grace')) }));
    expect(error.code).toBe('TG_NO_DOWNSTREAM_CREDENTIAL');
    expect(error.message).toBe(`No credential for agent vendor-4 (hybrid: OIDC delegation, then the device flow's cached token, then the caller's token): 1. OIDC delegation is disabled (ENABLE_DELEGATION=false); 2. the device flow has no cached token (run \`toolgraph auth login vendor-4 --device\`); 3. the caller's token is not passed on: its audience "${TOOLGRAPH}" does not include "${API}", and a token may only go to an API it was issued for.`);
    expect(f.api.calls.filter((c) => c.claims?.sub === 'grace' && c.claims.aud === TOOLGRAPH)).toEqual([]);
  });

  it('the agent\'s credentials are the last resort', async () => {
    const downstream = await f.open({ enableDelegation: false });
    const credential = await downstream.resolve({ ...hybrid('vendor-5'), credentials: { kind: 'api-key', ...f.apiKey } }, { context: null });
    expect(credential).toMatchObject({ source: 'credentials', fallback: true });
  });

  it('falling back to the agent\'s credentials after a failed delegation logs the spec\'s warning', async () => {
    const { lines, logger } = captureLogger();
    const downstream = await f.open({ oidcClientSecret: 'wrong-secret-for-the-exchange' }, { logger });
    const credential = await downstream.resolve({ ...hybrid('vendor-6'), credentials: { kind: 'api-key', ...f.apiKey } }, { context: await f.contextFor(await f.callerToken('alice')) });
    expect(credential).toMatchObject({ source: 'credentials', fallback: true });
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['level'] === 'warn')).toEqual([expect.objectContaining({ msg: DELEGATION_FALLBACK_WARNING, agent: 'vendor-6', code: 'TG_TOKEN_EXCHANGE_FAILED' })]);
  });
});

describe('device flow (RFC 8628) through openid-client', () => {
  it('gives a token set for the requested resource, with a refresh token', async () => {
    const set = await deviceSignIn('device-ok');
    expect(set).toMatchObject({ agent: 'device-ok', flow: 'device_code', issuer: f.idp.issuer, resource: API, tokenType: 'Bearer' });
    expect(set.refreshToken).toEqual(expect.any(String));
    expect(set.expiresAt! - set.obtainedAt).toBe(600_000);
  });

  it('a user who denies it: TG_AUTHORIZATION_FAILED', async () => {
    f.idp.denyNextInteraction();
    const error = await failure(deviceSignIn('device-denied'));
    expect(error).toMatchObject({ code: 'TG_AUTHORIZATION_FAILED', message: 'the device sign-in for device-denied did not complete: the user denied it' });
  });

  it('an IdP without a device endpoint is named', async () => {
    const { oauthConfiguration, explicitAuthorizationServer } = await import('../../src/auth/index.ts');
    const config = oauthConfiguration(explicitAuthorizationServer({ tokenEndpoint: f.idp.tokenEndpoint }), { clientId: f.idp.clientId, clientSecret: f.idp.clientSecret });
    const error = await failure(deviceSignIn('device-none', config));
    expect(error.code).toBe('TG_CONFIG_INVALID');
    expect(error.message).toContain('publishes no device_authorization_endpoint');
  });
});

import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenSetStore, buildAuthorizationRequest, signInWithLoopback, type DownstreamAgent, type TokenSet } from '../../src/auth/index.ts';
import { Browser, type BrowserVisit } from '../support/browser.ts';
import { whoami } from '../support/downstream-api.ts';
import { API, clientConfigurations, fakeClock, startDelegationFixture, type DelegationFixture, type FakeClock } from './delegation-fixture.ts';
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


const SCOPES = ['openid', 'email', 'api', 'offline_access'];

/** The loopback flow on a port the test picks (0), the browser following the authorization URL. */
async function loopbackSignIn(agent: string, clock?: FakeClock): Promise<{ set: TokenSet; url: URL; redirectUri: string; visit: BrowserVisit }> {
  let url: URL | undefined;
  let redirectUri = '';
  let visit: Promise<BrowserVisit> | undefined;
  const set = await signInWithLoopback(configs.vendor, {
    agent, scopes: SCOPES, resource: API, port: 0, timeoutMs: 20_000, ...(clock ? { now: clock.now } : {}),
    onAuthorizationUrl: (authorizationUrl, redirect) => {
      url = new URL(authorizationUrl);
      redirectUri = redirect;
      visit = new Browser().visit(authorizationUrl);
    },
  });
  return { set, url: url!, redirectUri, visit: await visit! };
}

function vendorAgent(name: string): DownstreamAgent {
  return {
    name, pattern: 'three-legged',
    provider: { configUrl: f.idp.discoveryUrl, clientId: f.idp.threeLeggedClient.clientId, clientSecret: f.idp.threeLeggedClient.clientSecret, scopes: SCOPES, resource: API },
  };
}

describe('three-legged OAuth, loopback callback', () => {
  it('builds the authorization URL from the endpoint, client id, redirect URI, scopes, PKCE S256 and state', async () => {
    const request = await buildAuthorizationRequest(configs.vendor, { redirectUri: 'http://127.0.0.1:56121/callback', scopes: SCOPES, resource: API });
    const url = new URL(request.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${f.idp.issuer}/auth`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: f.idp.threeLeggedClient.clientId,
      response_type: 'code',
      redirect_uri: 'http://127.0.0.1:56121/callback',
      scope: 'openid email api offline_access',
      // offline_access needs prompt=consent (OIDC Core §11), or a standard IdP issues no refresh token.
      prompt: 'consent',
      resource: API,
      code_challenge: createHash('sha256').update(request.codeVerifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: request.state,
    });
    expect(request.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(request.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = await buildAuthorizationRequest(configs.vendor, { redirectUri: 'http://127.0.0.1:56121/callback', scopes: SCOPES });
    expect(again.state).not.toBe(request.state);
    expect(again.codeVerifier).not.toBe(request.codeVerifier);
    const online = await buildAuthorizationRequest(configs.vendor, { redirectUri: 'http://127.0.0.1:56121/callback', scopes: ['openid', 'api'] });
    expect(new URL(online.url).searchParams.has('prompt')).toBe(false);
  });

  it('runs end to end: consent, the redirect to the loopback server, the code exchange; the token set is stored mode 0600 under the state dir and reaches the API', async () => {
    const { set, url, redirectUri, visit } = await loopbackSignIn('jira');
    expect(redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(url.searchParams.get('redirect_uri')).toBe(redirectUri);
    // The browser ended on the loopback server's answer page.
    expect(visit.url.startsWith(`${redirectUri}?code=`)).toBe(true);
    expect(visit).toMatchObject({ status: 200 });
    expect(visit.body).toContain('toolgraph: agent jira is signed in. You can close this tab.');
    expect(set).toMatchObject({ agent: 'jira', flow: 'authorization_code', issuer: f.idp.issuer, clientId: f.idp.threeLeggedClient.clientId, resource: API, tokenType: 'Bearer' });
    expect(set.refreshToken).toEqual(expect.any(String));

    const store = new TokenSetStore(f.dir);
    const path = await store.save(set);
    expect(path).toBe(join(f.dir, 'tokens', 'jira.json'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(f.dir, 'tokens')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ version: 1, agent: 'jira', flow: 'authorization_code', client_id: f.idp.threeLeggedClient.clientId, access_token: set.accessToken, refresh_token: set.refreshToken, resource: API });

    const downstream = await f.open({ enableDelegation: false });
    const credential = await downstream.resolve(vendorAgent('jira'), { context: null });
    expect(credential.source).toBe('three-legged');
    expect((await whoami(f.api, credential.headers)).body).toMatchObject({ via: 'bearer', sub: 'interactive-user', aud: API });
  });

  it('refreshes an expired access token once, however many calls arrive together, and stores the new set (still 0600)', async () => {
    const clock = fakeClock();
    const { set } = await loopbackSignIn('confluence', clock);
    const store = new TokenSetStore(f.dir);
    const path = await store.save(set);
    const downstream = await f.open({ enableDelegation: false }, { now: clock.now });
    const agent = downstream.agent(vendorAgent('confluence'));
    expect((await agent.resolve({ context: null })).headers['authorization']).toBe(`Bearer ${set.accessToken}`);
    const refreshesBefore = f.idp.grants.filter((g) => g.grantType === 'refresh_token').length;
    clock.advance(600_000);
    const results = await Promise.all(Array.from({ length: 50 }, () => agent.resolve({ context: null })));
    expect(f.idp.grants.filter((g) => g.grantType === 'refresh_token')).toHaveLength(refreshesBefore + 1);
    const tokens = new Set(results.map((r) => r.headers['authorization']));
    expect(tokens.size).toBe(1);
    expect([...tokens][0]).not.toBe(`Bearer ${set.accessToken}`);
    expect((await whoami(f.api, results[0]!.headers)).status).toBe(200);
    const stored = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    expect(`Bearer ${String(stored['access_token'])}`).toBe([...tokens][0]);
    expect(stored['refresh_token']).toBe(set.refreshToken);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('a refused refresh token says to sign in again', async () => {
    const clock = fakeClock();
    const { set } = await loopbackSignIn('revoked', clock);
    await new TokenSetStore(f.dir).save({ ...set, refreshToken: 'not-a-refresh-token-the-idp-issued' });
    const downstream = await f.open({ enableDelegation: false }, { now: clock.now });
    clock.advance(601_000);
    const error = await failure(downstream.resolve(vendorAgent('revoked'), { context: null }));
    expect(error.code).toBe('TG_AUTHORIZATION_FAILED');
    expect(error.message).toMatch(/^the refresh token of agent revoked was refused: HTTP 400 invalid_grant .*\. Sign in again \(toolgraph auth login revoked\)\.$/);
  });

  it('a redirect with another state is answered 400 and does not end the wait; the user denying consent fails the sign-in', async () => {
    f.idp.denyNextInteraction();
    let stray: Response | undefined;
    const error = await failure(signInWithLoopback(configs.vendor, {
      agent: 'denied', scopes: SCOPES, port: 0, timeoutMs: 20_000,
      onAuthorizationUrl: async (url, redirectUri) => {
        stray = await fetch(`${redirectUri}?code=forged&state=not-the-state`);
        void new Browser().visit(url);
      },
    }));
    expect(stray!.status).toBe(400);
    expect(await stray!.text()).toContain('its state does not match');
    expect(error).toMatchObject({ code: 'TG_AUTHORIZATION_FAILED', message: 'the provider did not authorize agent denied: access_denied (the user denied the request)' });
  });

  it('no redirect in time names the ssh -L forwarding', async () => {
    const error = await failure(signInWithLoopback(configs.vendor, { agent: 'late', scopes: SCOPES, port: 0, timeoutMs: 200, onAuthorizationUrl: () => undefined }));
    expect(error.code).toBe('TG_AUTHORIZATION_FAILED');
    expect(error.message).toMatch(/^no sign-in redirect reached http:\/\/127\.0\.0\.1:(\d+)\/callback within 0 s\. The browser must reach this loopback port: on a remote server, forward it first with `ssh -L (\d+):127\.0\.0\.1:\2 user@server`\.$/);
  });

  it('an agent nobody signed in, and a token file others can read, are refused with the way out', async () => {
    const downstream = await f.open({ enableDelegation: false });
    const none = await failure(downstream.resolve(vendorAgent('nobody'), { context: null }));
    expect(none).toMatchObject({ code: 'TG_NO_DOWNSTREAM_CREDENTIAL', message: 'No credential for agent nobody: it uses three-legged OAuth and no user has signed it in. Run `toolgraph auth login nobody` on the server (see docs/delegation.md).' });
    const { set } = await loopbackSignIn('shared');
    const path = await new TokenSetStore(f.dir).save(set);
    chmodSync(path, 0o644);
    const open = await failure(downstream.resolve(vendorAgent('shared'), { context: null }));
    expect(open).toMatchObject({ code: 'TG_CONFIG_INVALID', message: `token set file ${path} has mode 0644: other users could read its tokens, so it is not used. Run \`chmod 600 ${path}\` or sign in again.` });
  });

  it('a callback host off loopback is refused, and the spec\'s port is the default', async () => {
    const error = await failure(signInWithLoopback(configs.vendor, { agent: 'x', scopes: SCOPES, host: '0.0.0.0', onAuthorizationUrl: () => undefined }));
    expect(error.message).toContain('callback host: expected a loopback address');
    const { DEFAULT_CALLBACK_PORT } = await import('../../src/auth/index.ts');
    expect(DEFAULT_CALLBACK_PORT).toBe(56121);
  });
});

describe('TokenSetStore', () => {
  it.each(['', '.hidden', '../escape', 'a/b', 'x'.repeat(65), 'sp ace'])('refuses the agent name %j', (name) => {
    expect(() => new TokenSetStore(f.dir).pathOf(name)).toThrow(/agent name: expected 1 to 64 letters/);
  });

  it('a damaged file is refused with the way out', async () => {
    const store = new TokenSetStore(f.dir);
    const { set } = await loopbackSignIn('damaged');
    const path = await store.save(set);
    writeFileSync(path, '{"version": 1, "agent": "damaged"}', { mode: 0o600 });
    await expect(store.load('damaged')).rejects.toThrow(`token set file ${path}: expected "flow" to be a non-empty string; sign in again with \`toolgraph auth login\``);
  });
});

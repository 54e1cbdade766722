import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DELEGATION_FALLBACK_WARNING, DownstreamCredentials, TokenSetStore, createBearerAuthenticator, createTokenExchanger, requestContextOf,
  openTrustedIssuer, requireBearer, type DownstreamAgent, type TrustedIssuer,
} from '../../src/auth/index.ts';
import { sendJson, startHost, type HttpService } from '../../src/http/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { captureLogger } from '../support/capture-logger.ts';
import { closedPort } from '../support/closed-port.ts';
import { whoami } from '../support/downstream-api.ts';
import { API, TOOLGRAPH, UNREGISTERED, fakeClock, startDelegationFixture, type DelegationFixture } from './delegation-fixture.ts';
import { failure } from '../support/toolgraph-failure.ts';

let f: DelegationFixture;
beforeAll(async () => {
  f = await startDelegationFixture();
});
afterAll(async () => {
  await f?.close();
});

const graph: DownstreamAgent = { name: 'graph', pattern: 'full-delegation' };


/** Log lines as objects, for asserting levels and messages. */
function parsed(lines: string[]): Record<string, unknown>[] {
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('full delegation', () => {
  it('sends the delegated token, not the caller\'s: the API (which accepts only its own audience) sees the user through the exchange', async () => {
    const downstream = await f.open();
    const caller = await f.callerToken('alice', { email: 'alice@example.test' });
    const credential = await downstream.resolve(graph, { context: await f.contextFor(caller) });
    expect(credential).toMatchObject({ source: 'delegation', fallback: false, cached: false });
    const answer = await whoami(f.api, credential.headers);
    expect(answer).toEqual({ status: 200, body: { via: 'bearer', sub: 'alice', aud: API, scope: 'api', act: { sub: f.idp.clientId } } });
    expect(f.api.calls.at(-1)!.bearer).not.toBe(caller);
    // The caller's own token is refused by the API: its audience is toolgraph's.
    expect(await whoami(f.api, { authorization: `Bearer ${caller}` })).toMatchObject({ status: 401, body: { reason: 'ERR_JWT_CLAIM_VALIDATION_FAILED' } });
  });

  it('works end to end inside a bearer-protected service: the tool handler hands on the caller requireBearer bound to the request', async () => {
    const downstream = await f.open();
    const agent = downstream.agent(graph);
    const tool: HttpService = {
      name: 'tool', prefixes: ['/tool'], entryPath: '/tool',
      async handle(req, res) {
        // What the tool server does: hand the context requireBearer bound to the request to the tool's run.
        const context = requestContextOf(req);
        if (context === undefined) throw new Error('requireBearer bound no context');
        // What a tool does: credentials for its caller, then the downstream call.
        const credential = await agent.resolve({ context });
        const answer = await whoami(f.api, credential.headers);
        sendJson(res, 200, { source: credential.source, downstream: answer.body, caller: context.principal.subject });
      },
    };
    const trusted: TrustedIssuer = await openTrustedIssuer(f.idp.discoveryUrl);
    const host = await startHost({ services: [requireBearer(tool, createBearerAuthenticator({ issuer: trusted, audience: TOOLGRAPH, resourceMetadataUrl: `${TOOLGRAPH}/.well-known/oauth-protected-resource` }))], logger: silentLogger(), host: '127.0.0.1', port: 0 });
    try {
      const response = await fetch(`${host.origin}/tool`, { headers: { authorization: `Bearer ${await f.callerToken('bob')}` } });
      expect(await response.json()).toEqual({ source: 'delegation', caller: 'bob', downstream: { via: 'bearer', sub: 'bob', aud: API, scope: 'api', act: { sub: f.idp.clientId } } });
    } finally {
      await host.close();
      trusted.close();
    }
  });

  it('a delegation disabled uses the agent\'s credentials, without an exchange or a warning', async () => {
    const { lines, logger } = captureLogger();
    const downstream = await f.open({ enableDelegation: false }, { logger });
    const before = f.idp.tokenExchanges();
    const credential = await downstream.resolve({ ...graph, credentials: { kind: 'api-key', ...f.apiKey } }, { context: await f.contextFor(await f.callerToken('alice')) });
    expect(credential).toMatchObject({ source: 'credentials', fallback: false });
    expect((await whoami(f.api, credential.headers)).body).toEqual({ via: 'api-key', project: 'downstream-test' });
    expect(f.idp.tokenExchanges()).toBe(before);
    expect(parsed(lines).filter((l) => l['level'] === 'warn')).toEqual([]);
  });

  it('a delegation disabled and no credentials configured: nothing is sent, and the API decides', async () => {
    const downstream = await f.open({ enableDelegation: false });
    const credential = await downstream.resolve(graph, { context: await f.contextFor(await f.callerToken('alice')) });
    expect(credential).toEqual({ headers: {}, source: 'credentials', fallback: false, cached: false });
    expect((await whoami(f.api, credential.headers)).status).toBe(401);
  });
});

describe('the spec\'s errors for delegation, each with its fix', () => {
  it('no bearer token (or no auth middleware): "No user token available for delegation"', async () => {
    const downstream = await f.open();
    const error = await failure(downstream.resolve(graph, { context: null }));
    expect(error.code).toBe('TG_NO_USER_TOKEN');
    expect(error.status).toBe(401);
    expect(error.message).toBe('No user token available for delegation');
    expect(error.details?.['fix']).toMatch(/^Start the server with --auth-type oidc-proxy, send Authorization: Bearer <token>, and pass --enable-delegation\. The token is an access token from the identity provider/);
    // Without a context at all, likewise.
    expect((await failure(downstream.resolve(graph))).message).toBe('No user token available for delegation');
  });

  it('discovery not resolved at start-up: "No token_endpoint configured"', async () => {
    const downstream = new DownstreamCredentials({
      defaults: { delegationEnabled: true, audience: API, scopes: 'api' },
      exchanger: createTokenExchanger({ server: undefined, client: { clientId: f.idp.clientId, clientSecret: f.idp.clientSecret } }),
      tokenSets: new TokenSetStore(f.dir),
      refreshClient: () => Promise.reject(new Error('not used')),
    });
    const error = await failure(downstream.resolve(graph, { context: await f.contextFor(await f.callerToken('alice')) }));
    expect(error).toMatchObject({ code: 'TG_NO_TOKEN_ENDPOINT', status: 500, message: 'No token_endpoint configured' });
    expect(error.details).toEqual({
      reason: 'OIDC_CONFIG_URL is not set, so there is no discovery document to read a token_endpoint from',
      fix: 'Set OIDC_CONFIG_URL (--oidc-config-url, config key oidc_config_url) to the IdP\'s discovery document; its token_endpoint is read at start-up.',
    });
    const noEndpoint = createTokenExchanger({ server: { issuer: f.idp.issuer, tokenEndpoint: undefined, authorizationEndpoint: undefined, deviceAuthorizationEndpoint: undefined, tokenEndpointAuthMethods: undefined }, client: { clientId: 'x' } });
    const second = await failure(noEndpoint.exchange({ subjectToken: 'unused', audience: API, scopes: 'api' }));
    expect(second.message).toBe('No token_endpoint configured');
    expect(second.details?.['reason']).toBe(`the discovery document of ${f.idp.issuer} names no token_endpoint`);
  });

  it.each([
    ['an audience the IdP does not know', { audience: UNREGISTERED }, 'HTTP 400 invalid_target (audience is not a service registered at this IdP)'],
    ['a wrong client secret', { oidcClientSecret: 'not-the-secret' }, 'HTTP 401 invalid_client (client authentication failed)'],
    ['a client the IdP does not allow the token-exchange grant', { oidcClientId: 'toolgraph-test-vendor-app', oidcClientSecret: 'unused' }, 'HTTP 400 invalid_request (requested grant type is not allowed for this client)'],
    ['a scope the IdP does not allow', { delegatedScopes: 'api payroll:admin' }, 'HTTP 400 invalid_scope'],
  ] as const)('the IdP rejects the exchange (%s): "Token exchange failed (HTTP 400/401)" with the checks', async (_name, overrides, reason) => {
    const settings = 'oidcClientId' in overrides ? { ...overrides, oidcClientSecret: f.idp.threeLeggedClient.clientSecret } : overrides;
    const downstream = await f.open(settings);
    const error = await failure(downstream.resolve(graph, { context: await f.contextFor(await f.callerToken('alice')) }));
    expect(error.code).toBe('TG_TOKEN_EXCHANGE_FAILED');
    expect(error.status).toBe(502);
    expect(error.message.startsWith(`Token exchange failed (HTTP 400/401): the IdP answered ${reason}`)).toBe(true);
    expect(error.message).toContain('Check the client id and secret (OIDC_CLIENT_ID, OIDC_CLIENT_SECRET), that the IdP allows this client the token-exchange grant, that the audience is a service registered at the IdP, and the scopes.');
    expect([400, 401]).toContain(error.details?.['status']);
  });

  it('an IdP that cannot be reached at exchange time is a TG_TOKEN_EXCHANGE_FAILED that says so', async () => {
    const port = await closedPort();
    const exchanger = createTokenExchanger({ server: { issuer: `http://127.0.0.1:${port}`, tokenEndpoint: `http://127.0.0.1:${port}/token`, authorizationEndpoint: undefined, deviceAuthorizationEndpoint: undefined, tokenEndpointAuthMethods: undefined }, client: { clientId: 'c', clientSecret: 'client-secret-value' } });
    const error = await failure(exchanger.exchange({ subjectToken: await f.callerToken('alice'), audience: API, scopes: 'api' }));
    expect(error).toMatchObject({ code: 'TG_TOKEN_EXCHANGE_FAILED', message: `Token exchange failed: the token endpoint http://127.0.0.1:${port}/token did not answer the exchange: the server cannot be reached (ECONNREFUSED).` });
  });
});

describe('fallback to the agent\'s credentials', () => {
  it.each([
    ['the exchange is refused', { audience: UNREGISTERED }, 'TG_TOKEN_EXCHANGE_FAILED', true],
    ['there is no user token', {}, 'TG_NO_USER_TOKEN', false],
  ] as const)('when %s, warns "OIDC delegation failed, falling back to credentials" and uses them', async (_name, overrides, code, withCaller) => {
    const { lines, logger } = captureLogger();
    const downstream = await f.open(overrides, { logger });
    const agent: DownstreamAgent = { ...graph, credentials: { kind: 'api-key', ...f.apiKey } };
    const context = withCaller ? await f.contextFor(await f.callerToken('alice')) : null;
    const credential = await downstream.resolve(agent, { context });
    expect(credential).toMatchObject({ source: 'credentials', fallback: true });
    expect((await whoami(f.api, credential.headers)).status).toBe(200);
    const warnings = parsed(lines).filter((l) => l['level'] === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ msg: DELEGATION_FALLBACK_WARNING, agent: 'graph', code });
    expect(DELEGATION_FALLBACK_WARNING).toBe('OIDC delegation failed, falling back to credentials');
  });

  it('credentials of kind none are no fallback: the delegation error stands', async () => {
    const downstream = await f.open({ audience: UNREGISTERED });
    const error = await failure(downstream.resolve({ ...graph, credentials: { kind: 'none' } }, { context: await f.contextFor(await f.callerToken('alice')) }));
    expect(error.code).toBe('TG_TOKEN_EXCHANGE_FAILED');
  });
});

describe('the delegated-token cache', () => {
  it('1,000 concurrent calls by one caller: the IdP sees exactly one token exchange', async () => {
    const downstream = await f.open();
    const context = await f.contextFor(await f.callerToken('carol'));
    const agent = downstream.agent(graph);
    const before = f.idp.tokenExchanges();
    const credentials = await Promise.all(Array.from({ length: 1000 }, () => agent.resolve({ context })));
    expect(f.idp.tokenExchanges() - before).toBe(1);
    expect(new Set(credentials.map((c) => c.headers['authorization'])).size).toBe(1);
    expect(credentials.filter((c) => !c.cached)).toHaveLength(1);
    expect((await whoami(f.api, credentials[999]!.headers)).body['sub']).toBe('carol');
  });

  it('is keyed by subject, audience and scopes: another user, or other scopes, get their own exchange', async () => {
    const downstream = await f.open();
    const before = f.idp.tokenExchanges();
    const dave = await f.contextFor(await f.callerToken('dave'));
    const erin = await f.contextFor(await f.callerToken('erin'));
    await downstream.resolve(graph, { context: dave });
    await downstream.resolve(graph, { context: dave });
    // A second token of the same user reuses the delegated token: the key is the subject, not the token.
    await downstream.resolve(graph, { context: await f.contextFor(await f.callerToken('dave')) });
    expect(f.idp.tokenExchanges() - before).toBe(1);
    const erinToken = await downstream.resolve(graph, { context: erin });
    expect((await whoami(f.api, erinToken.headers)).body['sub']).toBe('erin');
    const scoped = await downstream.resolve({ ...graph, name: 'graph-read', scopes: 'api kg:read' }, { context: dave });
    expect((await whoami(f.api, scoped.headers)).body['scope']).toBe('api kg:read');
    // Scope order does not matter.
    await downstream.resolve({ ...graph, name: 'graph-read2', scopes: 'kg:read api' }, { context: dave });
    expect(f.idp.tokenExchanges() - before).toBe(3);
  });

  it('keeps a delegated token until shortly before it expires (30 s before a 600 s token), then exchanges again', async () => {
    const clock = fakeClock();
    const downstream = await f.open({}, { now: clock.now });
    const context = await f.contextFor(await f.callerToken('frank'));
    const before = f.idp.tokenExchanges();
    const first = await downstream.resolve(graph, { context });
    clock.advance((600 - 31) * 1000);
    expect(await downstream.resolve(graph, { context })).toMatchObject({ cached: true, headers: first.headers });
    expect(f.idp.tokenExchanges() - before).toBe(1);
    clock.advance(2000);
    const renewed = await downstream.resolve(graph, { context });
    expect(renewed.cached).toBe(false);
    expect(f.idp.tokenExchanges() - before).toBe(2);
  });

  it('forget() drops the caller\'s cached token (an API refused it before it expired): the next call exchanges again', async () => {
    const downstream = await f.open();
    const agent = downstream.agent(graph);
    const context = await f.contextFor(await f.callerToken('heidi'));
    const before = f.idp.tokenExchanges();
    await agent.resolve({ context });
    expect((await agent.resolve({ context })).cached).toBe(true);
    agent.forget({ context });
    expect((await agent.resolve({ context })).cached).toBe(false);
    expect(f.idp.tokenExchanges() - before).toBe(2);
  });
});

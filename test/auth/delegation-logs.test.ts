import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenSetStore, signInWithDeviceFlow, signInWithLoopback, type DownstreamAgent } from '../../src/auth/index.ts';
import { ToolgraphError } from '../../src/errors/index.ts';
import { Browser } from '../support/browser.ts';
import { captureLogger } from '../support/capture-logger.ts';
import { whoami } from '../support/downstream-api.ts';
import { API, UNREGISTERED, clientConfigurations, fakeClock, startDelegationFixture, type DelegationFixture } from './delegation-fixture.ts';

let f: DelegationFixture;
beforeAll(async () => {
  f = await startDelegationFixture();
});
afterAll(async () => {
  await f?.close();
});

describe('no token in logs, audit records or error bodies', () => {
  it('a session through every pattern, success and failure, leaks none of the tokens or secrets in play', async () => {
    const { lines, logger } = captureLogger('trace');
    const clock = fakeClock();
    const configs = await clientConfigurations(f);
    const auditLog = join(f.dir, 'leak-audit.jsonl');
    const store = new TokenSetStore(f.dir);
    const errorBodies: string[] = [];
    const attempt = async (run: () => Promise<unknown>) => {
      try {
        await run();
      } catch (error) {
        if (!(error instanceof ToolgraphError)) throw error;
        errorBodies.push(JSON.stringify(error.toBody()));
        logger.error({ err: error }, 'tool call failed');
      }
    };

    const callers = await Promise.all(['alice', 'bob'].map((sub) => f.callerToken(sub, { email: `${sub}@example.test` })));
    const callerForApi = await f.callerToken('carol', { audience: API });
    // Sign-ins: a three-legged agent and a hybrid agent's device flow.
    const threeLegged = await signInWithLoopback(configs.vendor, {
      agent: 'leak-3lo', scopes: ['openid', 'api', 'offline_access'], resource: API, port: 0, now: clock.now,
      onAuthorizationUrl: (url) => void new Browser().visit(url),
    });
    await store.save(threeLegged);
    let confirmed: Promise<unknown> = Promise.resolve();
    const device = await signInWithDeviceFlow(configs.idp, {
      agent: 'leak-hybrid', scopes: ['openid', 'api', 'offline_access'], resource: API, pollIntervalSeconds: 0.05, now: clock.now,
      onPrompt: (prompt) => void (confirmed = new Browser().visit(prompt.verificationUriComplete!)),
    });
    await confirmed;
    await store.save(device);

    const agents: DownstreamAgent[] = [
      { name: 'leak-graph', pattern: 'full-delegation', credentials: { kind: 'token', token: 'static-fallback-token-value-0001' } },
      { name: 'leak-bad-audience', pattern: 'full-delegation', audience: UNREGISTERED, credentials: { kind: 'basic', username: 'svc', password: 'fallback-password-value-0002' } },
      { name: 'leak-bad-audience-strict', pattern: 'full-delegation', audience: UNREGISTERED },
      { name: 'leak-traces', pattern: 'identity-passthrough', credentials: { kind: 'api-key', ...f.apiKey } },
      { name: 'leak-hybrid', pattern: 'hybrid', audience: API },
      { name: 'leak-hybrid-none', pattern: 'hybrid', audience: API },
      { name: 'leak-3lo', pattern: 'three-legged', provider: { configUrl: f.idp.discoveryUrl, clientId: f.idp.threeLeggedClient.clientId, clientSecret: f.idp.threeLeggedClient.clientSecret } },
    ];
    for (const [settings, label] of [[{}, 'enabled'], [{ oidcClientSecret: 'wrong-client-secret-value-0003' }, 'bad secret']] as const) {
      const downstream = await f.open({ auditLog, ...settings }, { logger, now: clock.now });
      for (const agent of agents) {
        for (const token of [...callers, undefined]) {
          await attempt(async () => {
            const credential = await downstream.resolve(agent, { context: token ? await f.contextFor(token) : null, operation: `${label} call` });
            await whoami(f.api, credential.headers);
          });
        }
      }
      await attempt(() => downstream.resolve(agents[5]!, { context: null }));
      await attempt(async () => whoami(f.api, (await downstream.resolve(agents[5]!, { context: await f.contextFor(callerForApi, API) })).headers));
      clock.advance(700_000); // every signed-in token expires: refreshes happen and are logged
      await attempt(() => downstream.resolve(agents[6]!, { context: null }));
      await attempt(() => downstream.resolve(agents[4]!, { context: null }));
      await downstream.close();
    }
    // A refresh token the IdP refuses, and its error.
    const fresh = (await store.load('leak-3lo'))!;
    await store.save({ ...fresh, refreshToken: 'refused-refresh-token-value-0004' });
    clock.advance(700_000);
    const downstream = await f.open({ auditLog }, { logger, now: clock.now });
    await attempt(() => downstream.resolve(agents[6]!, { context: null }));
    await downstream.close();

    const secrets = [
      ...callers, callerForApi,
      ...f.api.calls.flatMap((c) => (c.bearer ? [c.bearer] : [])),
      threeLegged.accessToken, threeLegged.refreshToken!, device.accessToken, device.refreshToken!, fresh.accessToken,
      f.idp.clientSecret, f.idp.threeLeggedClient.clientSecret, f.apiKey.secretKey,
      'static-fallback-token-value-0001', 'fallback-password-value-0002', 'wrong-client-secret-value-0003', 'refused-refresh-token-value-0004',
      Buffer.from(`${f.apiKey.publicKey}:${f.apiKey.secretKey}`).toString('base64'),
    ];
    const audit = readFileSync(auditLog, 'utf8');
    const everything = { logs: lines.join('\n'), audit, errors: errorBodies.join('\n') };
    // The session did what it should: delegated and passed-through calls, refusals, fallbacks, refreshes.
    expect(f.api.calls.filter((c) => c.via === 'bearer' && c.status === 200).length).toBeGreaterThan(10);
    expect(audit.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(6);
    expect(errorBodies.map((b) => (JSON.parse(b) as { error: { code: string } }).error.code)).toEqual(expect.arrayContaining(['TG_NO_USER_TOKEN', 'TG_TOKEN_EXCHANGE_FAILED', 'TG_NO_DOWNSTREAM_CREDENTIAL', 'TG_AUTHORIZATION_FAILED']));
    expect(lines.some((l) => l.includes('OIDC delegation failed, falling back to credentials'))).toBe(true);
    expect(lines.some((l) => l.includes('refreshed a signed-in token set'))).toBe(true);
    for (const [where, text] of Object.entries(everything)) {
      for (const secret of secrets) expect(text.includes(secret), `${where} contains a secret (${secret.slice(0, 12)}…)`).toBe(false);
      expect(text, where).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\./);
    }
  });
});

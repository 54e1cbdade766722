import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_SETS_SPACE, callerOf, consentKey, type ConsentRoutes, type DownstreamAgent, type DownstreamCredentials } from '../../src/auth/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { MemoryStateStore, PostgresStateStore, type StateStore } from '../../src/state/index.ts';
import { consentRoutesOf, createConsentService } from '../../src/tools/index.ts';
import { Browser } from '../support/browser.ts';
import { whoami } from '../support/downstream-api.ts';
import { POSTGRES_HOW_TO_RUN, reportSkip } from '../support/skip-reason.ts';
import { failure } from '../support/toolgraph-failure.ts';
import { API, fakeClock, startDelegationFixture, type DelegationFixture } from './delegation-fixture.ts';

/**
 * Per-caller three-legged consent in the delegation library: two resolvers sharing one state store
 * stand for two replicas behind a load balancer (with PostgreSQL, each has its own connection pool,
 * as replicas in two processes would). The callback (a plain server here, the tool server's consent
 * route in `toolgraph serve`) lands on whichever replica the browser reaches.
 */
const CLIENT = { id: 'toolgraph-consent-app', secret: `consent-secret-${crypto.randomUUID()}` };
/** OIDC_CLIENT_ID here: the browser that consents signs in with it first, to prove it is the caller's. */
const SSO_CLIENT = { id: 'toolgraph-consent-sso', secret: `sso-secret-${crypto.randomUUID()}` };
const databaseUrl = process.env['TEST_DATABASE_URL'];
if (!databaseUrl) reportSkip('The per-caller consent cases on PostgreSQL replicas', 'TEST_DATABASE_URL is unset', POSTGRES_HOW_TO_RUN);

/** Each replica's handle on the one shared store. */
interface Stores {
  readonly name: string;
  handle(): StateStore;
  close(): Promise<void>;
}

function memoryStores(): Stores {
  const store = new MemoryStateStore();
  return { name: 'memory', handle: () => store, close: () => store.close() };
}

function postgresStores(url: string): Stores {
  const schema = `tg_consent_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
  const handles: StateStore[] = [];
  return {
    name: 'postgres',
    handle() {
      const store = new PostgresStateStore({ connectionString: url, schema });
      handles.push(store);
      return store;
    },
    async close() {
      for (const store of handles) await store.close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

let f: DelegationFixture;
let callback: Server;
let routes: ConsentRoutes;
let callbackUrl: string;
/** Which replica answers the next redirect. */
let landing: DownstreamCredentials | undefined;
const flavours: Stores[] = [memoryStores(), ...(databaseUrl ? [postgresStores(databaseUrl)] : [])];

beforeAll(async () => {
  f = await startDelegationFixture();
  // The consent routes of the tool server, answered by whichever replica the browser reaches.
  callback = createServer((req, res) => void createConsentService(landing!, silentLogger()).handle(req, res));
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  routes = consentRoutesOf(`http://127.0.0.1:${(callback.address() as AddressInfo).port}`);
  callbackUrl = routes.callbackUrl;
  await f.idp.upsertClient({
    client_id: CLIENT.id, client_secret: CLIENT.secret, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
    redirect_uris: [callbackUrl], token_endpoint_auth_method: 'client_secret_basic', scope: 'openid offline_access api',
  });
  await f.idp.upsertClient({
    client_id: SSO_CLIENT.id, client_secret: SSO_CLIENT.secret, grant_types: ['authorization_code'], response_types: ['code'],
    redirect_uris: [routes.signedInUrl], token_endpoint_auth_method: 'client_secret_basic', scope: 'openid',
  });
});
afterAll(async () => {
  await new Promise<void>((resolve) => callback?.close(() => resolve()));
  for (const stores of flavours) await stores.close();
  await f?.close();
});

const jira: DownstreamAgent = {
  name: 'jira', pattern: 'three-legged', audience: API,
  provider: { configUrl: '', clientId: CLIENT.id, clientSecret: CLIENT.secret, scopes: ['openid', 'api', 'offline_access'], resource: API },
};

function agent(): DownstreamAgent {
  return { ...jira, provider: { ...jira.provider!, configUrl: f.idp.discoveryUrl } };
}


/** The caller is asked to consent: the error carries the URL. */
async function consentUrl(credentials: DownstreamCredentials, context: Awaited<ReturnType<DelegationFixture['contextFor']>>): Promise<string> {
  const error = await failure(credentials.resolve(agent(), { context }));
  expect(error.code).toBe('TG_CONSENT_REQUIRED');
  expect(error.status).toBe(401);
  return String(error.details?.['authorizationUrl']);
}

/** The caller `sub` opens the link in their own browser, signs in as themselves and consents (the IdP is the vendor too, so it is `sub` there). */
async function consent(url: string, sub: string, on: DownstreamCredentials): Promise<{ status: number; body: string }> {
  landing = on;
  f.idp.setInteractiveUser({ sub });
  const visit = await new Browser().visit(url);
  return { status: visit.status, body: /<p>(.*)<\/p>/.exec(visit.body)?.[1] ?? visit.body };
}

const refreshGrants = () => f.idp.grants.filter((g) => g.grantType === 'refresh_token').length;

describe.each(flavours)('per-caller consent across replicas sharing the $name state store', (stores) => {
  /** What a test reads and writes directly: the store as one replica sees it. */
  const state = stores.handle();
  const replica = (now?: () => number): Promise<DownstreamCredentials> => f.open({ enableDelegation: false, oidcClientId: SSO_CLIENT.id, oidcClientSecret: SSO_CLIENT.secret }, { consents: { state: stores.handle(), routes }, ...(now ? { now } : {}) });

  it('a consent asked for on one replica completes on another, for that caller only', async () => {
    const [a, b] = [await replica(), await replica()];
    const alice = await f.contextFor(await f.callerToken('alice'));
    const bob = await f.contextFor(await f.callerToken('bob'));
    const url = await consentUrl(a, alice);
    expect(url).toMatch(new RegExp(`^${routes.startUrl}\\?consent=[A-Za-z0-9_-]{43}$`));
    // Asking again (on either replica) gives the same open request, not a new one.
    expect(await consentUrl(b, alice)).toBe(url);
    expect(await consent(url, 'alice', b)).toEqual({ status: 200, body: 'toolgraph: agent jira may now act for you. You can close this tab and call the tool again.' });

    for (const credentials of [a, b]) {
      const credential = await credentials.resolve(agent(), { context: alice });
      expect(credential.source).toBe('three-legged');
      expect((await whoami(f.api, credential.headers)).body).toMatchObject({ sub: 'alice', aud: API });
    }
    // Bob has no consent of his own: he is asked, with his own URL.
    const bobUrl = await consentUrl(a, bob);
    expect(bobUrl).not.toBe(url);
    expect(await state.get(TOKEN_SETS_SPACE, consentKey('jira', callerOf(bob)))).toBeUndefined();
  });

  it('an expired token set is refreshed once across replicas, however many calls arrive on each', async () => {
    const clock = fakeClock();
    const [a, b] = [await replica(clock.now), await replica(clock.now)];
    const carol = await f.contextFor(await f.callerToken('carol'));
    await consent(await consentUrl(a, carol), 'carol', a);
    const first = (await a.resolve(agent(), { context: carol })).headers['authorization'];
    const before = refreshGrants();
    clock.advance(601_000);
    const credentials = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).resolve(agent(), { context: carol })));
    expect(refreshGrants() - before).toBe(1);
    const tokens = new Set(credentials.map((c) => c.headers['authorization']));
    expect(tokens.size).toBe(1);
    expect([...tokens][0]).not.toBe(first);
    // The rotated set is what the store holds now.
    const stored = await state.get<{ access_token: string }>(TOKEN_SETS_SPACE, consentKey('jira', callerOf(carol)));
    expect(`Bearer ${stored!.access_token}`).toBe([...tokens][0]);
  });

  it('a refresh the provider refuses removes the consent, and the caller is asked again', async () => {
    const clock = fakeClock();
    const a = await replica(clock.now);
    const dave = await f.contextFor(await f.callerToken('dave'));
    await consent(await consentUrl(a, dave), 'dave', a);
    const key = consentKey('jira', callerOf(dave));
    const stored = await state.get<Record<string, unknown>>(TOKEN_SETS_SPACE, key);
    await state.set(TOKEN_SETS_SPACE, key, { ...stored, refresh_token: 'not-a-refresh-token-the-provider-issued' }, 60_000);
    clock.advance(601_000);
    const error = await failure(a.resolve(agent(), { context: dave }));
    expect(error.code).toBe('TG_CONSENT_REQUIRED');
    expect(await state.get(TOKEN_SETS_SPACE, key)).toBeUndefined();
  });

  it('refuses a redirect whose state names no open request, and a consent the user denied', async () => {
    const a = await replica();
    landing = a;
    const forged = await fetch(`${callbackUrl}?code=forged&state=not-a-state-this-server-issued`, { headers: { accept: 'application/json' } });
    expect(forged.status).toBe(400);
    expect(await forged.json()).toEqual({ error: { code: 'TG_CONSENT_LINK_INVALID', message: 'This consent link (callback) was already used, has expired (links last 10 minutes), or was not issued by this server; nothing was stored. Call the tool again for a new link.', details: { step: 'callback' } } });
    const erin = await f.contextFor(await f.callerToken('erin'));
    // Erin signs in as herself, then denies at the provider.
    landing = a;
    f.idp.setInteractiveUser({ sub: 'erin' });
    const browser = new Browser();
    const atProvider = await browser.visit(await consentUrl(a, erin), 20, (next) => next.searchParams.get('client_id') === CLIENT.id);
    f.idp.denyNextInteraction();
    const denied = await browser.visit(atProvider.url);
    expect(denied.status).toBe(400);
    expect(denied.body).toContain('toolgraph: the provider did not authorize agent jira: access_denied (the user denied the request) [TG_AUTHORIZATION_FAILED]');
    expect((await failure(a.resolve(agent(), { context: erin }))).code).toBe('TG_CONSENT_REQUIRED');
  });

  it('a request without a caller (the local operator) uses the operator\'s sign-in, not anyone\'s consent', async () => {
    const a = await replica();
    const error = await failure(a.resolve(agent(), { context: null }));
    expect(error.code).toBe('TG_NO_DOWNSTREAM_CREDENTIAL');
    expect(error.message).toContain('toolgraph auth login jira');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningToolgraph } from '../../src/serve/index.ts';
import { Browser } from '../support/browser.ts';
import { captureLogger } from '../support/capture-logger.ts';
import { startDownstreamApi, type DownstreamApi } from '../support/downstream-api.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { restCall, startServe } from './support.ts';

/**
 * The consent URL a three-legged agent hands its caller is bound to that caller's browser: through
 * `toolgraph serve` against oidc-provider, a browser signed in as anyone else, or a browser that did
 * not start the flow, completes nothing, and nothing is stored for anyone.
 */
const TOOLGRAPH = 'https://toolgraph.binding.test';
const API = 'https://api.binding.test';
/** The vendor app the jira agent signs callers in with. */
const JIRA_CLIENT = { id: 'toolgraph-jira', secret: `jira-secret-${crypto.randomUUID()}` };
/** OIDC_CLIENT_ID: toolgraph's own client at the SSO IdP, which signs the consenting browser in. */
const SSO_CLIENT = { id: 'toolgraph-sso', secret: `sso-secret-${crypto.randomUUID()}` };
/** How long a consent link lasts in this server (TOOLGRAPH_CONSENT_LINK_TTL_SECS). */
const LINK_TTL_SECONDS = 5;

let idp: TestIdp;
let api: DownstreamApi;
let running: RunningToolgraph;
let lines: string[];

beforeAll(async () => {
  idp = await startIdp({ defaultAudience: TOOLGRAPH });
  api = await startDownstreamApi({ audience: API, issuer: idp.issuer, jwksUri: idp.jwksUri });
  const captured = captureLogger('debug');
  lines = captured.lines;
  running = await startServe({
    only: ['tools'], logger: captured.logger, env: {
      AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl, TOKEN_AUDIENCE: TOOLGRAPH, LOG_LEVEL: 'debug',
      OIDC_CLIENT_ID: SSO_CLIENT.id, OIDC_CLIENT_SECRET: SSO_CLIENT.secret, TOOLGRAPH_CONSENT_LINK_TTL_SECS: String(LINK_TTL_SECONDS),
      TOOLGRAPH_AGENT_JIRA_URL: api.url, TOOLGRAPH_AGENT_JIRA_PATTERN: 'three-legged', TOOLGRAPH_AGENT_JIRA_AUDIENCE: API,
      TOOLGRAPH_AGENT_JIRA_PROVIDER_CONFIG_URL: idp.discoveryUrl, TOOLGRAPH_AGENT_JIRA_CLIENT_ID: JIRA_CLIENT.id, TOOLGRAPH_AGENT_JIRA_CLIENT_SECRET: JIRA_CLIENT.secret,
      TOOLGRAPH_AGENT_JIRA_SCOPES: 'openid api offline_access',
    },
  });
  await idp.upsertClient({
    client_id: JIRA_CLIENT.id, client_secret: JIRA_CLIENT.secret, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
    redirect_uris: [`${running.origin}/agents/oauth/callback`], token_endpoint_auth_method: 'client_secret_basic', scope: 'openid offline_access api',
  });
  await idp.upsertClient({
    client_id: SSO_CLIENT.id, client_secret: SSO_CLIENT.secret, grant_types: ['authorization_code'], response_types: ['code'],
    redirect_uris: [`${running.origin}/agents/oauth/signed-in`], token_endpoint_auth_method: 'client_secret_basic', scope: 'openid',
  });
});
afterAll(async () => {
  await running?.close();
  await api?.close();
  await idp?.close();
});

/** Everything secret a test saw (tokens, link ids, codes, cookie values): the log must hold none of it. */
const secrets: string[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const WHOAMI = { name: 'jira', arguments: { action: 'get', path: '/whoami' } };

interface CallAnswer {
  isError?: boolean;
  structuredContent?: { consent_required?: { agent: string; authorization_url: string }; status?: number; body?: Record<string, unknown> };
}

async function call(sub: string): Promise<CallAnswer> {
  const token = await idp.mintToken({ sub, scope: 'openid', audience: TOOLGRAPH });
  secrets.push(token);
  return (await (await restCall(running.origin, WHOAMI, { authorization: `Bearer ${token}` })).json()) as CallAnswer;
}

/** The URL the tool answers a caller without a consent. */
async function consentUrlOf(sub: string): Promise<string> {
  const answer = await call(sub);
  expect(answer.isError, JSON.stringify(answer)).toBe(true);
  const url = answer.structuredContent!.consent_required!.authorization_url;
  secrets.push(new URL(url).searchParams.get('consent') ?? url);
  return url;
}

/** Whether a caller's next call still asks for consent (nothing was stored for them). */
async function stillAsked(sub: string): Promise<boolean> {
  return (await call(sub)).structuredContent?.consent_required !== undefined;
}

const codeGrants = () => idp.grants.filter((g) => g.grantType === 'authorization_code').length;

/** A browser signed in at the IdP as `sub` when the IdP asks who it is. */
function browserOf(sub: string): Browser {
  idp.setInteractiveUser({ sub });
  return new Browser();
}

/** Where the browser is sent to consent at the vendor (the jira client's authorization request). */
const atVendor = (url: URL) => url.pathname === '/auth' && url.searchParams.get('client_id') === JIRA_CLIENT.id;
/** The vendor's redirect back to toolgraph's callback route, with its code. */
const atCallback = (url: URL) => url.href.startsWith(`${running.origin}/agents/oauth/callback?`);

/** The binding cookie a browser holds for the consent routes (name and value); the test remembers the value as a secret. */
function bindingCookieOf(browser: Browser): [string, string] {
  const found = Object.entries(browser.cookiesFor(`${running.origin}/agents/oauth/callback`)).filter(([name]) => name.startsWith('tg_consent_'));
  expect(found).toHaveLength(1);
  secrets.push(found[0]![1]);
  return found[0]!;
}

/** The callback URL brought back from the vendor, requested by a client asking for JSON, with `cookie`. */
async function callback(url: string, cookie?: string): Promise<{ status: number; body: { error?: { code: string; message: string } } }> {
  secrets.push(new URL(url).searchParams.get('code') ?? url);
  const response = await fetch(url, { headers: { accept: 'application/json', ...(cookie === undefined ? {} : { cookie }) }, redirect: 'manual' });
  return { status: response.status, body: (await response.json()) as { error?: { code: string; message: string } } };
}

describe('the rightful caller consents through the link', () => {
  it('opens the link in their own browser: a binding cookie, the SSO sign-in (PKCE, nonce), the vendor, the callback; then calls with their own token', async () => {
    const url = await consentUrlOf('alice');
    expect(url).toMatch(new RegExp(`^${running.origin}/agents/oauth/start\\?consent=[A-Za-z0-9_-]{43}$`));
    // Asking again before opening it answers the same link; a HEAD (a link checker) does not spend it.
    expect(await consentUrlOf('alice')).toBe(url);
    expect((await fetch(url, { method: 'HEAD', redirect: 'manual' })).status).toBe(405);
    const browser = browserOf('alice');
    const visit = await browser.visit(url);
    expect(visit.status, visit.body).toBe(200);
    expect(visit.body).toContain('agent jira may now act for you');
    const [start, toSso] = visit.steps;
    expect(start).toMatchObject({ method: 'GET', url, status: 302 });
    expect(start!.setCookies).toHaveLength(1);
    expect(start!.setCookies[0]).toMatch(new RegExp(`^tg_consent_[A-Za-z0-9_-]{12}=[A-Za-z0-9_-]{43}; Path=/agents/oauth; Max-Age=[1-${LINK_TTL_SECONDS}]; HttpOnly; SameSite=Lax$`));
    secrets.push(start!.setCookies[0]!.split(';')[0]!.split('=')[1]!);
    const sso = new URL(toSso!.url);
    expect(`${sso.origin}${sso.pathname}`).toBe(`${idp.issuer}/auth`);
    expect(Object.fromEntries(sso.searchParams)).toMatchObject({
      client_id: SSO_CLIENT.id, response_type: 'code', scope: 'openid', redirect_uri: `${running.origin}/agents/oauth/signed-in`,
      code_challenge_method: 'S256', code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const vendor = new URL(visit.steps.find((s) => atVendor(new URL(s.url)))!.url);
    expect(Object.fromEntries(vendor.searchParams)).toMatchObject({ redirect_uri: `${running.origin}/agents/oauth/callback`, prompt: 'consent', resource: API, code_challenge_method: 'S256' });
    const back = visit.steps.find((s) => s.url.startsWith(`${running.origin}/agents/oauth/signed-in?`))!;
    expect(back.status).toBe(302);
    for (const step of visit.steps) secrets.push(new URL(step.url).searchParams.get('code') ?? '');
    // The flow is over: the cookie is cleared.
    expect(Object.keys(browser.cookiesFor(`${running.origin}/agents/oauth/callback`)).filter((n) => n.startsWith('tg_consent_'))).toEqual([]);

    const answer = await call('alice');
    expect(answer.isError, JSON.stringify(answer)).not.toBe(true);
    expect(answer.structuredContent).toMatchObject({ status: 200, body: { via: 'bearer', sub: 'alice', aud: API } });
    api.calls.length = 0;
  });

  it('a used link is refused when opened again', async () => {
    const url = await consentUrlOf('bob');
    expect((await browserOf('bob').visit(url)).status).toBe(200);
    const again = await browserOf('bob').visit(url);
    expect(again.status).toBe(400);
    expect(again.body).toContain('[TG_CONSENT_LINK_INVALID]');
    const json = await fetch(url, { headers: { accept: 'application/json' }, redirect: 'manual' });
    expect(json.status).toBe(400);
    expect(((await json.json()) as { error: { code: string } }).error.code).toBe('TG_CONSENT_LINK_INVALID');
  });
});

describe('an attacker cannot complete a consent for someone else', () => {
  it('an attacker\'s browser (another subject) opening the victim\'s consent URL is refused, and nothing is stored', async () => {
    const url = await consentUrlOf('carol');
    const grants = codeGrants();
    const visit = await browserOf('mallory').visit(url);
    expect(visit.status, visit.body).toBe(403);
    expect(visit.body).toContain('TG_CONSENT_SUBJECT_MISMATCH');
    // The only code redeemed was the SSO sign-in's (which proved it is mallory); the vendor was never reached.
    expect(codeGrants() - grants).toBe(1);
    expect(visit.steps.some((s) => atVendor(new URL(s.url)))).toBe(false);
    expect(await stillAsked('carol')).toBe(true);
    expect(api.calls).toHaveLength(0);
  });

  it('login CSRF: a victim\'s browser completing the attacker\'s consent request (without the attacker\'s binding cookie) is refused, and nothing is stored', async () => {
    const url = await consentUrlOf('mallory');
    // The attacker goes as far as the vendor's authorization URL in their own browser and sends it on.
    const lure = await browserOf('mallory').visit(url, 20, atVendor);
    expect(atVendor(new URL(lure.url))).toBe(true);
    const grants = codeGrants();
    const visit = await browserOf('dave').visit(lure.url);
    expect(visit.url.startsWith(`${running.origin}/agents/oauth/callback?`)).toBe(true);
    expect(visit.status, visit.body).toBe(403);
    expect(visit.body).toContain('TG_CONSENT_BINDING_FAILED');
    // The vendor's code was never redeemed: no token set exists for anyone.
    expect(codeGrants()).toBe(grants);
    expect(await stillAsked('mallory')).toBe(true);
    expect(api.calls).toHaveLength(0);
  });
});

describe('the callback requires the browser that started the flow', () => {
  it('without the binding cookie, or with a wrong one, the callback is refused, the code is not redeemed, and the request is spent', async () => {
    for (const sent of ['none', 'wrong'] as const) {
      const browser = browserOf('erin');
      const atBack = await browser.visit(await consentUrlOf('erin'), 20, atCallback);
      expect(atCallback(new URL(atBack.url))).toBe(true);
      const [name, value] = bindingCookieOf(browser);
      const grants = codeGrants();
      const refused = await callback(atBack.url, sent === 'none' ? undefined : `${name}=${value.slice(0, -2)}xx`);
      expect(refused.status).toBe(403);
      expect(refused.body.error?.code).toBe('TG_CONSENT_BINDING_FAILED');
      expect(refused.body.error?.message).toContain(sent === 'none' ? 'it carries no consent cookie' : 'its consent cookie does not match');
      expect(codeGrants()).toBe(grants);
      // The rightful browser coming late finds the request spent: nothing is ever stored from this code.
      const late = await callback(atBack.url, `${name}=${value}`);
      expect(late.body.error?.code).toBe('TG_CONSENT_LINK_INVALID');
      expect(await stillAsked('erin')).toBe(true);
    }
  });

  it('the sign-in step also requires the cookie: an SSO redirect back without it is refused', async () => {
    const browser = browserOf('frank');
    const atSignedIn = await browser.visit(await consentUrlOf('frank'), 20, (url) => url.href.startsWith(`${running.origin}/agents/oauth/signed-in?`));
    bindingCookieOf(browser);
    secrets.push(new URL(atSignedIn.url).searchParams.get('code') ?? '');
    const refused = await fetch(atSignedIn.url, { headers: { accept: 'application/json' }, redirect: 'manual' });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('TG_CONSENT_BINDING_FAILED');
    expect(await stillAsked('frank')).toBe(true);
  });
});

describe('links expire', () => {
  it('a link opened after its lifetime is refused; a flow that outlives it is refused at the callback', async () => {
    const unopened = await consentUrlOf('grace');
    await sleep(LINK_TTL_SECONDS * 1000 + 300);
    const late = await browserOf('grace').visit(unopened);
    expect(late.status).toBe(400);
    expect(late.body).toContain('[TG_CONSENT_LINK_INVALID]');

    const browser = browserOf('grace');
    const atVendorStep = await browser.visit(await consentUrlOf('grace'), 20, atVendor);
    expect(atVendor(new URL(atVendorStep.url))).toBe(true);
    await sleep(LINK_TTL_SECONDS * 1000 + 300);
    const finished = await browser.visit(atVendorStep.url);
    expect(atCallback(new URL(finished.url))).toBe(true);
    expect(finished.status).toBe(400);
    expect(finished.body).toContain('[TG_CONSENT_LINK_INVALID]');
    expect(await stillAsked('grace')).toBe(true);
    expect(api.calls).toHaveLength(0);
  }, 30_000);
});

describe('a server reached over https', () => {
  it('marks the binding cookie Secure and scopes it to the consent routes under the public path', async () => {
    const captured = captureLogger('debug');
    const behindProxy = await startServe({
      only: ['tools'], logger: captured.logger, env: {
        AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl, TOKEN_AUDIENCE: TOOLGRAPH, TOOLGRAPH_PUBLIC_URL: 'https://tools.binding.test/toolgraph/',
        OIDC_CLIENT_ID: SSO_CLIENT.id, OIDC_CLIENT_SECRET: SSO_CLIENT.secret,
        TOOLGRAPH_AGENT_JIRA_URL: api.url, TOOLGRAPH_AGENT_JIRA_PATTERN: 'three-legged', TOOLGRAPH_AGENT_JIRA_AUDIENCE: API,
        TOOLGRAPH_AGENT_JIRA_PROVIDER_CONFIG_URL: idp.discoveryUrl, TOOLGRAPH_AGENT_JIRA_CLIENT_ID: JIRA_CLIENT.id, TOOLGRAPH_AGENT_JIRA_CLIENT_SECRET: JIRA_CLIENT.secret,
      },
    });
    try {
      const token = await idp.mintToken({ sub: 'heidi', scope: 'openid', audience: TOOLGRAPH });
      const answer = (await (await restCall(behindProxy.origin, WHOAMI, { authorization: `Bearer ${token}` })).json()) as CallAnswer;
      const link = new URL(answer.structuredContent!.consent_required!.authorization_url);
      expect(`${link.origin}${link.pathname}`).toBe('https://tools.binding.test/toolgraph/agents/oauth/start');
      // The proxy strips its path prefix: this server answers the start route at its own root.
      const start = await fetch(`${behindProxy.origin}/agents/oauth/start${link.search}`, { redirect: 'manual' });
      expect(start.status).toBe(302);
      expect(new URL(start.headers.get('location')!).searchParams.get('redirect_uri')).toBe('https://tools.binding.test/toolgraph/agents/oauth/signed-in');
      expect(start.headers.getSetCookie()[0]).toMatch(/^tg_consent_[A-Za-z0-9_-]{12}=[A-Za-z0-9_-]{43}; Path=\/toolgraph\/agents\/oauth; Max-Age=\d+; HttpOnly; SameSite=Lax; Secure$/);
    } finally {
      await behindProxy.close();
    }
  });
});

describe('start-up', () => {
  it('refuses per-caller consent without OIDC_CLIENT_ID, naming it: nothing could prove who opens a link', async () => {
    const refused = await startServe({
      only: ['tools'], env: {
        AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl, TOKEN_AUDIENCE: TOOLGRAPH,
        TOOLGRAPH_AGENT_JIRA_URL: api.url, TOOLGRAPH_AGENT_JIRA_PATTERN: 'three-legged', TOOLGRAPH_AGENT_JIRA_AUDIENCE: API,
        TOOLGRAPH_AGENT_JIRA_PROVIDER_CONFIG_URL: idp.discoveryUrl, TOOLGRAPH_AGENT_JIRA_CLIENT_ID: JIRA_CLIENT.id, TOOLGRAPH_AGENT_JIRA_CLIENT_SECRET: JIRA_CLIENT.secret,
      },
    }).then((r) => r.close().then(() => undefined), (error: unknown) => error);
    expect(refused).toMatchObject({ code: 'TG_CONFIG_INVALID', details: { setting: 'OIDC_CLIENT_ID' } });
    expect((refused as Error).message).toContain('per-caller consent');
  });
});

describe('logs', () => {
  it('name steps and codes, never a token, link id, authorization code or cookie value', () => {
    const text = lines.join('\n');
    expect(text).toContain('consent step refused: nothing stored');
    expect(text).toContain('TG_CONSENT_SUBJECT_MISMATCH');
    for (const secret of secrets.filter((s) => s.length >= 16)) expect(text.includes(secret), `the log contains a secret (${secret.slice(0, 6)}…)`).toBe(false);
    expect(text).not.toMatch(/tg_consent_[A-Za-z0-9_-]{12}/);
  });
});

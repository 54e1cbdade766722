import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HYBRID_VENDOR_TOKEN_INFO, TokenSetStore, oauthConfiguration, providerServer, signInWithDeviceFlow } from '../../src/auth/index.ts';
import type { RunningToolgraph } from '../../src/serve/index.ts';
import { Browser } from '../support/browser.ts';
import { modernMcpClient, modernRequest } from '../support/modern-mcp-client.ts';
import { captureLogger } from '../support/capture-logger.ts';
import { startDownstreamApi, type DownstreamApi } from '../support/downstream-api.ts';
import { DEVICE_CODE_GRANT, startIdp, TOKEN_EXCHANGE_GRANT, type TestIdp } from '../support/idp.ts';
import { restCall, startServe, textOf } from './support.ts';

/**
 * Issue 17: every delegation pattern through `toolgraph serve` (startToolgraph in process) and the
 * official MCP SDK client, against oidc-provider with its default policies (a refresh token only with
 * offline_access and prompt=consent) and a downstream API that records the Authorization header.
 */
const TOOLGRAPH = 'https://toolgraph.served.test';
const API = 'https://api.served.test';
/** The vendor app a three-legged agent signs its callers in with (a web client redirecting to toolgraph). */
const JIRA_CLIENT = { id: 'toolgraph-jira', secret: `jira-secret-${crypto.randomUUID()}` };
/**
 * OIDC_CLIENT_ID: token exchange and the hybrid agent's device flow, whose grants are taken away step
 * by step; and the sign-in that proves a consenting browser is the caller's (authorization code).
 */
const HYBRID_CLIENT = { id: 'toolgraph-hybrid', secret: `hybrid-secret-${crypto.randomUUID()}` };
/** Vendor access tokens live 2 s, so a test sees them expire and refresh. */
const API_TOKEN_SECONDS = 2;

let idp: TestIdp;
let api: DownstreamApi;
let dataDir: string;
let stateDir: string;
let running: RunningToolgraph;
let lines: string[];
const callerTokens: string[] = [];

function env(): Record<string, string> {
  return {
    AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl, TOKEN_AUDIENCE: TOOLGRAPH, LOG_LEVEL: 'debug',
    ENABLE_DELEGATION: 'true', AUDIENCE: API, OIDC_CLIENT_ID: HYBRID_CLIENT.id, OIDC_CLIENT_SECRET: HYBRID_CLIENT.secret,
    // Consents outlive the process: the file state store under the data dir.
    TOOLGRAPH_PERSISTENCE: 'file', TOOLGRAPH_DATA_DIR: dataDir, TOOLGRAPH_STATE_DIR: stateDir, TOOLGRAPH_AUDIT_LOG: join(stateDir, 'audit.jsonl'),
    ...searchAgentEnv(),
    TOOLGRAPH_AGENT_JIRA_URL: api.url, TOOLGRAPH_AGENT_JIRA_PATTERN: 'three-legged', TOOLGRAPH_AGENT_JIRA_AUDIENCE: API,
    TOOLGRAPH_AGENT_JIRA_PROVIDER_CONFIG_URL: idp.discoveryUrl, TOOLGRAPH_AGENT_JIRA_CLIENT_ID: JIRA_CLIENT.id, TOOLGRAPH_AGENT_JIRA_CLIENT_SECRET: JIRA_CLIENT.secret,
    TOOLGRAPH_AGENT_JIRA_SCOPES: 'openid api offline_access',
    TOOLGRAPH_AGENT_VENDOR_URL: api.url, TOOLGRAPH_AGENT_VENDOR_PATTERN: 'hybrid', TOOLGRAPH_AGENT_VENDOR_AUDIENCE: API,
  };
}

/** The loopback-seeded search agent: three-legged with the operator's consent (`toolgraph auth login search`). */
function searchAgentEnv(): Record<string, string> {
  return {
    TOOLGRAPH_AGENT_SEARCH_URL: api.url, TOOLGRAPH_AGENT_SEARCH_PATTERN: 'three-legged', TOOLGRAPH_AGENT_SEARCH_CONSENT: 'operator', TOOLGRAPH_AGENT_SEARCH_AUDIENCE: API,
    TOOLGRAPH_AGENT_SEARCH_PROVIDER_CONFIG_URL: idp.discoveryUrl, TOOLGRAPH_AGENT_SEARCH_CLIENT_ID: idp.threeLeggedClient.clientId,
    TOOLGRAPH_AGENT_SEARCH_CLIENT_SECRET: idp.threeLeggedClient.clientSecret, TOOLGRAPH_AGENT_SEARCH_SCOPES: 'openid api offline_access',
  };
}

async function serve(): Promise<void> {
  const captured = captureLogger('debug');
  lines = captured.lines;
  running = await startServe({ only: ['tools'], logger: captured.logger, env: env() });
  // The vendor app sends browsers back to this server's callback route.
  await idp.upsertClient({
    client_id: JIRA_CLIENT.id, client_secret: JIRA_CLIENT.secret, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
    redirect_uris: [`${running.origin}/agents/oauth/callback`], token_endpoint_auth_method: 'client_secret_basic', scope: 'openid email offline_access api',
  });
  // The consenting browser signs in with OIDC_CLIENT_ID, which sends it back to this server.
  await hybridClientGrants(grantsNow);
}

async function hybridClientGrants(grantTypes: string[]): Promise<void> {
  await idp.upsertClient({
    client_id: HYBRID_CLIENT.id, client_secret: HYBRID_CLIENT.secret, grant_types: ['authorization_code', ...grantTypes], response_types: ['code'],
    redirect_uris: running === undefined ? [] : [`${running.origin}/agents/oauth/signed-in`],
    token_endpoint_auth_method: 'client_secret_basic', scope: 'openid offline_access api',
  });
}
let grantsNow: string[] = [];

beforeAll(async () => {
  idp = await startIdp({ defaultAudience: TOOLGRAPH, accessTokenTtlFor: { [API]: API_TOKEN_SECONDS } });
  api = await startDownstreamApi({ audience: API, issuer: idp.issuer, jwksUri: idp.jwksUri });
  dataDir = mkdtempSync(join(tmpdir(), 'tg-served-data-'));
  stateDir = mkdtempSync(join(tmpdir(), 'tg-served-state-'));
  grantsNow = [TOKEN_EXCHANGE_GRANT, DEVICE_CODE_GRANT, 'refresh_token'];
  await hybridClientGrants(grantsNow);
  await serve();
});
afterAll(async () => {
  await running?.close();
  await api?.close();
  await idp?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(stateDir, { recursive: true, force: true });
});

async function callerToken(sub: string): Promise<string> {
  const token = await idp.mintToken({ sub, scope: 'openid', audience: TOOLGRAPH });
  callerTokens.push(token);
  return token;
}

/** The official SDK client; `urlElicitation` declares MCP's URL-mode elicitation capability. */
async function connect(token: string, urlElicitation: boolean): Promise<Client> {
  const client = new Client({ name: 'served-delegation-test', version: '1' }, { capabilities: urlElicitation ? { elicitation: { url: {} } } : {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${running.origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

const WHOAMI = (agent: string) => ({ name: agent, arguments: { action: 'get', path: '/whoami' } });

/** What the downstream API answered through the tool: who the token it received was for. */
async function whoamiThrough(client: Client, agent: string): Promise<Record<string, unknown>> {
  const result = await client.callTool(WHOAMI(agent));
  expect(result.isError, JSON.stringify(result)).not.toBe(true);
  const output = result.structuredContent as { status: number; body: Record<string, unknown> };
  expect(output.status).toBe(200);
  return output.body;
}

/**
 * The caller `sub` opens the link the tool answered in their own browser: signs in at the IdP as
 * themselves, consents at the vendor (the same IdP here, so the vendor account is `sub` too) and
 * comes back to the callback route. Answers the final page and the vendor's authorization URL.
 */
async function consent(url: string, sub: string): Promise<{ body: string; vendorUrl: URL }> {
  idp.setInteractiveUser({ sub });
  const visit = await new Browser().visit(url);
  expect(visit.url.startsWith(`${running.origin}/agents/oauth/callback?`)).toBe(true);
  expect(visit.status, visit.body).toBe(200);
  const vendor = visit.steps.find((s) => new URL(s.url).searchParams.get('client_id') === JIRA_CLIENT.id);
  return { body: visit.body, vendorUrl: new URL(vendor!.url) };
}

const refreshGrants = () => idp.grants.filter((g) => g.grantType === 'refresh_token' && g.ok).length;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('three-legged, consent per caller', () => {
  let aliceToken: string;
  let bobToken: string;

  it('a caller without a consent gets the authorization URL as MCP URL-mode elicitation; after consenting, calls carry that caller\'s token', async () => {
    aliceToken = await callerToken('alice');
    const alice = await connect(aliceToken, true);
    const asked = await alice.callTool(WHOAMI('jira')).then(() => undefined, (error: unknown) => error);
    expect(asked).toBeInstanceOf(UrlElicitationRequiredError);
    const [elicitation] = (asked as UrlElicitationRequiredError).elicitations;
    expect(elicitation).toMatchObject({ mode: 'url', elicitationId: expect.any(String), message: expect.stringContaining('Agent jira needs your consent') });
    const url = new URL(elicitation!.url);
    // The link is this server's start route, which sends the caller's browser on (docs/delegation.md).
    expect(`${url.origin}${url.pathname}`).toBe(`${running.origin}/agents/oauth/start`);
    expect(api.calls).toHaveLength(0);

    const { body, vendorUrl } = await consent(url.href, 'alice');
    expect(body).toContain('agent jira may now act for you');
    expect(`${vendorUrl.origin}${vendorUrl.pathname}`).toBe(`${idp.issuer}/auth`);
    expect(Object.fromEntries(vendorUrl.searchParams)).toMatchObject({
      client_id: JIRA_CLIENT.id, response_type: 'code', redirect_uri: `${running.origin}/agents/oauth/callback`, scope: 'openid api offline_access',
      prompt: 'consent', resource: API, code_challenge_method: 'S256', code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    // The same callback again: the consent request was taken once.
    const replay = await fetch(`${running.origin}/agents/oauth/callback?code=x&state=${vendorUrl.searchParams.get('state')}`);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('This consent link (callback) was already used, has expired');

    expect(await whoamiThrough(alice, 'jira')).toMatchObject({ via: 'bearer', sub: 'alice', aud: API });
    await alice.close();
  });

  it('a second caller gets a consent of their own: a tool error whose text and structured content carry the URL (no URL elicitation declared), then their own token', async () => {
    bobToken = await callerToken('bob');
    const bob = await connect(bobToken, false);
    const asked = await bob.callTool(WHOAMI('jira'));
    expect(asked.isError).toBe(true);
    const consentRequired = (asked.structuredContent as { consent_required: { agent: string; authorization_url: string; expires_in: number } }).consent_required;
    expect(consentRequired).toMatchObject({ agent: 'jira', expires_in: expect.any(Number) });
    expect(textOf(asked)).toContain(consentRequired.authorization_url);
    expect(consentRequired.authorization_url.startsWith(`${running.origin}/agents/oauth/start?consent=`)).toBe(true);
    // The REST endpoint answers the same open request (the same URL): a caller retrying is not sent a new one each time.
    const rest = (await (await restCall(running.origin, WHOAMI('jira'), { authorization: `Bearer ${bobToken}` })).json()) as { isError: boolean; structuredContent: typeof asked.structuredContent };
    expect(rest).toMatchObject({ isError: true, structuredContent: { consent_required: { authorization_url: consentRequired.authorization_url } } });

    await consent(consentRequired.authorization_url, 'bob');
    expect(await whoamiThrough(bob, 'jira')).toMatchObject({ sub: 'bob', aud: API });
    // Alice still calls with her own consent.
    const alice = await connect(aliceToken, true);
    expect(await whoamiThrough(alice, 'jira')).toMatchObject({ sub: 'alice' });
    await Promise.all([alice.close(), bob.close()]);
  });

  it('refreshes a caller\'s token set once it expires (a refresh grant at the IdP), and keeps the consent across a server restart', async () => {
    const alice = await connect(aliceToken, true);
    const before = refreshGrants();
    const seen = api.calls.filter((c) => c.claims?.sub === 'alice').map((c) => c.bearer);
    await sleep(API_TOKEN_SECONDS * 1000 + 200);
    expect(await whoamiThrough(alice, 'jira')).toMatchObject({ sub: 'alice' });
    expect(refreshGrants()).toBeGreaterThan(before);
    expect(seen).not.toContain(api.calls.at(-1)!.bearer);
    expect(lines.some((l) => l.includes('refreshed a caller\'s token set'))).toBe(true);
    await alice.close();

    await running.close();
    await serve();
    await sleep(API_TOKEN_SECONDS * 1000 + 200);
    const afterRestart = refreshGrants();
    for (const [token, vendorUser] of [[aliceToken, 'alice'], [bobToken, 'bob']] as const) {
      const client = await connect(token, true);
      expect(await whoamiThrough(client, 'jira')).toMatchObject({ sub: vendorUser });
      await client.close();
    }
    // Both sets were read back from the store and refreshed with their stored refresh tokens.
    expect(refreshGrants() - afterRestart).toBe(2);
  });
});

/** A JSON-RPC answer from `/mcp`, whether sent as JSON or as one SSE event. */
async function rpcAnswer(response: Response): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const text = await response.text();
  const json = response.headers.get('content-type')?.startsWith('text/event-stream') ? /^data: (.*)$/m.exec(text)![1]! : text;
  return JSON.parse(json) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

describe('three-legged consent on MCP 2026-07-28: input_required with a URL-mode elicitation', () => {
  it('the SDK 2.x client sends its user to the link, answers accept, and its retried call carries that caller\'s token', async () => {
    const asked: { url: string; message: string }[] = [];
    const heidi = await modernMcpClient(running.origin, {
      token: await callerToken('heidi'),
      onUrlElicitation: async (params) => {
        asked.push({ url: params.url, message: params.message });
        await consent(params.url, 'heidi');
        return { action: 'accept' };
      },
    });
    const before = api.calls.length;
    const result = await heidi.callTool(WHOAMI('jira'));
    expect(result.isError, JSON.stringify(result)).not.toBe(true);
    expect((result.structuredContent as { body: Record<string, unknown> }).body).toMatchObject({ via: 'bearer', sub: 'heidi', aud: API });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toContain('Agent jira needs your consent');
    const url = new URL(asked[0]!.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${running.origin}/agents/oauth/start`);
    // Only the retried call reached the API: the first leg asked and ran nothing downstream.
    expect(api.calls.length - before).toBe(1);
    // Consented once: the next call needs no elicitation.
    expect((await heidi.callTool(WHOAMI('jira'))).isError).not.toBe(true);
    expect(asked).toHaveLength(1);
    await heidi.close();
  });

  it.each(['decline', 'cancel'] as const)('a user who answers %s ends the call with a tool error saying so, and nothing reaches the API', async (action) => {
    let asked = 0;
    const ivan = await modernMcpClient(running.origin, { token: await callerToken(`ivan-${action}`), onUrlElicitation: async () => {
      asked += 1;
      return { action };
    } });
    const before = api.calls.length;
    const result = await ivan.callTool(WHOAMI('jira'));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(`The consent for agent jira was ${action === 'decline' ? 'declined' : 'cancelled'}; call again to be asked anew.`);
    expect(asked).toBe(1);
    expect(api.calls.length).toBe(before);
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['msg'] === 'tool call' && l['outcome'] === 'TG_CONSENT_DECLINED');
    expect(logged.at(-1)).toMatchObject({ tool: 'jira', agent: 'jira', answer: action });
    await ivan.close();
  });

  it('a sealed requestState is the caller\'s: another caller retrying with it is refused (-32602), the one it was sealed for is asked again', async () => {
    const judyToken = await callerToken('judy');
    const malloryToken = await callerToken('mallory');
    const capabilities = { elicitation: { url: {} } };
    const first = await rpcAnswer(await modernRequest(running.origin, 'tools/call', WHOAMI('jira'), { authorization: `Bearer ${judyToken}` }, capabilities));
    expect(first.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String), inputRequests: { consent: { method: 'elicitation/create', params: { mode: 'url', url: expect.stringContaining('/agents/oauth/start?consent=') } } } });
    const retry = { ...WHOAMI('jira'), requestState: first.result!['requestState'], inputResponses: { consent: { action: 'accept' } } };
    const stolen = await rpcAnswer(await modernRequest(running.origin, 'tools/call', retry, { authorization: `Bearer ${malloryToken}` }, capabilities));
    expect(stolen.error?.code).toBe(-32602);
    expect(stolen.result).toBeUndefined();
    // Judy accepted without finishing the consent: the tool runs again and asks again.
    const own = await rpcAnswer(await modernRequest(running.origin, 'tools/call', retry, { authorization: `Bearer ${judyToken}` }, capabilities));
    expect(own.result).toMatchObject({ resultType: 'input_required' });
  });

  it('a 2026-07-28 client that declares no URL-mode elicitation gets the consent_required tool error with the link', async () => {
    const kim = await modernMcpClient(running.origin, { token: await callerToken('kim') });
    const result = await kim.callTool(WHOAMI('jira'));
    expect(result.isError).toBe(true);
    const required = (result.structuredContent as { consent_required: { agent: string; authorization_url: string } }).consent_required;
    expect(required.agent).toBe('jira');
    expect(required.authorization_url.startsWith(`${running.origin}/agents/oauth/start?consent=`)).toBe(true);
    expect(textOf(result)).toContain(required.authorization_url);
    await kim.close();
  });
});

describe('the loopback-seeded search agent', () => {
  it('calls with the credentials `toolgraph auth login search` seeded on the loopback callback, whoever the caller', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tg-served-login-'));
    const child = spawn(process.execPath, ['src/cli/toolgraph.ts', 'auth', 'login', 'search', '--callback-port', '0'], {
      cwd: process.cwd(),
      env: { PATH: process.env['PATH'] ?? '', HOME: home, XDG_CONFIG_HOME: join(home, 'config'), TOOLGRAPH_STATE_DIR: stateDir, ...searchAgentEnv() },
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((resolve) => child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)$/m.exec(stdout);
      if (match) resolve(match[1]!);
    }));
    expect(new URL(url).searchParams.get('client_id')).toBe(idp.threeLeggedClient.clientId);
    expect(new URL(url).searchParams.get('prompt')).toBe('consent');
    idp.setInteractiveUser({ sub: 'operator-at-search' });
    expect((await new Browser().visit(url)).body).toContain('toolgraph: agent search is signed in.');
    const [code] = (await once(child, 'exit')) as [number];
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain('refreshable');
    expect(await new TokenSetStore(stateDir).load('search')).toMatchObject({ agent: 'search', clientId: idp.threeLeggedClient.clientId, resource: API });

    for (const sub of ['carol', 'dave']) {
      const client = await connect(await callerToken(sub), true);
      expect(await whoamiThrough(client, 'search')).toMatchObject({ via: 'bearer', sub: 'operator-at-search', aud: API });
      await client.close();
    }
    rmSync(home, { recursive: true, force: true });
  });
});

describe('the hybrid agent walks its steps as the IdP takes grants away', () => {
  it('1. delegation, 2. the vendor flow\'s cached token, 3. the caller\'s token only when issued for the API', async () => {
    // The operator signed the agent in by the device flow (`toolgraph auth login vendor --device`).
    const config = oauthConfiguration(await providerServer({ configUrl: idp.discoveryUrl }), { clientId: HYBRID_CLIENT.id, clientSecret: HYBRID_CLIENT.secret });
    let confirmed: Promise<unknown> = Promise.resolve();
    idp.setInteractiveUser({ sub: 'operator-at-vendor' });
    const device = await signInWithDeviceFlow(config, {
      agent: 'vendor', scopes: ['openid', 'api', 'offline_access'], resource: API, pollIntervalSeconds: 0.05,
      onPrompt: (prompt) => void (confirmed = new Browser().visit(prompt.verificationUriComplete!)),
    });
    await confirmed;
    expect(device.refreshToken).toEqual(expect.any(String));
    await new TokenSetStore(stateDir).save(device);

    // 1. OIDC delegation: the API sees the caller, acted for by the tool server's client.
    const erin = await connect(await callerToken('erin'), true);
    expect(await whoamiThrough(erin, 'vendor')).toMatchObject({ sub: 'erin', act: { sub: HYBRID_CLIENT.id } });

    // 2. The IdP no longer allows the client the token exchange: the device flow's cached token, with an info line and no warning.
    grantsNow = [DEVICE_CODE_GRANT, 'refresh_token'];
    await hybridClientGrants(grantsNow);
    const frank = await connect(await callerToken('frank'), true);
    expect(await whoamiThrough(frank, 'vendor')).toMatchObject({ sub: 'operator-at-vendor', act: null });
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged.filter((l) => l['msg'] === HYBRID_VENDOR_TOKEN_INFO).at(-1)).toMatchObject({ level: 'info', agent: 'vendor', step: 2, delegation: 'TG_TOKEN_EXCHANGE_FAILED' });
    expect(logged.filter((l) => l['msg'] === 'OIDC delegation failed, falling back to credentials')).toEqual([]);

    // 3. No device flow either (the grant is gone and the cached token expired): the caller's own
    // token, and only one issued for the API too.
    grantsNow = [];
    await hybridClientGrants(grantsNow);
    await sleep(API_TOKEN_SECONDS * 1000 + 200);
    const refused = await frank.callTool(WHOAMI('vendor'));
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^No credential for agent vendor \(hybrid: .*1\. OIDC delegation failed: TG_TOKEN_EXCHANGE_FAILED.*2\. the device flow's cached token is unusable: TG_AUTHORIZATION_FAILED.*3\. the caller's token is not passed on: its audience "https:\/\/toolgraph\.served\.test" does not include "https:\/\/api\.served\.test"/);
    const forBoth = await idp.signToken({ iss: idp.issuer, sub: 'grace', aud: [TOOLGRAPH, API], scope: 'openid', exp: Math.floor(Date.now() / 1000) + 300 });
    callerTokens.push(forBoth);
    const grace = await connect(forBoth, true);
    expect(await whoamiThrough(grace, 'vendor')).toMatchObject({ sub: 'grace', aud: [TOOLGRAPH, API] });
    expect(api.calls.at(-1)!.bearer).toBe(forBoth);
    await Promise.all([erin.close(), frank.close(), grace.close()]);
  });
});

describe('logs', () => {
  it('carry no caller token, vendor token, refresh token or client secret', async () => {
    const store = new TokenSetStore(stateDir);
    const operatorSets = [await store.load('search'), await store.load('vendor')];
    const secrets = [
      ...callerTokens, ...api.calls.flatMap((c) => (c.bearer ? [c.bearer] : [])),
      ...operatorSets.flatMap((s) => [s?.accessToken, s?.refreshToken]).filter((s): s is string => s !== undefined),
      JIRA_CLIENT.secret, HYBRID_CLIENT.secret, idp.threeLeggedClient.clientSecret,
    ];
    const text = lines.join('\n');
    for (const secret of secrets) expect(text.includes(secret), `the log contains a secret (${secret.slice(0, 12)}…)`).toBe(false);
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\./);
    // The per-caller token sets are in the state store, not in the operator's token files.
    expect(() => readFileSync(join(stateDir, 'tokens', 'jira.json'))).toThrow(/ENOENT/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningToolgraph } from '../../src/serve/index.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { mcpClient, restCall, startServe, textOf } from './support.ts';

let idp: TestIdp;
let running: RunningToolgraph;

beforeAll(async () => {
  idp = await startIdp();
  // Delegation on, but no auth middleware: a tool call arrives with no caller token to exchange.
  running = await startServe({
    env: { AUTH_TYPE: 'none', OIDC_CONFIG_URL: idp.discoveryUrl, OIDC_CLIENT_ID: idp.clientId, OIDC_CLIENT_SECRET: idp.clientSecret, ENABLE_DELEGATION: 'true', AUDIENCE: 'https://api.elsewhere.test' },
  });
});
afterAll(async () => {
  await running?.close();
  await idp?.close();
});

/** The spec's text, verbatim and first, then its fix and how to get a token. */
const NO_USER_TOKEN = /^No user token available for delegation\. Fix: Start the server with --auth-type oidc-proxy, send Authorization: Bearer <token>, and pass --enable-delegation\. The token is an access token from the identity provider \(OIDC_CONFIG_URL\): .*device-code or client-credentials flow; `npm run dev:idp` starts a local test IdP and prints some\.$/;

describe('ENABLE_DELEGATION and a tool call without a bearer token', () => {
  it('the tool error gives the spec\'s text, then its fix: send Authorization: Bearer <token>, and how to get one', async () => {
    const { client } = await mcpClient(running.origin);
    const result = await client.callTool({ name: 'graph', arguments: { action: 'query', graph: 'demo', query: '{ Organization(first: 1) { name } }' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(NO_USER_TOKEN);
    await client.close();
    const rest = await restCall(running.origin, { name: 'graph', arguments: { action: 'query', graph: 'demo', query: '{ Organization(first: 1) { name } }' } });
    expect(rest.status).toBe(200);
    const body = await rest.json();
    expect(body.isError).toBe(true);
    expect(textOf(body)).toMatch(NO_USER_TOKEN);
  });
});

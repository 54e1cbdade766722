import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningToolgraph } from '../../src/serve/index.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { startVaultDouble, type VaultDouble } from '../support/vault-double.ts';
import { restCall, startServe, textOf } from './support.ts';

const AUDIENCE = 'https://toolgraph.test';
const ALICE_KEY = `alice-key-${crypto.randomUUID()}`;

let idp: TestIdp;
let vault: VaultDouble;
let running: RunningToolgraph;

beforeAll(async () => {
  idp = await startIdp();
  vault = await startVaultDouble();
  vault.putSecret('secret', 'users/alice/api', { key: ALICE_KEY });
  vault.putSecret('secret', 'users/bob/api', { key: 'bob-key' });
  vault.setPolicy('user-own', ['secret/data/users/{{user}}/*']);
  vault.enableJwtAuth('jwt', { issuer: idp.issuer, jwksUri: idp.jwksUri });
  // The store trusts the same IdP and accepts the tool server's audience: the caller's own token logs in.
  vault.setJwtRole('jwt', 'default', { boundAudiences: [AUDIENCE], userClaim: 'sub', policies: ['user-own'] });
  running = await startServe({
    env: { AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl, TOKEN_AUDIENCE: AUDIENCE, SECRETS_BACKEND: 'store', SECRETS_STORE_URL: vault.url, STORE_AUTH_METHOD: 'oidc' },
    only: ['tools'],
  });
});
afterAll(async () => {
  await running?.close();
  await vault?.close();
  await idp?.close();
});

async function get(sub: string, key: string): Promise<{ isError?: boolean; structuredContent?: unknown; content: { text: string }[] }> {
  const token = await idp.mintToken({ sub, scope: 'secrets:read', audience: AUDIENCE });
  const response = await restCall(running.origin, { name: 'secrets', arguments: { action: 'get', key } }, { authorization: `Bearer ${token}` });
  expect(response.status).toBe(200);
  return (await response.json()) as never;
}

describe('the secrets tool reads the store with the caller\'s own token', () => {
  it('logs in at the store as the caller, whose policies decide', async () => {
    expect((await get('alice', 'users/alice/api')).structuredContent).toEqual({ key: 'users/alice/api', value: { key: ALICE_KEY } });
    const foreign = await get('alice', 'users/bob/api');
    expect(foreign.isError).toBe(true);
    expect(textOf(foreign)).toContain('permission denied');
    expect(vault.calls.filter((c) => c.path === '/v1/auth/jwt/login').length).toBeGreaterThanOrEqual(1);
  });

  it('without a caller token (AUTH_TYPE=none) OIDC store auth answers the spec\'s text verbatim', async () => {
    const open = await startServe({ env: { SECRETS_BACKEND: 'store', SECRETS_STORE_URL: vault.url, STORE_AUTH_METHOD: 'oidc' }, only: ['tools'] });
    try {
      const response = await restCall(open.origin, { name: 'secrets', arguments: { action: 'get', key: 'users/alice/api' } });
      const body = (await response.json()) as { isError: boolean; content: { text: string }[] };
      expect(body).toEqual({ content: [{ type: 'text', text: 'No user token available for delegation' }], isError: true });
    } finally {
      await open.close();
    }
  });
});

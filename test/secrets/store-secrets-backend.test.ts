import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIENCE, captureLogger, failure, startStoreFixture, type Fixture } from './store-fixture.ts';

let f: Fixture;
beforeAll(async () => {
  f = await startStoreFixture();
});
afterAll(async () => {
  await f?.close();
});

/** Store logins (method and path) made while `run` ran. */
async function loginsDuring(run: () => Promise<unknown>): Promise<string[]> {
  const before = f.vault.calls.length;
  await run();
  return f.vault.calls.slice(before).filter((c) => c.path.endsWith('/login') || c.path.endsWith('/lookup-self')).map((c) => `${c.path} ${c.status}`);
}

describe('OIDC/JWT auth with the caller\'s IdP token', () => {
  it('logs in at auth/jwt with the role and the JWT, reads with the user\'s policies, and reuses the token', async () => {
    const backend = f.backend({ authMethod: 'oidc' });
    const alice = await f.idp.mintToken({ sub: 'alice', groups: ['eng'] });
    const logins = await loginsDuring(async () => {
      expect(await backend.get('team/db', { userToken: alice })).toEqual({ password: f.values.team, user: 'app' });
      expect(await backend.get('users/alice/api', { userToken: alice })).toEqual({ key: f.values.alice });
    });
    expect(logins).toEqual(['/v1/auth/jwt/login 200']);
  });

  it('keeps users apart: B\'s policy cannot read A\'s secret, and A\'s cached store token is never used for B', async () => {
    const backend = f.backend({ authMethod: 'oidc' });
    const alice = await f.idp.mintToken({ sub: 'alice' });
    const bob = await f.idp.mintToken({ sub: 'bob' });
    const logins = await loginsDuring(async () => {
      expect(await backend.get('users/alice/api', { userToken: alice })).toEqual({ key: f.values.alice });
      const refused = await failure(backend.get('users/alice/api', { userToken: bob }));
      expect(refused.code).toBe('TG_FORBIDDEN');
      expect(refused.message).toBe('secrets store refused to read key "users/alice/api": expected the oidc token\'s policies to grant read on secret/data/users/alice/api, got HTTP 403 (permission denied)');
      expect(await backend.get('users/bob/api', { userToken: bob })).toEqual({ key: f.values.bob });
      // Without the eng group, neither user reaches the team secrets.
      expect((await failure(backend.get('team/db', { userToken: alice }))).code).toBe('TG_FORBIDDEN');
    });
    // One login per user; bob's refusal with a fresh token is final, while alice's refusal with a
    // cached token costs one more login (the store may have cut that token's policies).
    expect(logins).toEqual(['/v1/auth/jwt/login 200', '/v1/auth/jwt/login 200', '/v1/auth/jwt/login 200']);
    expect(backend.cachedTokenCount).toBe(2);
  });

  it('works at a custom auth mount', async () => {
    const backend = f.backend({ authMethod: 'oidc', authMount: '/corp-sso/' });
    const alice = await f.idp.mintToken({ sub: 'alice' });
    expect(await loginsDuring(() => backend.get('users/alice/api', { userToken: alice }))).toEqual(['/v1/auth/corp-sso/login 200']);
  });

  it('without a user token fails with the spec\'s message', async () => {
    const result = await failure(f.backend({ authMethod: 'oidc' }).get('team/db', {}));
    expect(result).toEqual({ code: 'TG_NO_USER_TOKEN', message: 'No user token available for delegation' });
  });

  it('a JWT for another audience, or from another issuer, is refused by the store', async () => {
    const backend = f.backend({ authMethod: 'oidc' });
    const wrongAudience = await f.idp.mintToken({ sub: 'alice', audience: 'https://elsewhere.test' });
    const result = await failure(backend.get('users/alice/api', { userToken: wrongAudience }));
    expect(result.code).toBe('TG_SECRETS_STORE_AUTH_FAILED');
    expect(result.message).toBe('oidc login at auth/jwt was refused: expected HTTP 200 with auth.client_token, got HTTP 400 (error validating token: ERR_JWT_CLAIM_VALIDATION_FAILED)');
    const forged = `${wrongAudience.split('.').slice(0, 2).join('.')}.AAAA`;
    expect((await failure(backend.get('users/alice/api', { userToken: forged }))).code).toBe('TG_SECRETS_STORE_AUTH_FAILED');
    expect(backend.cachedTokenCount).toBe(0);
  });

  it('an unknown role is a refused login naming the role', async () => {
    const alice = await f.idp.mintToken({ sub: 'alice' });
    const result = await failure(f.backend({ authMethod: 'oidc', role: 'nope' }).get('team/db', { userToken: alice }));
    expect(result.message).toContain('got HTTP 400 (role "nope" could not be found)');
  });
});

describe('AppRole, static token and orchestrator auth', () => {
  it('approle logs in with role_id and secret_id', async () => {
    const backend = f.backend({ authMethod: 'approle', roleId: f.roleId, secretId: f.secretId });
    const logins = await loginsDuring(async () => {
      expect(await backend.get('ops/deploy')).toEqual({ key: f.values.ops });
      expect(await backend.get('team/db')).toMatchObject({ password: f.values.team });
    });
    expect(logins).toEqual(['/v1/auth/approle/login 200']);
    const wrong = await failure(f.backend({ authMethod: 'approle', roleId: f.roleId, secretId: 'wrong' }).get('ops/deploy'));
    expect(wrong).toEqual({ code: 'TG_SECRETS_STORE_AUTH_FAILED', message: 'approle login at auth/approle was refused: expected HTTP 200 with auth.client_token, got HTTP 400 (invalid role or secret ID)' });
    const missing = await failure(f.backend({ authMethod: 'approle' }).get('ops/deploy'));
    expect(missing).toEqual({ code: 'TG_SECRETS_STORE_AUTH_FAILED', message: 'approle auth cannot run: STORE_ROLE_ID and STORE_SECRET_ID not set' });
  });

  it('token auth checks the static token once with lookup-self, then reads with it', async () => {
    const backend = f.backend({ authMethod: 'token', token: f.staticToken });
    const logins = await loginsDuring(async () => {
      expect(await backend.get('team/db')).toMatchObject({ password: f.values.team });
      expect(await backend.get('team/db')).toMatchObject({ password: f.values.team });
    });
    expect(logins).toEqual(['/v1/auth/token/lookup-self 200']);
    expect((await failure(backend.get('ops/deploy'))).code).toBe('TG_FORBIDDEN');
    const dead = await failure(f.backend({ authMethod: 'token', token: 'hvs.not-a-token' }).get('team/db'));
    expect(dead.message).toBe('token login at auth/token/lookup-self was refused: expected HTTP 200 with auth.client_token, got HTTP 403 (permission denied)');
  });

  it('orchestrator logs in at auth/kubernetes with the service-account token file', async () => {
    const backend = f.backend({ authMethod: 'orchestrator', saTokenPath: f.saTokenPath });
    expect(await loginsDuring(() => backend.get('ops/deploy'))).toEqual(['/v1/auth/kubernetes/login 200']);
    const wrongRole = await failure(f.backend({ authMethod: 'orchestrator', saTokenPath: f.saTokenPath, role: 'other' }).get('ops/deploy'));
    expect(wrongRole.message).toContain('got HTTP 400 (invalid role name "other")');
    const noFile = await failure(f.backend({ authMethod: 'orchestrator', saTokenPath: `${f.dir}/nothing` }).get('ops/deploy'));
    expect(noFile).toEqual({ code: 'TG_SECRETS_STORE_AUTH_FAILED', message: `orchestrator auth cannot run: no service-account token file at ${f.dir}/nothing` });
  });
});

describe('auto: oidc → approle → token → orchestrator', () => {
  const everything = () => ({ authMethod: 'auto' as const, roleId: f.roleId, secretId: f.secretId, token: f.staticToken });

  it('prefers OIDC when a user token is present, and AppRole without one', async () => {
    const backend = f.backend({ ...everything(), saTokenPath: f.saTokenPath });
    const alice = await f.idp.mintToken({ sub: 'alice', groups: ['eng'] });
    expect(await loginsDuring(() => backend.get('team/db', { userToken: alice }))).toEqual(['/v1/auth/jwt/login 200']);
    expect(await loginsDuring(() => backend.get('team/db'))).toEqual(['/v1/auth/approle/login 200']);
  });

  it('falls through refused logins to the next method', async () => {
    const backend = f.backend({ ...everything(), secretId: 'wrong' });
    const badUser = await f.idp.mintToken({ sub: 'alice', audience: 'https://elsewhere.test' });
    const logins = await loginsDuring(() => backend.get('team/db', { userToken: badUser }));
    expect(logins).toEqual(['/v1/auth/jwt/login 400', '/v1/auth/approle/login 400', '/v1/auth/token/lookup-self 200']);
    const toOrchestrator = f.backend({ authMethod: 'auto', token: 'hvs.dead', saTokenPath: f.saTokenPath });
    expect(await toOrchestrator.get('ops/deploy')).toEqual({ key: f.values.ops });
  });

  it('when every method is skipped or refused, says what was tried and why', async () => {
    const backend = f.backend({ authMethod: 'auto', roleId: f.roleId, secretId: 'wrong', token: 'hvs.dead' });
    const result = await failure(backend.get('team/db'));
    expect(result.code).toBe('TG_SECRETS_STORE_AUTH_FAILED');
    expect(result.message).toBe([
      'no secrets-store auth method succeeded (STORE_AUTH_METHOD=auto tries oidc, approle, token, orchestrator): ',
      'oidc: skipped (no user token in the request context); ',
      'approle: approle login at auth/approle was refused: expected HTTP 200 with auth.client_token, got HTTP 400 (invalid role or secret ID); ',
      'token: token login at auth/token/lookup-self was refused: expected HTTP 200 with auth.client_token, got HTTP 403 (permission denied); ',
      `orchestrator: skipped (no service-account token file at ${f.dir}/absent-sa-token)`,
    ].join(''));
  });

  it('does not fall through on a refused read: a user lacking a policy never gets the service\'s identity', async () => {
    const backend = f.backend(everything());
    const bob = await f.idp.mintToken({ sub: 'bob' });
    expect((await failure(backend.get('team/db', { userToken: bob }))).code).toBe('TG_FORBIDDEN');
  });
});

describe('token cache and TTL', () => {
  it('reuses a store token until shortly before its lease ends, then logs in again', async () => {
    const backend = f.backend({ authMethod: 'oidc' });
    const alice = await f.idp.mintToken({ sub: 'alice' });
    const read = () => backend.get('users/alice/api', { userToken: alice });
    expect(await loginsDuring(read)).toHaveLength(1);
    f.clock.advance(50); // lease 60 s; reused until 6 s before its end
    expect(await loginsDuring(read)).toEqual([]);
    f.clock.advance(5);
    expect(await loginsDuring(read)).toEqual(['/v1/auth/jwt/login 200']);
  });

  it('a 403 with a cached token drops it and logs in once more', async () => {
    const backend = f.backend({ authMethod: 'approle', roleId: f.roleId, secretId: f.secretId });
    await backend.get('ops/deploy');
    f.vault.revokeLoginTokens();
    const before = f.vault.calls.length;
    expect(await backend.get('ops/deploy')).toEqual({ key: f.values.ops });
    expect(f.vault.calls.slice(before).map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([
      'GET /v1/secret/data/ops/deploy 403', 'POST /v1/auth/approle/login 200', 'GET /v1/secret/data/ops/deploy 200',
    ]);
  });

  it('an expired store token is never sent: the store double would refuse it', async () => {
    const backend = f.backend({ authMethod: 'approle', roleId: f.roleId, secretId: f.secretId });
    await backend.get('ops/deploy');
    f.clock.advance(121);
    const before = f.vault.calls.length;
    await backend.get('ops/deploy');
    expect(f.vault.calls.slice(before).map((c) => c.status)).toEqual([200, 200]);
  });

  it('1,000 concurrent reads by one user share one login', async () => {
    const backend = f.backend({ authMethod: 'oidc' });
    const alice = await f.idp.mintToken({ sub: 'alice' });
    const logins = await loginsDuring(() => Promise.all(Array.from({ length: 1000 }, () => backend.get('users/alice/api', { userToken: alice }))));
    expect(logins).toHaveLength(1);
  });
});

describe('paths, not-found and an unavailable store', () => {
  it('reads under the path prefix, encoding each key segment', async () => {
    const backend = f.backend({ authMethod: 'token', token: f.staticToken, pathPrefix: '/apps/toolgraph/' });
    expect(await backend.get('db')).toEqual({ password: f.values.prefixed });
    expect(f.vault.calls.at(-1)).toEqual({ method: 'GET', path: '/v1/secret/data/apps/toolgraph/db', status: 200 });
    const plain = f.backend({ authMethod: 'token', token: f.staticToken });
    expect(await plain.get('team/with space/é')).toEqual({ v: f.values.spaced });
    expect(f.vault.calls.at(-1)?.path).toBe('/v1/secret/data/team/with%20space/%C3%A9');
  });

  it('404 and a deleted latest version are TG_SECRET_NOT_FOUND', async () => {
    const backend = f.backend({ authMethod: 'token', token: f.staticToken });
    expect(await failure(backend.get('team/none'))).toEqual({ code: 'TG_SECRET_NOT_FOUND', message: 'no secret under key "team/none" (store path secret/data/team/none)' });
    expect((await failure(backend.get('team/gone'))).code).toBe('TG_SECRET_NOT_FOUND');
  });

  it('refuses bad keys before any request', async () => {
    const backend = f.backend({ authMethod: 'token', token: f.staticToken });
    const before = f.vault.calls.length;
    for (const key of ['', '/team/db', 'team//db', 'team/db/', 'team/../users/alice/api', '..', 'team/./db', 'team/\u0000']) {
      const result = await failure(backend.get(key));
      expect(result.code, key).toBe('TG_BAD_REQUEST');
      expect(result.message).toMatch(/^secret key .*: expected path segments separated by "\/" with no empty, "\." or "\.\." segment and no control character; got /);
    }
    expect(f.vault.calls.length).toBe(before);
  });

  it('a store that is down, sealed or silent is TG_SECRETS_STORE_UNAVAILABLE', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = await failure(f.backend({ url: `http://127.0.0.1:${port}`, authMethod: 'token', token: f.staticToken }).get('team/db'));
    expect(down).toEqual({ code: 'TG_SECRETS_STORE_UNAVAILABLE', message: `secrets store at http://127.0.0.1:${port} (SECRETS_STORE_URL) could not be reached: ECONNREFUSED` });

    f.vault.setSealed(true);
    try {
      const sealed = await failure(f.backend({ authMethod: 'token', token: f.staticToken }).get('team/db'));
      expect(sealed).toEqual({ code: 'TG_SECRETS_STORE_UNAVAILABLE', message: `secrets store at ${f.vault.url} answered HTTP 503 (Vault is sealed); expected a 2xx, 403 or 404 answer` });
    } finally {
      f.vault.setSealed(false);
    }

    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const result = await failure(f.backend({ url, authMethod: 'token', token: f.staticToken, timeoutMs: 100 }).get('team/db'));
      expect(result).toEqual({ code: 'TG_SECRETS_STORE_UNAVAILABLE', message: `secrets store at ${url} (SECRETS_STORE_URL) could not be reached: no answer within 100 ms` });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});

describe('logs', () => {
  it('never carry a secret value, a store token, a JWT or an AppRole secret id', async () => {
    const { lines, logger } = captureLogger();
    const alice = await f.idp.mintToken({ sub: 'alice', groups: ['eng'] });
    const wrongAudience = await f.idp.mintToken({ sub: 'alice', audience: 'https://elsewhere.test' });
    const all = { roleId: f.roleId, secretId: f.secretId, token: f.staticToken, saTokenPath: f.saTokenPath, logger };
    const auto = f.backend({ authMethod: 'auto', ...all });
    await auto.get('team/db', { userToken: alice });
    await auto.get('users/alice/api', { userToken: alice });
    await auto.get('ops/deploy');
    await auto.get('team/db', { userToken: wrongAudience }); // oidc refused, falls through
    f.vault.revokeLoginTokens(); // 403 on cached tokens, re-login
    await auto.get('team/db', { userToken: alice });
    await failure(auto.get('team/none', { userToken: alice }));
    await f.backend({ authMethod: 'token', token: f.staticToken, logger }).get('team/db');
    await f.backend({ authMethod: 'orchestrator', saTokenPath: f.saTokenPath, logger }).get('ops/deploy');
    await failure(f.backend({ authMethod: 'auto', roleId: f.roleId, secretId: 'wrong-secret-id', token: 'hvs.dead-static', logger }).get('team/db'));

    const text = lines.join('\n');
    expect(lines.length).toBeGreaterThan(5);
    expect(text).toContain('secrets store login');
    expect(text).toContain('trying the next auth method');
    for (const value of [...Object.values(f.values), ...f.credentials, alice, wrongAudience, 'wrong-secret-id', 'hvs.dead-static']) {
      expect(text).not.toContain(value);
    }
    expect(text).not.toMatch(/hvs\./);
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
    expect(AUDIENCE).toBeTruthy();
  });
});

import type { IncomingMessage } from 'node:http';
import { decodeJwt, type RemoteJWKSet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBearerAuthenticator, openTrustedIssuer, type TrustedIssuer } from '../../src/auth/index.ts';
import { ToolgraphError } from '../../src/errors/index.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';

const AUDIENCE = 'https://graph.toolgraph.test';
const META = 'https://graph.toolgraph.test/.well-known/oauth-protected-resource';

let idp: TestIdp;
let trusted: TrustedIssuer;
beforeAll(async () => {
  idp = await startIdp({ defaultAudience: AUDIENCE });
  trusted = await openTrustedIssuer(idp.discoveryUrl);
});
afterAll(async () => {
  trusted.close();
  await idp.close();
});

/** The trusted issuer with a key resolver that counts how often a signature is checked. */
function counted(): { issuer: TrustedIssuer; calls: () => number } {
  let calls = 0;
  const real = trusted.keys.getKey;
  const getKey = Object.assign((...args: Parameters<RemoteJWKSet>) => {
    calls += 1;
    return real(...args);
  }, { jwks: () => real.jwks() }) as unknown as RemoteJWKSet;
  return { issuer: { ...trusted, keys: { ...trusted.keys, getKey } }, calls: () => calls };
}

/** A request as node:http makes it: the parsed headers and the raw list they came from. */
const withHeaders = (headers: Record<string, string>) => ({ headers, rawHeaders: Object.entries(headers).flat() }) as unknown as IncomingMessage;
const request = (token: string) => withHeaders({ authorization: `Bearer ${token}` });

describe('createBearerAuthenticator', () => {
  it('resolves the request context: principal, token and the metadata URL', async () => {
    const authenticator = createBearerAuthenticator({ issuer: trusted, audience: AUDIENCE, resourceMetadataUrl: META });
    const token = await idp.mintToken({ sub: 'alice', scope: 'kg:read', groups: ['g1'] });
    const context = await authenticator.authenticate(request(token));
    expect(context.token).toBe(token);
    expect(context.resourceMetadataUrl).toBe(META);
    expect(context.principal).toMatchObject({ subject: 'alice', scopes: ['kg:read'], groups: ['g1'] });
  });

  it('checks a token\'s signature once: later requests and concurrent ones use the verified-token cache', async () => {
    const { issuer, calls } = counted();
    const authenticator = createBearerAuthenticator({ issuer, audience: AUDIENCE, resourceMetadataUrl: META });
    const token = await idp.mintToken({ sub: 'alice', scope: 'kg:read' });
    await Promise.all(Array.from({ length: 20 }, () => authenticator.authenticate(request(token))));
    await authenticator.authenticate(request(token));
    expect(calls()).toBe(1);
    // Another token is verified on its own.
    await authenticator.authenticate(request(await idp.mintToken({ sub: 'bob', scope: 'kg:read' })));
    expect(calls()).toBe(2);
  });

  it('without the cache, checks every time', async () => {
    const { issuer, calls } = counted();
    const authenticator = createBearerAuthenticator({ issuer, audience: AUDIENCE, resourceMetadataUrl: META, cache: false });
    const token = await idp.mintToken({ sub: 'alice', scope: 'kg:read' });
    for (let i = 0; i < 3; i++) await authenticator.authenticate(request(token));
    expect(calls()).toBe(3);
  });

  it('never caches a refusal, and a cached token stops working at its exp', async () => {
    const { issuer, calls } = counted();
    let now = Date.now();
    const authenticator = createBearerAuthenticator({ issuer, audience: AUDIENCE, resourceMetadataUrl: META, now: () => now });
    const wrong = await idp.mintToken({ sub: 'alice', scope: 'kg:read', audience: 'https://other.test' });
    for (let i = 0; i < 2; i++) await expect(authenticator.authenticate(request(wrong))).rejects.toBeInstanceOf(ToolgraphError);
    expect(calls()).toBe(2);

    const token = await idp.mintToken({ sub: 'alice', scope: 'kg:read' });
    await authenticator.authenticate(request(token));
    now = (decodeJwt(token).exp! + 31) * 1000;
    await expect(authenticator.authenticate(request(token))).rejects.toMatchObject({ code: 'TG_UNAUTHENTICATED', details: { reason: 'expired' } });
  });

  it('answers a cached token synchronously, and only that exact token, until its exp', async () => {
    const { issuer, calls } = counted();
    let now = Date.now();
    const authenticator = createBearerAuthenticator({ issuer, audience: AUDIENCE, resourceMetadataUrl: META, now: () => now });
    const token = await idp.mintToken({ sub: 'alice', scope: 'kg:read', groups: ['g1'] });
    const other = await idp.mintToken({ sub: 'bob', scope: 'kg:read' });
    // Not verified yet: no fast path, whatever the header.
    expect(authenticator.cachedContext(request(token))).toBeUndefined();
    expect(authenticator.cachedContext(withHeaders({}))).toBeUndefined();
    await authenticator.authenticate(request(token));
    const context = authenticator.cachedContext(request(token));
    expect(context).toEqual({ principal: expect.objectContaining({ subject: 'alice', scopes: ['kg:read'], groups: ['g1'] }), token, resourceMetadataUrl: META });
    expect(calls()).toBe(1);
    // Another token, the same token with its signature altered, a header that is not one bearer token.
    expect(authenticator.cachedContext(request(other))).toBeUndefined();
    const [head, payload, signature] = token.split('.') as [string, string, string];
    const forged = `${head}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(authenticator.cachedContext(request(forged))).toBeUndefined();
    await expect(authenticator.authenticate(request(forged))).rejects.toMatchObject({ code: 'TG_UNAUTHENTICATED' });
    expect(authenticator.cachedContext(withHeaders({ authorization: `Basic ${token}` }))).toBeUndefined();
    expect(authenticator.cachedContext(withHeaders({ authorization: `Bearer ${token} ${token}` }))).toBeUndefined();
    // Two Authorization headers (node:http keeps the first in req.headers): no fast path, and the slow path refuses.
    const twice = { headers: { authorization: `Bearer ${token}` }, rawHeaders: ['Authorization', `Bearer ${token}`, 'authorization', `Bearer ${other}`] } as unknown as IncomingMessage;
    expect(authenticator.cachedContext(twice)).toBeUndefined();
    await expect(authenticator.authenticate(twice)).rejects.toMatchObject({ code: 'TG_UNAUTHENTICATED', details: { reason: 'malformed' } });
    // At the token's exp the entry is gone (no clock tolerance for cached tokens); the slow path then refuses it past the tolerance.
    now = decodeJwt(token).exp! * 1000;
    expect(authenticator.cachedContext(request(token))).toBeUndefined();
    now += 31_000;
    await expect(authenticator.authenticate(request(token))).rejects.toMatchObject({ code: 'TG_UNAUTHENTICATED', details: { reason: 'expired' } });
  });

  it('has no fast path with the cache off', async () => {
    const authenticator = createBearerAuthenticator({ issuer: trusted, audience: AUDIENCE, resourceMetadataUrl: META, cache: false });
    const token = await idp.mintToken({ sub: 'alice', scope: 'kg:read' });
    await authenticator.authenticate(request(token));
    expect(authenticator.cachedContext(request(token))).toBeUndefined();
  });
});

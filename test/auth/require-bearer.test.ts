import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBearerAuthenticator, openTrustedIssuer, requestContextOf, requestPrincipal, requireBearer, type TrustedIssuer } from '../../src/auth/index.ts';
import { ToolgraphError } from '../../src/errors/index.ts';
import { sendJson, startHost, type HttpService, type RunningHost } from '../../src/http/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';

const AUDIENCE = 'https://graph.toolgraph.test';
const META = 'https://graph.toolgraph.test/.well-known/oauth-protected-resource';

let idp: TestIdp;
let trusted: TrustedIssuer;
let host: RunningHost;
let closed = 0;

/** A service that shows what it sees of the request context, or throws what the path asks for. */
const probe: HttpService = {
  name: 'probe',
  prefixes: ['/probe'],
  entryPath: '/probe',
  handle(req, res) {
    // Thrown synchronously (no promise): a cache hit runs the service in the same tick.
    if (req.url === '/probe/sync-scope') throw new ToolgraphError('TG_INSUFFICIENT_SCOPE', 'Needs kg:admin.', { details: { required: ['kg:admin', '*'] } });
    return (async () => {
      await new Promise((resolve) => setTimeout(resolve, 5)); // the context survives awaits
      if (req.url === '/probe/scope') throw new ToolgraphError('TG_INSUFFICIENT_SCOPE', 'Needs kg:admin.', { details: { required: ['kg:admin', '*'] } });
      if (req.url === '/probe/other') throw new ToolgraphError('TG_NOT_FOUND', 'No such thing.');
      const context = requestContextOf(req);
      sendJson(res, 200, {
        subject: context?.principal.subject,
        scopes: context?.principal.scopes,
        hasToken: context?.token !== undefined,
        principalOfRequest: requestPrincipal(req).subject,
      });
    })();
  },
  close: async () => {
    closed += 1;
  },
};

beforeAll(async () => {
  idp = await startIdp({ defaultAudience: AUDIENCE });
  trusted = await openTrustedIssuer(idp.discoveryUrl);
  const authenticator = createBearerAuthenticator({ issuer: trusted, audience: AUDIENCE, resourceMetadataUrl: META });
  host = await startHost({ services: [requireBearer(probe, authenticator)], logger: silentLogger(), host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await host.close();
  trusted.close();
  await idp.close();
});

const get = async (path: string, token?: string) => fetch(`${host.origin}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

describe('requireBearer', () => {
  it('binds the verified token\'s context to the request, on the first request and from the cache', async () => {
    const token = await idp.mintToken({ sub: 'alice', scope: 'kg:read kg:write' });
    const expected = { subject: 'alice', scopes: ['kg:read', 'kg:write'], hasToken: true, principalOfRequest: 'alice' };
    for (let i = 0; i < 2; i++) {
      const res = await get('/probe', token);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(expected);
    }
    // Another caller's token, now that alice's is cached: its own context, never alice's.
    const res = await get('/probe', await idp.mintToken({ sub: 'bob', scope: 'kg:read' }));
    expect(await res.json()).toMatchObject({ subject: 'bob', principalOfRequest: 'bob' });
    // Outside a request there is no context (and no ambient one: the caller rides on the request).
    expect(() => requestPrincipal()).toThrow(ToolgraphError);
  });

  it('answers 401 with the challenge before the service runs', async () => {
    const res = await get('/probe');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${META}"`);
  });

  it('answers a token with a crit extension it does not understand 401, naming crit (not the algorithm)', async () => {
    const claims = decodeJwt(await idp.mintToken({ sub: 'alice', scope: 'kg:read' }));
    const token = await idp.signToken(claims, { crit: ['urn:example:pop'], 'urn:example:pop': 1 }, { crit: { 'urn:example:pop': true } });
    const res = await get('/probe', token);
    expect(res.status).toBe(401);
    const message = 'The token\'s crit (critical) header names the extension "urn:example:pop", which this server does not understand; RFC 7515 (section 4.1.11) requires refusing the token.';
    expect(await res.json()).toEqual({ error: { code: 'TG_UNAUTHENTICATED', message, details: { reason: 'crit' } } });
    expect(res.headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", error_description="${message.replaceAll('"', "'")}", resource_metadata="${META}"`);
  });

  it('gives a scope refusal of the service its insufficient_scope challenge', async () => {
    const res = await get('/probe/scope', await idp.mintToken({ sub: 'alice', scope: 'kg:read' }));
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer error="insufficient_scope", error_description="Needs kg:admin.", scope="kg:admin", resource_metadata="${META}"`);
  });

  it('gives a scope refusal thrown synchronously on the cached path its challenge too', async () => {
    const token = await idp.mintToken({ sub: 'alice', scope: 'kg:read' });
    for (let i = 0; i < 2; i++) {
      const res = await get('/probe/sync-scope', token);
      expect(res.status).toBe(403);
      expect(res.headers.get('www-authenticate')).toBe(`Bearer error="insufficient_scope", error_description="Needs kg:admin.", scope="kg:admin", resource_metadata="${META}"`);
    }
  });

  it('leaves other errors of the service to the host, without a challenge', async () => {
    const res = await get('/probe/other', await idp.mintToken({ sub: 'alice', scope: 'kg:read' }));
    expect(res.status).toBe(404);
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it('keeps the service\'s name, prefixes and close', async () => {
    const wrapped = requireBearer(probe, createBearerAuthenticator({ issuer: trusted, audience: AUDIENCE, resourceMetadataUrl: META }));
    expect([wrapped.name, wrapped.prefixes, wrapped.entryPath]).toEqual(['probe', ['/probe'], '/probe']);
    await wrapped.close?.();
    expect(closed).toBe(1);
  });
});

import { SignJWT, base64url, decodeJwt, exportSPKI, generateKeyPair, importJWK, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLOCK_TOLERANCE_SECONDS, createAccessTokenVerifier, openTrustedIssuer, type AccessTokenVerifier, type TrustedIssuer,
} from '../../src/auth/index.ts';
import type { ToolgraphError } from '../../src/errors/index.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { failure } from '../support/toolgraph-failure.ts';

// Each refusal is a token from (or signed like) a real IdP, checked against that IdP's discovered keys.
const AUDIENCE = 'https://graph.toolgraph.test';

let idp: TestIdp;
let otherIdp: TestIdp;
let trusted: TrustedIssuer;
let verify: AccessTokenVerifier;
let userToken: string;

function verifierAt(nowMs: number): AccessTokenVerifier {
  return createAccessTokenVerifier({ issuer: idp.issuer, audience: AUDIENCE, getKey: trusted.keys.getKey, now: () => nowMs });
}

async function refusal(token: string, verifier = verify): Promise<ToolgraphError> {
  return failure(verifier(token));
}

beforeAll(async () => {
  idp = await startIdp({ defaultAudience: AUDIENCE, clientGroups: ['svc-readers'] });
  otherIdp = await startIdp({ defaultAudience: AUDIENCE });
  // A long cooldown: unknown kids in these tests must not refetch (the burst test has its own).
  trusted = await openTrustedIssuer(idp.discoveryUrl, { jwksCooldownMs: 600_000 });
  verify = createAccessTokenVerifier({ issuer: idp.issuer, audience: AUDIENCE, getKey: trusted.keys.getKey });
  userToken = await idp.mintToken({ sub: 'alice-subject', scope: 'kg:read query:graphql', groups: ['team-alpha', 'team-beta'] });
});

afterAll(async () => {
  trusted.close();
  await idp.close();
  await otherIdp.close();
});

describe('verifying a token of the trusted IdP', () => {
  it('accepts a user token: subject, scopes, groups and every claim become the principal', async () => {
    const { principal, expiresAt } = await verify(userToken);
    expect(principal.subject).toBe('alice-subject');
    expect(principal.scopes).toEqual(['kg:read', 'query:graphql']);
    expect(principal.groups).toEqual(['team-alpha', 'team-beta']);
    expect(principal.claims).toMatchObject({ iss: idp.issuer, aud: AUDIENCE, client_id: idp.clientId });
    expect(expiresAt).toBe(decodeJwt(userToken).exp);
  });

  it('accepts a client-credentials token with its scope and groups', async () => {
    const token = await idp.mintToken({ scope: 'kg:write', audience: AUDIENCE });
    const { principal } = await verify(token);
    expect(principal).toMatchObject({ subject: idp.clientId, scopes: ['kg:write'], groups: ['svc-readers'] });
  });

  it('accepts an aud list that contains the audience', async () => {
    const claims = decodeJwt(userToken);
    const token = await idp.signToken({ ...claims, aud: ['https://elsewhere.test', AUDIENCE] });
    expect((await verify(token)).principal.subject).toBe('alice-subject');
  });
});

async function realClaims() {
  return decodeJwt(userToken);
}

/** The IdP's public key as PEM: the HMAC secret of the classic key-confusion attack. */
async function publicKeyPem(): Promise<string> {
  const jwks = (await (await fetch(idp.jwksUri)).json()) as { keys: JWK[] };
  return exportSPKI(await importJWK(jwks.keys[0]!, 'RS256', { extractable: true }) as Parameters<typeof exportSPKI>[0]);
}

describe('refusals, each with its reason and a message that never echoes the token', () => {
  it.each<[string, () => Promise<string>, string, string]>([
    ['alg: none', async () => {
      const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: idp.kid }));
      return `${header}.${base64url.encode(JSON.stringify(await realClaims()))}.`;
    }, 'algorithm', 'signed with the algorithm "none"; this server accepts only RS256'],
    ['HS256 signed with the IdP public key as the secret', async () => {
      const secret = new TextEncoder().encode(await publicKeyPem());
      return new SignJWT(await realClaims()).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: idp.kid }).sign(secret);
    }, 'algorithm', 'signed with the algorithm "HS256"'],
    ['an unknown kid (a key the IdP never published)', async () => {
      const { privateKey } = await generateKeyPair('RS256');
      return new SignJWT(await realClaims()).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'rotated-key-2' }).sign(privateKey);
    }, 'unknown_key', 'No key of the issuer\'s key set matches the token\'s key id'],
    ['a token of another IdP under the same kid', () => otherIdp.mintToken({ sub: 'alice-subject', scope: 'kg:read' }), 'signature', 'signature does not verify'],
    ['a tampered claims set', async () => {
      const [header, , signature] = userToken.split('.');
      return `${header}.${base64url.encode(JSON.stringify({ ...(await realClaims()), scope: 'kg:admin' }))}.${signature}`;
    }, 'signature', 'signature does not verify'],
    ['the wrong issuer, signed with the IdP\'s own key', async () => idp.signToken({ ...(await realClaims()), iss: 'https://evil.example.test' }), 'issuer', 'The token\'s issuer is "https://evil.example.test"; this server accepts'],
    ['the wrong audience', () => idp.mintToken({ sub: 'alice-subject', scope: 'kg:read', audience: 'https://secrets.toolgraph.test' }), 'audience', `The token's audience is "https://secrets.toolgraph.test"; this server accepts "${AUDIENCE}" (TOKEN_AUDIENCE)`],
    ['a token for another resource under the same origin (no prefix match)', () => idp.mintToken({ sub: 'alice-subject', scope: 'kg:read', audience: `${AUDIENCE}/mcp` }), 'audience', `The token's audience is "${AUDIENCE}/mcp"`],
    ['not valid yet (nbf ahead)', async () => idp.signToken({ ...(await realClaims()), nbf: Math.floor(Date.now() / 1000) + 600 }), 'not_yet_valid', 'not valid yet'],
    ['no exp', async () => {
      const { exp: _exp, ...claims } = await realClaims();
      return idp.signToken(claims);
    }, 'claims', 'The token\'s "exp" claim is missing'],
    ['no sub', async () => {
      const { sub: _sub, ...claims } = await realClaims();
      return idp.signToken(claims);
    }, 'claims', 'The token\'s "sub" claim is missing'],
    ['a sender-constrained (DPoP) token', async () => idp.signToken({ ...(await realClaims()), cnf: { jkt: 'abc' } }), 'sender_constrained', 'accepts only bearer tokens'],
    ['a crit extension this server does not understand, signed by the IdP (RS256)', async () => idp.signToken(await realClaims(), { crit: ['urn:example:pop'], 'urn:example:pop': 1 }, { crit: { 'urn:example:pop': true } }),
      'crit', 'The token\'s crit (critical) header names the extension "urn:example:pop", which this server does not understand; RFC 7515 (section 4.1.11) requires refusing the token.'],
    ['a crit header that is not a list of extension names', async () => {
      const header = base64url.encode(JSON.stringify({ alg: 'RS256', typ: 'at+jwt', kid: idp.kid, crit: 'exp' }));
      const [, payload, signature] = userToken.split('.');
      return `${header}.${payload}.${signature}`;
    }, 'crit', 'The token\'s crit (critical) header is malformed'],
    ['not a JWT', async () => 'abc.def', 'malformed', 'not a well-formed signed JWT'],
    ['a JWT whose claims are not JSON', async () => `${userToken.split('.')[0]}.${base64url.encode('not json')}.${userToken.split('.')[2]}`, 'signature', 'signature does not verify'],
  ])('%s', async (_name, makeToken, reason, text) => {
    const token = await makeToken();
    const error = await refusal(token);
    expect(error.code).toBe('TG_UNAUTHENTICATED');
    expect(error.status).toBe(401);
    expect(error.details).toEqual({ reason });
    expect(error.message).toContain(text);
    for (const part of token.split('.').filter((p) => p.length > 8)) expect(error.message).not.toContain(part);
    expect(error.message).not.toContain('alice-subject');
    expect(error.message).not.toContain('team-alpha');
  });
});

describe('the algorithm allow-list', () => {
  it('holds even when a key resolver would hand out the public key as an HMAC secret', async () => {
    const pem = new TextEncoder().encode(await publicKeyPem());
    const token = await new SignJWT(await realClaims()).setProtectedHeader({ alg: 'HS256', kid: idp.kid }).sign(pem);
    // A resolver that returns raw bytes for any header: jose alone would verify HS256 with them.
    const confused = createAccessTokenVerifier({ issuer: idp.issuer, audience: AUDIENCE, getKey: async () => pem });
    const error = await refusal(token, confused);
    expect(error.details).toEqual({ reason: 'algorithm' });
  });
});

describe('time checks use a documented clock tolerance', () => {
  it(`accepts a token up to ${CLOCK_TOLERANCE_SECONDS} s past exp and refuses it after`, async () => {
    const exp = decodeJwt(userToken).exp!;
    await expect(verifierAt((exp + CLOCK_TOLERANCE_SECONDS - 1) * 1000)(userToken)).resolves.toBeDefined();
    const error = await refusal(userToken, verifierAt((exp + CLOCK_TOLERANCE_SECONDS + 1) * 1000));
    expect(error.details).toEqual({ reason: 'expired' });
    expect(error.message).toBe(`The token has expired (its exp is past, beyond the ${CLOCK_TOLERANCE_SECONDS} s clock tolerance).`);
  });

  it('refuses a token issued in the future beyond the tolerance (a token without nbf)', async () => {
    const iat = decodeJwt(userToken).iat!;
    await expect(verifierAt((iat - CLOCK_TOLERANCE_SECONDS + 1) * 1000)(userToken)).resolves.toBeDefined();
    const error = await refusal(userToken, verifierAt((iat - CLOCK_TOLERANCE_SECONDS - 2) * 1000));
    expect(error.details).toEqual({ reason: 'not_yet_valid' });
    expect(error.message).toContain('issued in the future');
  });
});

import { SignJWT, decodeJwt, generateKeyPair } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { createAccessTokenVerifier, openIssuerKeySet, openTrustedIssuer, type TrustedIssuer } from '../../src/auth/index.ts';
import type { ToolgraphError } from '../../src/errors/index.ts';
import { captureLogger } from '../support/capture-logger.ts';
import { closedPort } from '../support/closed-port.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { until } from '../support/until.ts';

const AUDIENCE = 'https://graph.toolgraph.test';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits for `condition`, failing after 10 s (the timers under test tick every 100 ms). */
let idp: TestIdp | undefined;
let trusted: TrustedIssuer | undefined;
afterEach(async () => {
  trusted?.close();
  trusted = undefined;
  await idp?.close();
  idp = undefined;
});

/** `count` distinct tokens (own jti) signed by a key the IdP never published. */
async function unknownKidTokens(claims: Record<string, unknown>, count: number): Promise<string[]> {
  const { privateKey } = await generateKeyPair('RS256');
  return Promise.all(Array.from({ length: count }, (_, i) =>
    new SignJWT({ ...claims, jti: `burst-${i}-${Math.random()}` }).setProtectedHeader({ alg: 'RS256', kid: `unknown-${i}` }).sign(privateKey)));
}

describe('the issuer key set', () => {
  it('a burst of unknown-kid tokens refetches the JWKS at most once per cooldown', async () => {
    idp = await startIdp({ defaultAudience: AUDIENCE });
    const cooldownMs = 2000;
    // Every token is made before the key set loads, so the cooldown windows below hold only verifications.
    const claims = decodeJwt(await idp.mintToken({ sub: 'alice', scope: 'kg:read' }));
    const bursts = await Promise.all([0, 1, 2, 3].map(() => unknownKidTokens(claims, 25)));
    const valid = await idp.mintToken({ sub: 'alice', scope: 'kg:read' });
    trusted = await openTrustedIssuer(idp.discoveryUrl, { jwksCooldownMs: cooldownMs });
    const verify = createAccessTokenVerifier({ issuer: idp.issuer, audience: AUDIENCE, getKey: trusted.keys.getKey, cooldownMs });
    expect(idp.jwksFetches()).toBe(1); // loaded once at start-up

    const refetchesOf = async (tokens: string[]) => {
      const before = idp!.jwksFetches();
      const results = await Promise.allSettled(tokens.map((t) => verify(t)));
      for (const result of results) {
        expect(result.status).toBe('rejected');
        expect(((result as PromiseRejectedResult).reason as ToolgraphError).details).toEqual({ reason: 'unknown_key' });
      }
      return idp!.jwksFetches() - before;
    };
    // Right after start-up the set is cooling down: no refetch at all.
    expect(await refetchesOf(bursts[0]!)).toBe(0);
    await sleep(cooldownMs + 200);
    // Past the cooldown: the whole burst shares one refetch, and the next burst none.
    expect(await refetchesOf(bursts[1]!)).toBe(1);
    expect(await refetchesOf(bursts[2]!)).toBe(0);
    await sleep(cooldownMs + 200);
    expect(await refetchesOf(bursts[3]!)).toBe(1);
    // A valid token never fetches.
    const before = idp.jwksFetches();
    await verify(valid);
    expect(idp.jwksFetches()).toBe(before);
  });

  it('refreshes in the background and keeps the loaded keys while the IdP is down', async () => {
    idp = await startIdp({ defaultAudience: AUDIENCE });
    const { lines, logger } = captureLogger();
    trusted = await openTrustedIssuer(idp.discoveryUrl, { jwksRefreshMs: 100, logger });
    const verify = createAccessTokenVerifier({ issuer: idp.issuer, audience: AUDIENCE, getKey: trusted.keys.getKey });
    const token = await idp.mintToken({ sub: 'alice', scope: 'kg:read' });
    await until('the key set is refetched in the background', () => idp!.jwksFetches() >= 3);
    await idp.close();
    idp = undefined;
    await until('the failed refetch is logged', () => lines.some((l) => l.includes('refetching the issuer key set failed')));
    expect((await verify(token)).principal.subject).toBe('alice');
  });

  it('fails start-up when the JWKS cannot be loaded, naming OIDC_CONFIG_URL', async () => {
    const jwksUri = `http://127.0.0.1:${await closedPort()}/jwks`;
    const error = await openIssuerKeySet(jwksUri).then(() => undefined, (e: unknown) => e as ToolgraphError);
    expect(error?.code).toBe('TG_OIDC_DISCOVERY_FAILED');
    expect(error?.message).toContain(`The issuer's key set at ${jwksUri} (the jwks_uri found through OIDC_CONFIG_URL) could not be loaded`);
  });
});

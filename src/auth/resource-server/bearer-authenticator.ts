import type { IncomingMessage } from 'node:http';
import { headerCount } from '../../http/index.ts';
import { authorizationOf, bearerTokenOf } from './bearer-token.ts';
import type { RequestContext } from './request-context.ts';
import type { TrustedIssuer } from './trusted-issuer.ts';
import { VerifiedTokenCache, type VerifiedTokenCacheOptions } from './verified-token-cache.ts';
import { createAccessTokenVerifier, type VerifiedAccessToken } from './verify-access-token.ts';

export interface BearerAuthenticatorOptions {
  readonly issuer: TrustedIssuer;
  /** TOKEN_AUDIENCE. */
  readonly audience: string;
  /** Where the protected resource metadata is served, for challenges. */
  readonly resourceMetadataUrl: string;
  /** The verified-token cache; `false` turns it off (benchmarks compare). Default on. */
  readonly cache?: false | VerifiedTokenCacheOptions;
  /** Clock in epoch ms (tests). Default Date.now. */
  readonly now?: () => number;
}

/** Turns a request into its RequestContext, or throws TG_UNAUTHENTICATED. */
export interface BearerAuthenticator {
  readonly audience: string;
  readonly resourceMetadataUrl: string;
  authenticate(req: IncomingMessage): Promise<RequestContext>;
  /**
   * The synchronous fast path: the context of a request whose token is in the verified-token cache
   * and still valid, else undefined (no token, a malformed or repeated header, a token not verified
   * yet, an expired entry, the cache off), and the caller goes through `authenticate`. Never throws.
   */
  cachedContext(req: IncomingMessage): RequestContext | undefined;
  /**
   * Requests answered from the verified-token cache (`hits`) and requests whose token had to be
   * verified (`misses`, a verification shared with a request in flight included); both 0 with the cache off.
   */
  readonly cacheStats: VerifiedTokenCacheStats;
}

export interface VerifiedTokenCacheStats {
  readonly hits: number;
  readonly misses: number;
}

/**
 * Bearer authentication for one resource (one audience). A token seen before and still valid is
 * answered from the verified-token cache; concurrent requests with the same new token share one
 * verification. A cache hit needs no promise (`cachedContext`).
 */
export function createBearerAuthenticator(options: BearerAuthenticatorOptions): BearerAuthenticator {
  const { audience, resourceMetadataUrl } = options;
  const now = options.now ?? Date.now;
  const verify = createAccessTokenVerifier({
    issuer: options.issuer.metadata.issuer,
    audience,
    getKey: options.issuer.keys.getKey,
    cooldownMs: options.issuer.keys.cooldownMs,
    now,
  });
  const cache = options.cache === false ? undefined : new VerifiedTokenCache({ maxAgeMs: options.issuer.keys.refreshMs, now, ...options.cache });
  const inflight = new Map<string, Promise<VerifiedAccessToken>>();
  const stats = { hits: 0, misses: 0 };

  async function verified(token: string): Promise<VerifiedAccessToken> {
    if (cache === undefined) return verify(token);
    const hit = cache.get(token);
    if (hit) {
      stats.hits++;
      return hit;
    }
    stats.misses++;
    let pending = inflight.get(token);
    if (pending === undefined) {
      pending = verify(token).then((result) => {
        cache.set(token, result);
        return result;
      }).finally(() => inflight.delete(token));
      inflight.set(token, pending);
    }
    return pending;
  }

  return {
    audience,
    resourceMetadataUrl,
    async authenticate(req) {
      const token = bearerTokenOf(authorizationOf(req));
      const { principal } = await verified(token);
      return { principal, token, resourceMetadataUrl };
    },
    cachedContext(req) {
      if (cache === undefined) return undefined;
      const header = req.headers.authorization;
      // Only the plain `Bearer <token>` spelling; any other goes the slow path. No syntax check is
      // needed here: the cache holds only tokens that passed bearerTokenOf and the verifier, and a
      // hit needs the rest of the header equal to one of them.
      if (header === undefined || !header.startsWith('Bearer ')) return undefined;
      // A second Authorization header goes the slow path, which refuses it.
      if (headerCount(req, 'authorization') !== 1) return undefined;
      const token = header.slice(7);
      const hit = cache.get(token);
      if (hit === undefined) return undefined;
      stats.hits++;
      return { principal: hit.principal, token, resourceMetadataUrl };
    },
    cacheStats: stats,
  };
}

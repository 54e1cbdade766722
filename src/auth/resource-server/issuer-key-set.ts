import { createRemoteJWKSet, type RemoteJWKSet } from 'jose';
import { ToolgraphError } from '../../errors/index.ts';
import type { Logger } from '../../log/index.ts';
import { networkReason } from './oidc-discovery.ts';

export interface IssuerKeySetOptions {
  /** Least time between two fetches caused by tokens with an unknown `kid`. Default 30 s (jose's). */
  readonly cooldownMs?: number;
  /** Background refetch period, so a key the IdP removed stops verifying. Default 10 min. */
  readonly refreshMs?: number;
  /** Per fetch. Default 5 s. */
  readonly timeoutMs?: number;
  readonly logger?: Logger;
}

/** The IdP's signing keys (JWKS), imported once and shared by every verification. */
export interface IssuerKeySet {
  readonly jwksUri: string;
  /** jose's key resolver for `jwtVerify`. */
  readonly getKey: RemoteJWKSet;
  readonly cooldownMs: number;
  readonly refreshMs: number;
  close(): void;
}

const DEFAULT_JWKS_COOLDOWN_MS = 30_000;
const DEFAULT_JWKS_REFRESH_MS = 10 * 60_000;

/**
 * Loads the key set now (an unreachable or empty JWKS throws; serve retries in the background) and keeps it current
 * off the request path. jose's remote key set refetches on an unknown `kid` at most once per
 * cooldown, sharing one fetch among concurrent callers. Its own staleness reload is turned off
 * (cacheMaxAge Infinity): that reload runs inside a request and, while the IdP is down, fails every
 * request; the timer here refetches instead and keeps the previous keys when a refetch fails.
 */
export async function openIssuerKeySet(jwksUri: string, options: IssuerKeySetOptions = {}): Promise<IssuerKeySet> {
  const cooldownMs = options.cooldownMs ?? DEFAULT_JWKS_COOLDOWN_MS;
  const refreshMs = options.refreshMs ?? DEFAULT_JWKS_REFRESH_MS;
  const getKey = createRemoteJWKSet(new URL(jwksUri), {
    cooldownDuration: cooldownMs,
    cacheMaxAge: Number.POSITIVE_INFINITY,
    timeoutDuration: options.timeoutMs ?? 5000,
  });
  try {
    await getKey.reload();
  } catch (error) {
    throw new ToolgraphError('TG_OIDC_DISCOVERY_FAILED', `The issuer's key set at ${jwksUri} (the jwks_uri found through OIDC_CONFIG_URL) could not be loaded: ${networkReason(error)}.`, {
      details: { setting: 'OIDC_CONFIG_URL' },
      cause: error,
    });
  }
  if ((getKey.jwks()?.keys ?? []).length === 0) {
    throw new ToolgraphError('TG_OIDC_DISCOVERY_FAILED', `The issuer's key set at ${jwksUri} (the jwks_uri found through OIDC_CONFIG_URL) has no keys, so no token could ever verify.`, {
      details: { setting: 'OIDC_CONFIG_URL' },
    });
  }
  const timer = setInterval(() => {
    getKey.reload().catch((error: unknown) => {
      options.logger?.warn({ reason: (error as Error).message }, 'refetching the issuer key set failed; the keys loaded before stay in use');
    });
  }, refreshMs);
  timer.unref();
  return { jwksUri, getKey, cooldownMs, refreshMs, close: () => clearInterval(timer) };
}

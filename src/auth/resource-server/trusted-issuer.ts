import type { Logger } from '../../log/index.ts';
import { openIssuerKeySet, type IssuerKeySet } from './issuer-key-set.ts';
import { discoverIssuer, type IssuerMetadata } from './oidc-discovery.ts';

export interface TrustedIssuerOptions {
  readonly logger?: Logger;
  /** See IssuerKeySetOptions. */
  readonly jwksCooldownMs?: number;
  readonly jwksRefreshMs?: number;
  readonly timeoutMs?: number;
}

/** The IdP whose tokens this process accepts: its discovered metadata and its loaded keys. */
export interface TrustedIssuer {
  readonly metadata: IssuerMetadata;
  readonly keys: IssuerKeySet;
  close(): void;
}

/**
 * Discovery at OIDC_CONFIG_URL, then the key set at its jwks_uri: an unreachable IdP or an invalid
 * document throws TG_OIDC_DISCOVERY_FAILED naming OIDC_CONFIG_URL (serve then retries in the
 * background, `loadInBackground`). Nothing here runs per request.
 */
export async function openTrustedIssuer(oidcConfigUrl: string, options: TrustedIssuerOptions = {}): Promise<TrustedIssuer> {
  const metadata = await discoverIssuer(oidcConfigUrl, options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs });
  const keys = await openIssuerKeySet(metadata.jwksUri, {
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.jwksCooldownMs === undefined ? {} : { cooldownMs: options.jwksCooldownMs }),
    ...(options.jwksRefreshMs === undefined ? {} : { refreshMs: options.jwksRefreshMs }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  return { metadata, keys, close: () => keys.close() };
}

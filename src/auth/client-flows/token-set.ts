import type { TokenEndpointResponse } from 'openid-client';
import { rememberOpaqueToken } from './remember-token.ts';

/** How a token set was first obtained. */
export type SignInFlow = 'authorization_code' | 'device_code';

/**
 * The spec's "3LO token set" (and the device flow's): an access token used until it expires, and the
 * refresh token that renews it, with what is needed to renew it at the right place.
 */
export interface TokenSet {
  readonly agent: string;
  readonly flow: SignInFlow;
  /** The authorization server that issued it, and the client it was issued to (refreshes must match). */
  readonly issuer: string;
  readonly clientId: string;
  readonly accessToken: string;
  /** `Bearer` (as sent in Authorization). */
  readonly tokenType: string;
  readonly refreshToken: string | undefined;
  /** Epoch ms; undefined when the server gave no `expires_in` (then used until refused). */
  readonly expiresAt: number | undefined;
  /**
   * When the refresh token stops working (epoch ms), when the server says (`refresh_expires_in`,
   * `refresh_token_expires_in`); undefined: not said. Per-caller token sets are kept that long.
   */
  readonly refreshExpiresAt?: number | undefined;
  readonly scope: string | undefined;
  /** The RFC 8707 resource the token was requested for; refreshes ask for the same. */
  readonly resource: string | undefined;
  /** Epoch ms of the grant that produced this access token. */
  readonly obtainedAt: number;
}

export interface TokenSetOrigin {
  readonly agent: string;
  readonly flow: SignInFlow;
  readonly issuer: string;
  readonly clientId: string;
  readonly resource?: string | undefined;
  /** When the token request was sent (epoch ms): `expires_in` counts from there. */
  readonly sentAt: number;
}

/**
 * A token set from a token endpoint answer. A refresh answer without a new refresh token keeps the
 * previous one (RFC 6749 §6: the server may leave it out when it does not rotate).
 */
export function tokenSetFromResponse(response: TokenEndpointResponse, origin: TokenSetOrigin, previous?: TokenSet): TokenSet {
  rememberOpaqueToken(response.access_token);
  rememberOpaqueToken(response.refresh_token);
  // Not in RFC 6749: Keycloak says refresh_expires_in, Entra and GitHub refresh_token_expires_in.
  const refreshLifetime = [response['refresh_expires_in'], response['refresh_token_expires_in']].find((v): v is number => typeof v === 'number' && v > 0);
  const refreshExpiresAt = refreshLifetime !== undefined ? origin.sentAt + refreshLifetime * 1000 : response.refresh_token === undefined ? previous?.refreshExpiresAt : undefined;
  return Object.freeze({
    agent: origin.agent,
    flow: origin.flow,
    issuer: origin.issuer,
    clientId: origin.clientId,
    accessToken: response.access_token,
    tokenType: response.token_type === 'bearer' ? 'Bearer' : response.token_type,
    refreshToken: response.refresh_token ?? previous?.refreshToken,
    expiresAt: typeof response.expires_in === 'number' ? origin.sentAt + response.expires_in * 1000 : undefined,
    refreshExpiresAt,
    scope: response.scope ?? previous?.scope,
    resource: origin.resource,
    obtainedAt: origin.sentAt,
  });
}

/** At most 30 s, and at most a tenth of the token's lifetime, before expiry: refresh from then on. */
export function tokenSetUsableUntil(set: TokenSet): number {
  if (set.expiresAt === undefined) return Infinity;
  const lifetime = Math.max(0, set.expiresAt - set.obtainedAt);
  return set.expiresAt - Math.min(30_000, lifetime / 10);
}

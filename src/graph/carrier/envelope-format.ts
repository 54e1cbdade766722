/**
 * The signed envelope of a carrier request, sent as `Authorization: Bearer tgsse1.<compact JWS>`.
 *
 * The JWS (RFC 7515, compact serialisation) has the protected header `{alg, kid, typ: "tgsse+jws"}`
 * and this UTF-8 JSON payload:
 *
 *   { "req":   <the exact native request: {id, graph, agent_id, method: {GraphQl: {query, variables}}}>,
 *     "nonce": <16-128 base64url characters, fresh for every request>,
 *     "iat":   <issued at, seconds since the epoch>,
 *     "exp":   <expiry, seconds since the epoch, at most 300 s after now>,
 *     "ctx":   {"sub": <subject>, "scopes": [<scope>...], "groups": [<group>...]} }
 *
 * The prefix keeps envelopes and IdP access tokens apart (neither is accepted as the other) and
 * versions the format; its trailing dot lets log scrubbing see the JWS that follows.
 */
export const ENVELOPE_PREFIX = 'tgsse1.';
export const ENVELOPE_TYP = 'tgsse+jws';

/** Asymmetric JWS algorithms only: the carrier holds public keys, never a shared secret. */
export const ENVELOPE_ALGORITHMS = ['EdDSA', 'ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'] as const;
export type EnvelopeAlgorithm = (typeof ENVELOPE_ALGORITHMS)[number];

/** How far in the future an envelope may expire; it also bounds how long a nonce is remembered. */
export const MAX_ENVELOPE_LIFETIME_SECS = 300;
/** The signer's default lifetime: long enough to connect, short enough that a leaked one is soon useless. */
export const DEFAULT_ENVELOPE_LIFETIME_SECS = 60;
/** Clock skew allowed between signer and carrier, both ways. */
export const CLOCK_TOLERANCE_SECS = 5;

export const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;
/** Generous bounds on the signed context, so a hostile signer cannot make a session large. */
export const MAX_SUBJECT_LENGTH = 256;
export const MAX_CONTEXT_ITEMS = 64;
export const MAX_CONTEXT_ITEM_LENGTH = 256;
/** The longest Authorization header value read: a 32 KiB query, escaped and base64url-encoded, fits. */
export const MAX_AUTHORIZATION_LENGTH = 192 * 1024;

/** The signed context as the payload carries it. */
export interface EnvelopeContext {
  readonly sub: string;
  readonly scopes: readonly string[];
  readonly groups: readonly string[];
}

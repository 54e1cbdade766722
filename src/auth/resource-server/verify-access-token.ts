import { decodeProtectedHeader, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { ToolgraphError, describeValue } from '../../errors/index.ts';
import { inSpan } from '../../observability/tracing/index.ts';
import { principalFromClaims, type Principal } from '../../principal/index.ts';
import { unauthenticated } from './unauthenticated.ts';

/**
 * Signature algorithms a token may use: asymmetric ones only. `none` and the HMAC family (HS256…)
 * are never accepted, so a token "signed" with nothing, or with the IdP's public key used as an HMAC
 * secret, fails before any key is looked at.
 */
const ACCEPTED_ALGORITHMS: readonly string[] = Object.freeze([
  'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519',
]);

/** Allowed clock skew between the IdP and this server when checking `exp`, `nbf` and `iat`. */
export const CLOCK_TOLERANCE_SECONDS = 30;

export interface AccessTokenVerifierOptions {
  /** The discovered issuer: `iss` must equal it. */
  readonly issuer: string;
  /** TOKEN_AUDIENCE: `aud` must be, or contain, exactly this string (RFC 8707). */
  readonly audience: string;
  /** The IdP's keys (the remote key set of `openIssuerKeySet`, or any jose key resolver). */
  readonly getKey: JWTVerifyGetKey;
  /** For the refusal message of an unknown key. */
  readonly cooldownMs?: number;
  /** Clock in epoch ms (tests). Default Date.now. */
  readonly now?: () => number;
}

export interface VerifiedAccessToken {
  readonly principal: Principal;
  /** The token's `exp`, in epoch seconds. */
  readonly expiresAt: number;
}

export type AccessTokenVerifier = (token: string) => Promise<VerifiedAccessToken>;

/** iss and aud are shown in refusals (they name the misconfiguration); no other claim value is. */
function shown(value: unknown): string {
  if (Array.isArray(value) && value.length <= 3 && value.every((v) => typeof v === 'string' && v.length <= 80)) return JSON.stringify(value);
  return describeValue(value);
}

function headerOf(token: string): Record<string, unknown> {
  try {
    return decodeProtectedHeader(token);
  } catch {
    return {};
  }
}

/** Extension names safe to show back: short, and no character a token part or a quote could hide in. */
const SHOWABLE_EXTENSION = /^[A-Za-z0-9_:.-]{1,40}$/;

/**
 * jose refuses a `crit` header (RFC 7515 §4.1.11) as JOSENotSupported (an extension it does not
 * understand) or JWSInvalid (a malformed list); both come before the algorithm is looked at, and
 * neither is about the algorithm or the token's form.
 */
function critRefusal(error: unknown, token: string): ToolgraphError | undefined {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if ((code !== 'ERR_JOSE_NOT_SUPPORTED' && code !== 'ERR_JWS_INVALID') || typeof message !== 'string') return undefined;
  if (!/"crit"|Extension Header Parameter/.test(message)) return undefined;
  const crit = headerOf(token)['crit'];
  if (code === 'ERR_JWS_INVALID') {
    return unauthenticated('crit', 'The token\'s crit (critical) header is malformed: it must list, once each, extension parameters the protected header carries (RFC 7515, section 4.1.11).', error);
  }
  const names = Array.isArray(crit) && crit.length <= 5 && crit.every((n) => typeof n === 'string' && SHOWABLE_EXTENSION.test(n))
    ? crit.map((n) => JSON.stringify(n)).join(', ')
    : undefined;
  return unauthenticated('crit', `The token's crit (critical) header names ${names === undefined ? 'an extension' : `the extension ${names}`}, which this server does not understand; RFC 7515 (section 4.1.11) requires refusing the token.`, error);
}

/**
 * Verifies an access token (a JWT) against the IdP's keys: no `crit` extension it does not
 * understand, the signature with an accepted algorithm, `iss`, `aud`, `exp` (required), `nbf` and
 * `iat` within the clock tolerance, a `sub`, and no `cnf` (a sender-constrained token is not a bearer
 * token). Every refusal is TG_UNAUTHENTICATED with a `reason`; messages never contain the token.
 */
export function createAccessTokenVerifier(options: AccessTokenVerifierOptions): AccessTokenVerifier {
  const { issuer, audience, getKey } = options;
  const now = options.now ?? Date.now;
  const cooldownSeconds = Math.round((options.cooldownMs ?? 30_000) / 1000);

  function refusal(error: unknown, token: string): ToolgraphError {
    if (error instanceof ToolgraphError) return error;
    const crit = critRefusal(error, token);
    if (crit !== undefined) return crit;
    const code = (error as { code?: unknown }).code;
    switch (code) {
      case 'ERR_JOSE_ALG_NOT_ALLOWED':
      case 'ERR_JOSE_NOT_SUPPORTED':
        return unauthenticated('algorithm', `The token is signed with the algorithm ${describeValue(headerOf(token)['alg'])}; this server accepts only ${ACCEPTED_ALGORITHMS.join(', ')}.`, error);
      case 'ERR_JWS_INVALID':
      case 'ERR_JWT_INVALID':
        return unauthenticated('malformed', 'The bearer token is not a well-formed signed JWT (three base64url parts: a JSON header, a JSON claims set, a signature).', error);
      case 'ERR_JWKS_NO_MATCHING_KEY':
        return unauthenticated('unknown_key', `No key of the issuer's key set matches the token's key id (kid) and algorithm; the key set is refetched for an unknown key at most once every ${cooldownSeconds} s.`, error);
      case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
        return unauthenticated('unknown_key', 'The token names no key id (kid) and several keys of the issuer\'s key set could verify it.', error);
      case 'ERR_JWKS_TIMEOUT':
      case 'ERR_JOSE_GENERIC':
        return unauthenticated('unknown_key', 'The token names a key this server does not have, and the issuer\'s key set could not be refetched.', error);
      case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
        return unauthenticated('signature', 'The token\'s signature does not verify with the issuer\'s key it names.', error);
      case 'ERR_JWT_EXPIRED':
        return unauthenticated('expired', `The token has expired (its exp is past, beyond the ${CLOCK_TOLERANCE_SECONDS} s clock tolerance).`, error);
      case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
        const failure = error as { claim?: string; reason?: string; payload?: JWTPayload };
        if (failure.reason === 'missing' || failure.reason === 'invalid') {
          return unauthenticated('claims', `The token's "${failure.claim}" claim is ${failure.reason === 'missing' ? 'missing' : 'not of the right type'}; an access token here needs iss, aud, sub and exp.`, error);
        }
        if (failure.claim === 'iss') return unauthenticated('issuer', `The token's issuer is ${shown(failure.payload?.iss)}; this server accepts ${JSON.stringify(issuer)} (the issuer of OIDC_CONFIG_URL).`, error);
        if (failure.claim === 'aud') return unauthenticated('audience', `The token's audience is ${shown(failure.payload?.aud)}; this server accepts ${JSON.stringify(audience)} (TOKEN_AUDIENCE).`, error);
        if (failure.claim === 'nbf') return unauthenticated('not_yet_valid', `The token is not valid yet (its nbf is ahead, beyond the ${CLOCK_TOLERANCE_SECONDS} s clock tolerance).`, error);
        return unauthenticated('claims', `The token's "${failure.claim}" claim is not acceptable.`, error);
      }
      default:
        // fetch's own failures while refetching the key set arrive as TypeError ("fetch failed").
        if (error instanceof TypeError && /fetch/i.test(error.message)) {
          return unauthenticated('unknown_key', 'The token names a key this server does not have, and the issuer\'s key set could not be refetched.', error);
        }
        return new ToolgraphError('TG_INTERNAL', 'Internal server error.', { cause: error });
    }
  }

  // A span per verification (signature, claims, perhaps a key-set fetch): every auth type verifies
  // here; a token answered from the verified-token cache makes none. Its failure is the TG_ code alone.
  return (token) => inSpan('verify token', undefined, () => verifyToken(token));

  async function verifyToken(token: string): Promise<VerifiedAccessToken> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, getKey, {
        algorithms: [...ACCEPTED_ALGORITHMS],
        issuer,
        audience,
        requiredClaims: ['exp', 'sub'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        currentDate: new Date(now()),
      }));
    } catch (error) {
      throw refusal(error, token);
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') {
      throw unauthenticated('claims', 'The token\'s "sub" claim is not a non-empty string; an access token here needs iss, aud, sub and exp.');
    }
    if (typeof payload.iat === 'number' && payload.iat > now() / 1000 + CLOCK_TOLERANCE_SECONDS) {
      throw unauthenticated('not_yet_valid', `The token was issued in the future (its iat is ahead, beyond the ${CLOCK_TOLERANCE_SECONDS} s clock tolerance); check the clocks of the IdP and this server.`);
    }
    if (payload['cnf'] !== undefined) {
      throw unauthenticated('sender_constrained', 'The token is bound to a key of its holder (cnf claim: DPoP or mutual TLS); this server accepts only bearer tokens.');
    }
    return { principal: principalFromClaims(payload), expiresAt: payload.exp as number };
  }
}

import type { IncomingMessage } from 'node:http';
import { headerCount } from '../../http/index.ts';
import { unauthenticated } from './unauthenticated.ts';

/** RFC 6750 §2.1: `Bearer` (any case), one or more spaces, a b64token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
/** A scheme name safe to show back: letters only, so never a token or an API key with digits or dots. */
const SHOWABLE_SCHEME = /^[A-Za-z]{1,20}$/;

/**
 * The bearer token of an `Authorization` header, or TG_UNAUTHENTICATED (`missing` or `malformed`).
 * The header's content is never echoed, except a short alphabetic scheme name (`Basic`, `DPoP`).
 */
export function bearerTokenOf(header: string | undefined): string {
  if (header === undefined || header.trim() === '') {
    throw unauthenticated('missing', 'This service needs an access token from the identity provider in Authorization: Bearer <token>; the request has none.');
  }
  const match = BEARER.exec(header);
  if (match) return match[1] as string;
  const [scheme, ...rest] = header.trim().split(/ +/);
  if (scheme !== undefined && /^bearer$/i.test(scheme)) {
    throw unauthenticated('malformed', rest.length === 0
      ? 'The Authorization header says Bearer but carries no token.'
      : 'The bearer token is not one RFC 6750 b64token (letters, digits, - . _ ~ + / and trailing =, no spaces).');
  }
  const named = rest.length > 0 && scheme !== undefined && SHOWABLE_SCHEME.test(scheme) ? `the ${JSON.stringify(scheme)} scheme` : 'no "Bearer" scheme';
  throw unauthenticated('malformed', `The Authorization header uses ${named}; this service accepts only Authorization: Bearer <token> (RFC 6750).`);
}

/**
 * The request's one Authorization header. Two or more are refused (`malformed`): Node would keep
 * only the first in `req.headers`, and which credential counts must not depend on that.
 */
export function authorizationOf(req: IncomingMessage): string | undefined {
  const count = headerCount(req, 'authorization');
  if (count > 1) throw unauthenticated('malformed', `The request carries ${count} Authorization headers; send exactly one, Authorization: Bearer <token>.`);
  return req.headers.authorization;
}

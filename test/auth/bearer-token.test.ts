import { describe, expect, it } from 'vitest';
import { bearerTokenOf } from '../../src/auth/index.ts';
import type { ToolgraphError } from '../../src/errors/index.ts';
import { failure } from '../support/toolgraph-failure.ts';

const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl';

function refusal(header: string | undefined): ToolgraphError {
  return failure(() => bearerTokenOf(header));
}

describe('bearerTokenOf (RFC 6750 §2.1)', () => {
  it.each([
    ['Bearer <jwt>', `Bearer ${JWT}`, JWT],
    ['a lower-case scheme', `bearer ${JWT}`, JWT],
    ['several spaces and a trailing one', `Bearer   ${JWT} `, JWT],
    ['b64token characters and padding', 'Bearer abc-._~+/xyz==', 'abc-._~+/xyz=='],
  ])('takes the token: %s', (_name, header, token) => {
    expect(bearerTokenOf(header)).toBe(token);
  });

  it.each<[string, string | undefined, string, string]>([
    ['no header', undefined, 'missing', 'the request has none'],
    ['an empty header', '', 'missing', 'the request has none'],
    ['Basic credentials', 'Basic dXNlcjpwYXNz', 'malformed', 'uses the "Basic" scheme'],
    ['DPoP instead of Bearer', `DPoP ${JWT}`, 'malformed', 'uses the "DPoP" scheme'],
    ['a bare token without scheme', JWT, 'malformed', 'uses no "Bearer" scheme'],
    ['a token-like scheme is not echoed', `${JWT} ${JWT}`, 'malformed', 'uses no "Bearer" scheme'],
    ['Bearer alone', 'Bearer', 'malformed', 'says Bearer but carries no token'],
    ['two tokens', `Bearer ${JWT} ${JWT}`, 'malformed', 'not one RFC 6750 b64token'],
    ['a quote in the token', 'Bearer abc"def', 'malformed', 'not one RFC 6750 b64token'],
    ['padding inside', 'Bearer ab=cd', 'malformed', 'not one RFC 6750 b64token'],
  ])('refuses %s', (_name, header, reason, text) => {
    const error = refusal(header);
    expect(error.code).toBe('TG_UNAUTHENTICATED');
    expect(error.status).toBe(401);
    expect(error.details).toEqual({ reason });
    expect(error.message).toContain(text);
    // Nothing of the credential comes back.
    expect(error.message).not.toContain(JWT);
    expect(error.message).not.toContain('dXNlcjpwYXNz');
    expect(error.message).not.toContain('abc');
  });
});

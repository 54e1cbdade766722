import { describe, expect, it } from 'vitest';
import { bearerChallenge, challengeHeaderFor } from '../../src/auth/index.ts';
import { ToolgraphError } from '../../src/errors/index.ts';

const META = 'https://tools.example.test/.well-known/oauth-protected-resource';

describe('bearerChallenge', () => {
  it.each([
    ['nothing', {}, 'Bearer'],
    ['only the metadata', { resourceMetadata: META }, `Bearer resource_metadata="${META}"`],
    ['an invalid token', { error: 'invalid_token' as const, description: 'The token has expired.', resourceMetadata: META }, `Bearer error="invalid_token", error_description="The token has expired.", resource_metadata="${META}"`],
    ['a missing scope', { error: 'insufficient_scope' as const, scope: 'kg:read', resourceMetadata: META }, `Bearer error="insufficient_scope", scope="kg:read", resource_metadata="${META}"`],
  ])('%s', (_name, challenge, header) => {
    expect(bearerChallenge(challenge)).toBe(header);
  });

  it('keeps quoted values inside the characters RFC 6750 allows', () => {
    const header = bearerChallenge({ error: 'invalid_token', description: 'The token\'s audience is "x\\y" – not "z".\n' });
    expect(header).toBe('Bearer error="invalid_token", error_description="The token\'s audience is \'x/y\' ? not \'z\'.?"');
    const values = [...header.matchAll(/="([^"]*)"/g)].map((m) => m[1]!);
    for (const value of values) expect(value).toMatch(/^[\x20\x21\x23-\x5b\x5d-\x7e]*$/);
  });

  it('caps a long description', () => {
    const header = bearerChallenge({ description: 'x'.repeat(1000) });
    expect(header.length).toBeLessThan(330);
    expect(header.endsWith('..."')).toBe(true);
  });
});

describe('challengeHeaderFor', () => {
  it('answers a 401 with invalid_token and the metadata URL', () => {
    const error = new ToolgraphError('TG_UNAUTHENTICATED', 'The token has expired.', { details: { reason: 'expired' } });
    expect(challengeHeaderFor(error, META)).toEqual({ 'www-authenticate': `Bearer error="invalid_token", error_description="The token has expired.", resource_metadata="${META}"` });
  });

  it('answers a 403 with insufficient_scope and the least-privileged scope that would do', () => {
    const error = new ToolgraphError('TG_INSUFFICIENT_SCOPE', 'A Cypher read needs one of the scopes kg:read, kg:admin.', { details: { required: ['kg:read', 'kg:admin'], granted: [] } });
    expect(challengeHeaderFor(error, META)?.['www-authenticate']).toBe(`Bearer error="insufficient_scope", error_description="A Cypher read needs one of the scopes kg:read, kg:admin.", scope="kg:read", resource_metadata="${META}"`);
  });

  it('has nothing for other errors', () => {
    expect(challengeHeaderFor(new ToolgraphError('TG_FORBIDDEN', 'no'), META)).toBeUndefined();
  });
});

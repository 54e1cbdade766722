import { describe, expect, it } from 'vitest';
import { principalFromClaims } from '../../src/principal/index.ts';

describe('principalFromClaims', () => {
  it.each<[string, Record<string, unknown>, string[], string[]]>([
    ['scope, space-separated (RFC 9068)', { scope: 'kg:read  query:graphql' }, ['kg:read', 'query:graphql'], []],
    ['scp as an array (Okta and others)', { scp: ['kg:read', 'kg:write', 7] }, ['kg:read', 'kg:write'], []],
    ['scp as a string (Entra)', { scp: 'kg:read kg:write' }, ['kg:read', 'kg:write'], []],
    ['scope and scp together, once each', { scope: 'kg:read', scp: ['kg:read', 'kg:admin'] }, ['kg:read', 'kg:admin'], []],
    ['groups as a list', { groups: ['team-a', 'team-b', null] }, [], ['team-a', 'team-b']],
    ['one group as a string', { groups: 'team a' }, [], ['team a']],
    ['neither', { scope: 42, groups: { a: 1 } }, [], []],
  ])('%s', (_name, claims, scopes, groups) => {
    const principal = principalFromClaims({ sub: 'alice', ...claims });
    expect(principal.subject).toBe('alice');
    expect(principal.scopes).toEqual(scopes);
    expect(principal.groups).toEqual(groups);
    expect(principal.claims).toEqual({ sub: 'alice', ...claims });
    expect(Object.isFrozen(principal.claims)).toBe(true);
  });
});

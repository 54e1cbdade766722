import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/auth/index.ts';
import { unconfiguredAgent, type AgentSettings } from '../../src/config/index.ts';
import { authorizationHeaders, createStaticCredentials, type DelegationPattern, type DownstreamAgent } from '../../src/tools/index.ts';

function settings(overrides: Partial<AgentSettings>): AgentSettings {
  return { ...unconfiguredAgent('graph'), name: 'api', kind: 'http', url: 'https://api.test', ...overrides };
}

function agent(pattern: DelegationPattern, overrides: Partial<AgentSettings> = {}, audience: string | null = 'https://api.test'): DownstreamAgent {
  return { name: 'api', pattern, audience: audience ?? undefined, settings: settings(overrides) };
}

function caller(aud: unknown): RequestContext {
  return { token: 'caller-token', resourceMetadataUrl: 'https://tg.test/.well-known/oauth-protected-resource', principal: { subject: 'u', scopes: [], claims: { aud } } };
}

describe('createStaticCredentials: the first implementation of the credentials port', () => {
  const credentials = createStaticCredentials();
  it.each([
    ['full delegation, the caller\'s token issued for the API', agent('full-delegation'), caller('https://api.test'), { kind: 'bearer', token: 'caller-token', source: 'caller' }],
    ['full delegation, the API among the token\'s audiences', agent('full-delegation'), caller(['https://tg.test', 'https://api.test']), { kind: 'bearer', token: 'caller-token', source: 'caller' }],
    ['full delegation, a token for another audience: static token instead', agent('full-delegation', { token: 'static-token' }), caller('https://tg.test'), { kind: 'bearer', token: 'static-token', source: 'static' }],
    ['full delegation, a prefix of the audience is not the audience', agent('full-delegation'), caller('https://api.test/v1'), { kind: 'none' }],
    ['full delegation, no audience known for the API', agent('full-delegation', {}, null), caller('https://api.test'), { kind: 'none' }],
    ['hybrid behaves as full delegation here', agent('hybrid'), caller('https://api.test'), { kind: 'bearer', token: 'caller-token', source: 'caller' }],
    ['no caller (AUTH_TYPE=none), username and password', agent('full-delegation', { username: 'svc', password: 'pw' }), undefined, { kind: 'basic', username: 'svc', password: 'pw', source: 'static' }],
    ['identity passthrough never passes the caller\'s token on, even one for the API', agent('identity-passthrough', { publicKey: 'pk', secretKey: 'sk' }), caller('https://api.test'), { kind: 'basic', username: 'pk', password: 'sk', source: 'static' }],
    ['identity passthrough, key headers', agent('identity-passthrough', { publicKey: 'pk', secretKey: 'sk', apiKeyStyle: 'headers' }), caller('https://api.test'), { kind: 'api-key', headers: { 'x-public-key': 'pk', 'x-secret-key': 'sk' }, source: 'static' }],
    ['identity passthrough without credentials', agent('identity-passthrough'), caller('https://api.test'), { kind: 'none' }],
  ])('%s', async (_what, target, request, want) => {
    expect(await credentials.for(target, request)).toEqual(want);
  });

  it.each([
    [{ kind: 'none' } as const, {}],
    [{ kind: 'bearer', token: 't', source: 'static' } as const, { authorization: 'Bearer t' }],
    [{ kind: 'basic', username: 'ü', password: 'p:w', source: 'static' } as const, { authorization: `Basic ${Buffer.from('ü:p:w').toString('base64')}` }],
    [{ kind: 'api-key', headers: { 'x-a': '1' }, source: 'static' } as const, { 'x-a': '1' }],
  ])('authorizationHeaders(%j)', (auth, want) => {
    expect(authorizationHeaders(auth)).toEqual(want);
  });
});

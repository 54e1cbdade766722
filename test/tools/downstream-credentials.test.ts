import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DownstreamCredentials, TokenSetStore, createTokenExchanger, describeCredential, type RequestContext } from '../../src/auth/index.ts';
import { unconfiguredAgent, type AgentSettings } from '../../src/config/index.ts';
import { downstreamAgentOf } from '../../src/tools/index.ts';

function settings(overrides: Partial<AgentSettings>): AgentSettings {
  return { ...unconfiguredAgent('graph'), name: 'api', kind: 'http', pattern: 'identity-passthrough', url: 'https://api.test', ...overrides };
}

function caller(aud: unknown): RequestContext {
  return { token: 'caller-token', resourceMetadataUrl: 'https://tg.test/.well-known/oauth-protected-resource', principal: { subject: 'u', scopes: [], claims: { aud } } };
}

const basic = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`, 'utf8').toString('base64')}`;

/** The one credentials model with delegation disabled, as the tool server builds it without ENABLE_DELEGATION. */
function withoutDelegation(): DownstreamCredentials {
  return new DownstreamCredentials({
    defaults: { delegationEnabled: false, audience: undefined, scopes: 'api' },
    exchanger: createTokenExchanger({ server: undefined, client: { clientId: '' } }),
    tokenSets: new TokenSetStore(mkdtempSync(join(tmpdir(), 'tg-credentials-'))),
    refreshClient: () => Promise.reject(new Error('not used')),
  });
}

describe('the tool server\'s agents in the one credentials model, delegation disabled', () => {
  const credentials = withoutDelegation();
  it.each([
    ['graph agent (full delegation), the caller\'s token issued for the API', settings({ kind: 'graph', pattern: 'full-delegation' }), 'https://api.test', caller('https://api.test'), { authorization: 'Bearer caller-token' }, 'bearer:caller-token'],
    ['full delegation, the API among the token\'s audiences', settings({ kind: 'graph', pattern: 'full-delegation' }), 'https://api.test', caller(['https://tg.test', 'https://api.test']), { authorization: 'Bearer caller-token' }, 'bearer:caller-token'],
    ['full delegation, a token for another audience: static token instead', settings({ kind: 'graph', pattern: 'full-delegation', token: 'static-token' }), 'https://api.test', caller('https://tg.test'), { authorization: 'Bearer static-token' }, 'bearer:credentials'],
    ['full delegation, a prefix of the audience is not the audience', settings({ kind: 'graph', pattern: 'full-delegation' }), 'https://api.test', caller('https://api.test/v1'), {}, 'none:credentials'],
    ['full delegation, no audience known for the API', settings({ kind: 'graph', pattern: 'full-delegation' }), undefined, caller('https://api.test'), {}, 'none:credentials'],
    ['no caller (AUTH_TYPE=none), username and password', settings({ kind: 'graph', pattern: 'full-delegation', username: 'svc', password: 'pw' }), 'https://api.test', undefined, { authorization: basic('svc', 'pw') }, 'basic:credentials'],
    ['http agent (identity passthrough) never passes the caller\'s token on, even one for the API', settings({ publicKey: 'pk', secretKey: 'sk' }), 'https://api.test', caller('https://api.test'), { authorization: basic('pk', 'sk') }, 'basic:credentials'],
    ['identity passthrough, key headers', settings({ publicKey: 'pk', secretKey: 'sk', apiKeyStyle: 'headers' }), 'https://api.test', caller('https://api.test'), { 'x-public-key': 'pk', 'x-secret-key': 'sk' }, 'headers:credentials'],
    ['identity passthrough without credentials', settings({}), 'https://api.test', caller('https://api.test'), {}, 'none:credentials'],
  ])('%s', async (_what, agentSettings, audience, request, headers, described) => {
    const credential = await credentials.resolve(downstreamAgentOf(agentSettings, { audience }), { context: request });
    expect(credential.headers).toEqual(headers);
    expect(describeCredential(credential)).toBe(described);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResourceMetadataService, protectedResourceMetadata, resourceMetadataUrl } from '../../src/auth/index.ts';
import { startHost, type RunningHost } from '../../src/http/index.ts';
import { silentLogger } from '../../src/log/index.ts';

describe('resourceMetadataUrl (RFC 9728 §3.1)', () => {
  it.each([
    ['http://127.0.0.1:4000', 'http://127.0.0.1:4000/.well-known/oauth-protected-resource'],
    ['https://tools.example.test/', 'https://tools.example.test/.well-known/oauth-protected-resource'],
    ['https://tools.example.test/base', 'https://tools.example.test/.well-known/oauth-protected-resource/base'],
    ['https://tools.example.test/a/b/', 'https://tools.example.test/.well-known/oauth-protected-resource/a/b'],
  ])('%s', (base, url) => {
    expect(resourceMetadataUrl(base)).toBe(url);
  });
});

describe('the metadata service', () => {
  const document = protectedResourceMetadata({ resource: 'https://tools.example.test', issuer: 'https://idp.example.test', scopesSupported: ['kg:read', 'kg:write'] });
  let host: RunningHost;
  beforeAll(async () => {
    host = await startHost({ services: [createResourceMetadataService(document)], logger: silentLogger(), host: '127.0.0.1', port: 0 });
  });
  afterAll(() => host.close());

  it.each(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/dispatch', '/.well-known/oauth-protected-resource/mcp'])('serves the document at %s', async (path) => {
    const res = await fetch(`${host.origin}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toEqual({
      resource: 'https://tools.example.test',
      authorization_servers: ['https://idp.example.test'],
      scopes_supported: ['kg:read', 'kg:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'toolgraph',
    });
  });

  it('accepts GET and HEAD only', async () => {
    const res = await fetch(`${host.origin}/.well-known/oauth-protected-resource`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect((await fetch(`${host.origin}/.well-known/oauth-protected-resource`, { method: 'HEAD' })).status).toBe(200);
  });
});

import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index.ts';

const env = { HOME: '/nonexistent-home' };

describe('SERVICE_GRAPHQL_SIGNER_JWKS', () => {
  it.each([
    ['/etc/toolgraph/signers.json', '/etc/toolgraph/signers.json'],
    ['https://signer.example/.well-known/jwks.json', 'https://signer.example/.well-known/jwks.json'],
    ['http://127.0.0.1:9000/jwks.json', 'http://127.0.0.1:9000/jwks.json'],
  ])('accepts %s', (raw, value) => {
    expect(resolveConfig({ env: { ...env, SERVICE_GRAPHQL_SIGNER_JWKS: raw } }).values.graphqlSignerJwks).toBe(value);
  });

  it.each(['signers.json', 'ftp://x/jwks.json', '~/jwks.json'])('refuses %s', (raw) => {
    expect(() => resolveConfig({ env: { ...env, SERVICE_GRAPHQL_SIGNER_JWKS: raw } }))
      .toThrow(`SERVICE_GRAPHQL_SIGNER_JWKS from env: expected an absolute path to a JWKS file or an absolute http(s) URL serving one, got "${raw}"`);
  });

  it('is read from the flag and the config key too', () => {
    expect(resolveConfig({ env, flags: { graphqlSignerJwks: '/a/jwks.json' } }).sources.graphqlSignerJwks).toBe('flag');
  });
});

import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeConfig, resolveConfig } from '../../src/config/index.ts';
import { failure } from '../support/toolgraph-failure.ts';

function configFile(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'tg-config-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const noFile = '/nonexistent/toolgraph-test/config.json';
const emptyEnv = { HOME: '/home/tester' };

describe('resolveConfig defaults', () => {
  it('uses the spec defaults when nothing is set', () => {
    const { values, sources } = resolveConfig({ env: emptyEnv });
    expect(values).toMatchObject({
      authType: 'none',
      enableDelegation: false,
      delegatedScopes: 'api',
      secretsBackend: 'inmemory',
      storeUrl: 'http://127.0.0.1:8200',
      storeMount: 'secret',
      storeAuthMethod: 'auto',
      storeAuthMount: 'jwt',
      storeRole: 'default',
      graphqlMaxConnections: 128,
      graphqlMaxSessionSecs: 300,
      host: '127.0.0.1',
      port: 4000,
      persistence: 'file',
    });
    expect(values.graphqlAddr).toBeUndefined();
    expect(values.dataDir).toBe('/home/tester/.local/share/toolgraph');
    expect(sources.authType).toBe('default');
  });

  it('follows XDG_DATA_HOME and ignores a relative XDG path', () => {
    expect(resolveConfig({ env: { ...emptyEnv, XDG_DATA_HOME: '/data' } }).values.dataDir).toBe('/data/toolgraph');
    expect(resolveConfig({ env: { ...emptyEnv, XDG_DATA_HOME: 'relative' } }).values.dataDir).toBe('/home/tester/.local/share/toolgraph');
  });

  it('reads config.json from $XDG_CONFIG_HOME/toolgraph', () => {
    const file = configFile({ store_mount: 'kv' });
    const dir = join(file, '..', '..');
    const moved = join(dir, 'toolgraph');
    // config_dir = $XDG_CONFIG_HOME/toolgraph, so place the file there.
    mkdirSync(moved, { recursive: true });
    renameSync(file, join(moved, 'config.json'));
    const resolved = resolveConfig({ env: { ...emptyEnv, XDG_CONFIG_HOME: dir } });
    expect(resolved.values.storeMount).toBe('kv');
    expect(resolved.configFile).toBe(join(moved, 'config.json'));
  });
});

describe('resolveConfig precedence: flag > env > config.json > default', () => {
  const file = configFile({ store_mount: 'from-file', store_role: 'file-role', store_auth_mount: 'file-mount' });
  const env = { ...emptyEnv, SECRETS_STORE_MOUNT: 'from-env', STORE_ROLE: 'env-role' };

  it.each([
    ['storeMount', { }, 'from-env', 'env'],
    ['storeRole', { storeRole: 'flag-role' }, 'flag-role', 'flag'],
    ['storeAuthMount', {}, 'file-mount', 'config'],
    ['storePathPrefix', {}, undefined, 'default'],
  ] as const)('%s', (name, flags, value, source) => {
    const resolved = resolveConfig({ env, flags, configFile: file });
    expect(resolved.values[name]).toBe(value);
    expect(resolved.sources[name]).toBe(source);
  });

  it('ignores an env var set to the empty string', () => {
    expect(resolveConfig({ env: { ...emptyEnv, PORT: '' } }).values.port).toBe(4000);
  });

  it('AUDIENCE and DELEGATED_SCOPES come from env or their config keys only', () => {
    const withFile = configFile({ delegation_audience: 'api://downstream', delegated_scopes: 'read write' });
    const resolved = resolveConfig({ env: emptyEnv, configFile: withFile });
    expect(resolved.values.audience).toBe('api://downstream');
    expect(resolved.values.delegatedScopes).toBe('read write');
  });
});

describe('resolveConfig value errors name the setting, source, expectation and value', () => {
  it.each([
    [{ SERVICE_GRAPHQL_MAX_CONNECTIONS: '0' }, 'SERVICE_GRAPHQL_MAX_CONNECTIONS from env: expected an integer from 1 to 10000, got "0"'],
    [{ SERVICE_GRAPHQL_MAX_CONNECTIONS: '10001' }, 'SERVICE_GRAPHQL_MAX_CONNECTIONS from env: expected an integer from 1 to 10000, got "10001"'],
    [{ SERVICE_GRAPHQL_MAX_SESSION_SECS: '3601' }, 'SERVICE_GRAPHQL_MAX_SESSION_SECS from env: expected an integer from 1 to 3600, got "3601"'],
    [{ SERVICE_GRAPHQL_MAX_SESSION_SECS: '1.5' }, 'SERVICE_GRAPHQL_MAX_SESSION_SECS from env: expected an integer from 1 to 3600, got "1.5"'],
    [{ AUTH_TYPE: 'saml' }, 'AUTH_TYPE from env: expected one of none, oidc-proxy, oauth-proxy, jwt, remote, got "saml"'],
    [{ ENABLE_DELEGATION: 'maybe' }, 'ENABLE_DELEGATION from env: expected a boolean'],
    [{ STORE_AUTH_METHOD: 'kerberos' }, 'STORE_AUTH_METHOD from env: expected one of auto, oidc, approle, token, orchestrator, got "kerberos"'],
    [{ SECRETS_STORE_URL: 'ftp://x' }, 'SECRETS_STORE_URL from env: expected an absolute http(s) URL, got "ftp://x"'],
    [{ SERVICE_GRAPHQL_ADDR: '0.0.0.0:7879' }, 'SERVICE_GRAPHQL_ADDR from env: expected a loopback address'],
    [{ SERVICE_GRAPHQL_ADDR: '10.0.0.1:7879' }, 'got "10.0.0.1:7879"'],
    [{ SERVICE_GRAPHQL_ADDR: 'localhost:7879' }, 'got "localhost:7879"'],
    [{ SERVICE_GRAPHQL_ADDR: '127.0.0.1:0' }, 'got "127.0.0.1:0"'],
    [{ SERVICE_GRAPHQL_ADDR: '127.0.0.1' }, 'got "127.0.0.1"'],
    [{ PORT: '65536' }, 'PORT from env: expected an integer from 0 to 65535, got "65536"'],
  ])('%j', (env, message) => {
    const error = failure(() => resolveConfig({ env: { ...emptyEnv, ...env }, configFile: undefined }));
    expect(error.code).toBe('TG_CONFIG_INVALID');
    expect(error.message).toContain(message);
  });

  it('names the flag when a flag is wrong', () => {
    const error = failure(() => resolveConfig({ env: emptyEnv, flags: { graphqlMaxConnections: 'lots' } }));
    expect(error.message).toBe('--graphql-max-connections from flag: expected an integer from 1 to 10000, got "lots"');
  });

  it('names the config key and file when config.json is wrong', () => {
    const file = configFile({ store_auth_method: 'magic' });
    const error = failure(() => resolveConfig({ env: emptyEnv, configFile: file }));
    expect(error.message).toBe(`store_auth_method from config file ${file}: expected one of auto, oidc, approle, token, orchestrator, got "magic"`);
  });

  it('never echoes a secret value back', () => {
    const file = configFile({ oidc_client_secret: 12345 });
    const error = failure(() => resolveConfig({ env: emptyEnv, configFile: file }));
    expect(error.message).toContain('oidc_client_secret');
    expect(error.message).toContain('[REDACTED]');
    expect(error.message).not.toContain('12345');
  });

  it('an unknown config key gets the nearest known one, as a typo\'d flag does, and no list of every key', () => {
    const file = configFile({ oidc_confg_url: 'https://idp.example/.well-known/openid-configuration' });
    expect(failure(() => resolveConfig({ env: emptyEnv, configFile: file })).message).toBe(
      `config file ${file}: unknown key "oidc_confg_url" (Did you mean oidc_config_url?); \`toolgraph config\` lists every setting with its config key, as does the Configuration table of the README`);
    const far = failure(() => resolveConfig({ env: emptyEnv, configFile: configFile({ zzzzzzzzzzzz: 1 }) })).message;
    expect(far).toContain('unknown key "zzzzzzzzzzzz"; `toolgraph config` lists every setting');
    expect(far).not.toContain('store_mount');
  });

  it('refuses unknown config keys, invalid JSON and non-objects', () => {
    expect(failure(() => resolveConfig({ env: emptyEnv, configFile: configFile({ store_mnt: 'x' }) })).message).toContain('unknown key "store_mnt"');
    expect(failure(() => resolveConfig({ env: emptyEnv, configFile: configFile('{nope') })).message).toContain('expected a JSON object, got invalid JSON');
    expect(failure(() => resolveConfig({ env: emptyEnv, configFile: configFile([1]) })).message).toContain('expected a JSON object, got an array');
    expect(failure(() => resolveConfig({ env: emptyEnv, configFile: noFile })).message).toContain('cannot be read');
  });
});

describe('resolveConfig combinations', () => {
  it.each([
    [{ AUTH_TYPE: 'oidc-proxy' }, 'OIDC_CONFIG_URL is required when AUTH_TYPE is oidc-proxy'],
    [{ AUTH_TYPE: 'oidc-proxy', OIDC_CONFIG_URL: 'http://127.0.0.1:1/.well-known/openid-configuration' }, 'OIDC_CLIENT_ID is required'],
    [{ AUTH_TYPE: 'oauth-proxy', OIDC_CLIENT_ID: 'c' }, 'OAUTH_AUTHORIZATION_ENDPOINT is required when AUTH_TYPE is oauth-proxy without OIDC_CONFIG_URL'],
    [{ AUTH_TYPE: 'oauth-proxy', OIDC_CLIENT_ID: 'c', OAUTH_AUTHORIZATION_ENDPOINT: 'https://idp.test/authorize', OAUTH_TOKEN_ENDPOINT: 'https://idp.test/token', OAUTH_ISSUER: 'https://idp.test' }, 'OAUTH_JWKS_URI is required when AUTH_TYPE is oauth-proxy without OIDC_CONFIG_URL'],
    [{ AUTH_TYPE: 'oauth-proxy', OIDC_CONFIG_URL: 'https://idp.test/.well-known/oauth-authorization-server' }, 'OIDC_CLIENT_ID is required when AUTH_TYPE is oauth-proxy'],
    [{ AUTH_TYPE: 'jwt' }, 'OIDC_CONFIG_URL is required when AUTH_TYPE is jwt: the signing keys are found through discovery'],
    [{ AUTH_TYPE: 'remote' }, 'OIDC_CONFIG_URL is required when AUTH_TYPE is remote: the signing keys are found through discovery'],
    [{ ENABLE_DELEGATION: 'true', OIDC_CONFIG_URL: 'http://127.0.0.1:1/x' }, 'AUDIENCE is required when ENABLE_DELEGATION is true'],
    [{ ENABLE_DELEGATION: 'true', AUDIENCE: 'graph' }, 'OIDC_CONFIG_URL is required when ENABLE_DELEGATION is true: the token endpoint is found through discovery (set OIDC_CONFIG_URL, --oidc-config-url or config key oidc_config_url to the IdP\'s discovery document, its /.well-known/openid-configuration URL; for a local test IdP, `npm run dev:idp` in a toolgraph checkout starts one and prints the URL)'],
    [{ AUTH_TYPE: 'jwt' }, 'found through discovery (set OIDC_CONFIG_URL, --oidc-config-url or config key oidc_config_url to the IdP\'s discovery document, its /.well-known/openid-configuration URL; for a local test IdP, `npm run dev:idp`'],
    [{ TOOLGRAPH_PERSISTENCE: 'postgres' }, 'DATABASE_URL is required'],
    [{ SECRETS_BACKEND: 'store', STORE_AUTH_METHOD: 'token' }, 'STORE_TOKEN is required'],
    [{ SECRETS_BACKEND: 'store', STORE_AUTH_METHOD: 'approle', STORE_ROLE_ID: 'r' }, 'STORE_ROLE_ID and STORE_SECRET_ID are required'],
  ])('%j', (env, message) => {
    expect(failure(() => resolveConfig({ env: { ...emptyEnv, ...env } })).message).toContain(message);
  });

  it('reads TOKEN_AUDIENCE from the flag, the env and config key token_audience; unset by default', () => {
    expect(resolveConfig({ env: emptyEnv }).values.tokenAudience).toBeUndefined();
    expect(resolveConfig({ env: { ...emptyEnv, TOKEN_AUDIENCE: 'https://tools.example.test' } }).values.tokenAudience).toBe('https://tools.example.test');
    expect(resolveConfig({ env: emptyEnv, configFile: configFile({ token_audience: 'api://toolgraph' }) }).values.tokenAudience).toBe('api://toolgraph');
    const both = resolveConfig({ env: { ...emptyEnv, TOKEN_AUDIENCE: 'from-env' }, flags: { tokenAudience: 'from-flag' } });
    expect([both.values.tokenAudience, both.sources.tokenAudience]).toEqual(['from-flag', 'flag']);
  });

  it('accepts a complete OIDC delegation setup and the carrier default address', () => {
    const { values } = resolveConfig({
      env: {
        ...emptyEnv,
        AUTH_TYPE: 'oidc-proxy',
        OIDC_CONFIG_URL: 'http://127.0.0.1:9/.well-known/openid-configuration',
        OIDC_CLIENT_ID: 'tool-server',
        ENABLE_DELEGATION: 'true',
        AUDIENCE: 'downstream',
        SERVICE_GRAPHQL_ADDR: 'on',
      },
    });
    expect(values.enableDelegation).toBe(true);
    expect(values.graphqlAddr).toEqual({ host: '127.0.0.1', port: 7879 });
  });

  it('accepts [::1] and any 127/8 address for the carrier', () => {
    expect(resolveConfig({ env: { ...emptyEnv, SERVICE_GRAPHQL_ADDR: '[::1]:9000' } }).values.graphqlAddr).toEqual({ host: '::1', port: 9000 });
    expect(resolveConfig({ env: { ...emptyEnv, SERVICE_GRAPHQL_ADDR: '127.1.2.3:80' } }).values.graphqlAddr).toEqual({ host: '127.1.2.3', port: 80 });
  });
});

describe('describeConfig', () => {
  it('redacts secrets and the password of DATABASE_URL', () => {
    const config = resolveConfig({
      env: { ...emptyEnv, OIDC_CLIENT_SECRET: 's3cr3t-value', STORE_TOKEN: 'hvs.token', DATABASE_URL: 'postgresql://app:pw123@db:5432/tg' },
    });
    const text = JSON.stringify(describeConfig(config));
    expect(text).not.toContain('s3cr3t-value');
    expect(text).not.toContain('hvs.token');
    expect(text).not.toContain('pw123');
    expect(text).toContain('postgresql://app:%5BREDACTED%5D@db:5432/tg');
    const row = describeConfig(config).find((r) => r.name === 'oidcClientSecret');
    expect(row).toMatchObject({ value: '[REDACTED]', source: 'env', env: 'OIDC_CLIENT_SECRET', flag: '--oidc-client-secret', configKey: 'oidc_client_secret' });
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProgram } from '../../src/cli/program.ts';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { describeConfig, resolveAgents, resolveConfig } from '../../src/config/index.ts';
import { forgetSecrets, scrubString } from '../../src/log/index.ts';

const HOME = { HOME: '/home/tester' };

function configFile(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'tg-agents-')), 'config.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

function resolve(options: { env?: Record<string, string>; flags?: string[]; config?: unknown }) {
  return resolveAgents({ flags: options.flags ?? [], env: options.env ?? {}, config: options.config, configPath: '/x/config.json' });
}

describe('agents: every field from flag, env or config.json, each on its own', () => {
  it('reads config.json, TOOLGRAPH_AGENT_<NAME>_<FIELD> and --agent name.field=value, flag over env over config', () => {
    const { agents, source, secrets } = resolve({
      config: { crm: { url: 'https://crm.example.test/api', public_key: 'pk-config', secret_key: 'sk-config-1234' }, graph: { url: 'https://graph.example.test' } },
      env: { TOOLGRAPH_AGENT_CRM_PUBLIC_KEY: 'pk-env', TOOLGRAPH_AGENT_CRM_SSL_VERIFY: 'false', TOOLGRAPH_AGENT_MY_WIKI_HOST: 'wiki.example.test', TOOLGRAPH_AGENT_MY_WIKI_TOKEN: 'wiki-token-123456' },
      flags: ['crm.public_key=pk-flag', 'crm.timeout_secs=5', 'crm.public_key_header=X-PUB'],
    });
    expect(Object.keys(agents)).toEqual(['crm', 'graph', 'my_wiki']);
    expect(agents['crm']).toMatchObject({ kind: 'http', url: 'https://crm.example.test/api', publicKey: 'pk-flag', secretKey: 'sk-config-1234', sslVerify: false, timeoutSecs: 5, publicKeyHeader: 'x-pub', apiKeyStyle: 'basic' });
    expect(agents['graph']).toMatchObject({ kind: 'graph', url: 'https://graph.example.test', sslVerify: true, timeoutSecs: 30 });
    // A host without a scheme is an https base URL (the passthrough agent's "host").
    expect(agents['my_wiki']).toMatchObject({ kind: 'http', url: 'https://wiki.example.test', token: 'wiki-token-123456' });
    expect(source).toBe('flag');
    expect([...secrets].sort()).toEqual(['sk-config-1234', 'wiki-token-123456']);
  });

  it.each([
    [{ flags: ['crm.secret_key=sk'] }, '--agent crm.secret_key from flag: secret_key is a secret, and command lines are readable by every user of the machine; set TOOLGRAPH_AGENT_CRM_SECRET_KEY or agents.crm.secret_key in config.json'],
    [{ flags: ['crm.password=pw'] }, 'password is a secret'],
    [{ flags: ['crm.token=t'] }, 'token is a secret'],
    [{ flags: ['crm-url'] }, '--agent from flag: expected <name>.<field>=<value>'],
    [{ flags: ['crm.colour=red'] }, '--agent crm.colour from flag: unknown field'],
    [{ env: { TOOLGRAPH_AGENT_CRM_COLOUR: 'red' } }, 'TOOLGRAPH_AGENT_CRM_COLOUR from env: expected TOOLGRAPH_AGENT_<NAME>_<FIELD>'],
    [{ config: { crm: { url: 'https://x', colour: 'red' } } }, 'agents.crm.colour from config file /x/config.json: unknown field'],
    [{ config: ['x'] }, 'agents from config file /x/config.json: expected an object of agent name → settings'],
    [{ config: { 'Bad-Name': { url: 'https://x' } } }, 'agent names must match ^[a-z][a-z0-9_]{0,63}$, got "bad-name"'.replace('bad-name', 'Bad-Name')],
    [{ config: { crm: { public_key: 'p', secret_key: 's' } } }, 'agent crm: an http agent needs its API\'s base URL (url or host)'],
    [{ config: { crm: { url: 'https://x', host: 'y' } } }, 'agent crm: give url or host, not both'],
    [{ config: { crm: { url: 'https://x', username: 'u' } } }, 'agent crm: username and password come together'],
    [{ config: { crm: { url: 'https://x', public_key: 'p' } } }, 'agent crm: public_key and secret_key come together'],
    [{ config: { crm: { url: 'https://x', token: 't', public_key: 'p', secret_key: 's' } } }, 'agent crm: give one credential, not token and public_key/secret_key'],
    [{ config: { secrets: { url: 'https://x' } } }, 'agent secrets: the name is a built-in tool\'s'],
    [{ config: { graph: { kind: 'http', url: 'https://x' } } }, 'agent graph: the built-in graph tool\'s agent must have kind graph'],
    [{ config: { crm: { url: 'ftp://x' } } }, 'agents.crm.url from config file /x/config.json: expected an absolute http(s) URL, or a host name (https is assumed), got "ftp://x"'],
    [{ env: { TOOLGRAPH_AGENT_CRM_URL: 'https://x', TOOLGRAPH_AGENT_CRM_SSL_VERIFY: 'maybe' } }, 'TOOLGRAPH_AGENT_CRM_SSL_VERIFY from env: expected a boolean'],
    [{ config: { crm: { url: 'https://x', password: 7, username: 'u' } } }, 'agents.crm.password from config file /x/config.json: expected a non-empty string, got [REDACTED]'],
  ])('refuses %j naming the setting', (input, message) => {
    expect(() => resolve(input)).toThrow(message);
  });

  it('is the agents setting of resolveConfig, shown redacted by toolgraph config, its secrets known to the log scrubber', async () => {
    forgetSecrets();
    const file = configFile({ agents: { crm: { url: 'https://crm.example.test', username: 'svc', password: 'pw-config-9f8e7d' } } });
    const config = resolveConfig({ env: { ...HOME, TOOLGRAPH_AGENT_CRM_USERNAME: 'svc-env' }, configFile: file });
    expect(config.values.agents['crm']).toMatchObject({ username: 'svc-env', password: 'pw-config-9f8e7d' });
    expect(config.sources.agents).toBe('env');
    const row = describeConfig(config).find((r) => r.name === 'agents')!;
    expect(row.value).toBe('{"crm":{"kind":"http","url":"https://crm.example.test","username":"svc-env","password":"[REDACTED]"}}');
    expect(scrubString('failed with pw-config-9f8e7d')).toBe('failed with [REDACTED]');

    const lines: string[] = [];
    const io: CliIo = { out: (l) => lines.push(l), err: (l) => lines.push(l) };
    const previous = process.env['TOOLGRAPH_AGENT_CRM_SECRET_KEY'];
    process.env['TOOLGRAPH_AGENT_CRM_SECRET_KEY'] = 'sk-env-0a1b2c3d';
    try {
      expect(await runProgram(['config', '--json', '--config', configFile({ agents: { crm: { url: 'https://crm.example.test', public_key: 'pk-1' } } }), '--agent', 'crm.ssl_verify=false', '--agent', 'crm.api_key_style=headers'], io)).toBe(0);
    } finally {
      if (previous === undefined) delete process.env['TOOLGRAPH_AGENT_CRM_SECRET_KEY'];
      else process.env['TOOLGRAPH_AGENT_CRM_SECRET_KEY'] = previous;
    }
    const printed = lines.join('\n');
    expect(printed).not.toContain('sk-env-0a1b2c3d');
    const settings = (JSON.parse(printed) as { settings: { name: string; value: string; source: string }[] }).settings;
    expect(settings.find((s) => s.name === 'agents')).toMatchObject({
      value: '{"crm":{"kind":"http","url":"https://crm.example.test","public_key":"pk-1","secret_key":"[REDACTED]","api_key_style":"headers","ssl_verify":false}}',
      source: 'flag',
    });
  });
});

describe('agents name their pattern, OAuth provider, audience and scopes', () => {
  it('reads them from flag, env and config.json; the pattern defaults by kind', () => {
    const { agents, secrets } = resolve({
      config: { jira: { url: 'https://jira.example.test/rest', provider_config_url: 'https://vendor.example.test/.well-known/openid-configuration', client_id: 'tg-jira', client_secret: 'jira-client-secret-42' } },
      env: { TOOLGRAPH_AGENT_JIRA_SCOPES: 'read:jira-work offline_access', TOOLGRAPH_AGENT_VENDOR_URL: 'https://vendor.example.test/api', TOOLGRAPH_AGENT_VENDOR_PATTERN: 'hybrid' },
      flags: ['jira.pattern=three-legged', 'jira.audience=https://jira.example.test', 'search.url=https://search.example.test', 'search.pattern=three-legged', 'search.consent=operator',
        'search.authorization_endpoint=https://search.example.test/authorize', 'search.token_endpoint=https://search.example.test/token', 'search.client_id=tg-search', 'search.client_secret_ref=vendors/search#client_secret',
        'graph.scopes=kg:read'],
    });
    expect(agents['jira']).toMatchObject({ kind: 'http', pattern: 'three-legged', audience: 'https://jira.example.test', scopes: 'read:jira-work offline_access', providerConfigUrl: 'https://vendor.example.test/.well-known/openid-configuration', clientId: 'tg-jira', clientSecret: 'jira-client-secret-42', consent: undefined });
    expect(agents['search']).toMatchObject({ pattern: 'three-legged', consent: 'operator', authorizationEndpoint: 'https://search.example.test/authorize', tokenEndpoint: 'https://search.example.test/token', clientSecretRef: 'vendors/search#client_secret' });
    expect(agents['vendor']).toMatchObject({ kind: 'http', pattern: 'hybrid', clientId: undefined });
    expect(agents['graph']).toMatchObject({ kind: 'graph', pattern: 'full-delegation', scopes: 'kg:read' });
    expect(resolve({ env: { TOOLGRAPH_AGENT_CRM_URL: 'https://crm.example.test' } }).agents['crm']!.pattern).toBe('identity-passthrough');
    expect(secrets).toContain('jira-client-secret-42');
  });

  it.each([
    [{ flags: ['jira.url=https://x', 'jira.pattern=three-legged'] }, 'agent jira: pattern three-legged needs the OAuth provider the user consents at: set provider_config_url (TOOLGRAPH_AGENT_JIRA_PROVIDER_CONFIG_URL, or agents.jira.provider_config_url in config.json), or authorization_endpoint and token_endpoint'],
    [{ flags: ['jira.url=https://x', 'jira.pattern=three-legged', 'jira.provider_config_url=https://v.test/.well-known/openid-configuration'] }, 'agent jira: pattern three-legged signs in at the provider as a registered client: set client_id (TOOLGRAPH_AGENT_JIRA_CLIENT_ID, or agents.jira.client_id in config.json)'],
    [{ flags: ['jira.url=https://x', 'jira.pattern=three-legged', 'jira.token_endpoint=https://v.test/token', 'jira.client_id=c'] }, 'agent jira: pattern three-legged sends the user to the provider\'s authorization endpoint: set authorization_endpoint (TOOLGRAPH_AGENT_JIRA_AUTHORIZATION_ENDPOINT'],
    [{ flags: ['jira.url=https://x', 'jira.client_id=c'] }, 'agent jira: client_id name an OAuth provider, which only three-legged and hybrid agents sign in at; this agent\'s pattern is identity-passthrough'],
    [{ flags: ['jira.url=https://x', 'jira.consent=operator'] }, 'agent jira: consent applies to three-legged agents; this agent\'s pattern is identity-passthrough'],
    [{ flags: ['jira.url=https://x', 'jira.pattern=hybrid', 'jira.client_id=c'] }, 'agent jira: pattern hybrid needs the OAuth provider of its device flow: set provider_config_url'],
    [{ flags: ['jira.url=https://x', 'jira.pattern=three-legged', 'jira.client_id=c', 'jira.provider_config_url=https://v.test/d', 'jira.token_endpoint=https://v.test/token'] }, 'agent jira: give provider_config_url (discovery) or authorization_endpoint and token_endpoint, not both'],
    [{ flags: ['jira.url=https://x', 'jira.pattern=three-legged', 'jira.client_id=c', 'jira.provider_config_url=https://v.test/d', 'jira.client_secret_ref=k'], env: { TOOLGRAPH_AGENT_JIRA_CLIENT_SECRET: 's' } }, 'agent jira: give client_secret or client_secret_ref, not both'],
    [{ flags: ['jira.client_secret=s'] }, 'client_secret is a secret, and command lines are readable by every user of the machine'],
    [{ flags: ['jira.pattern=two-legged'] }, '--agent jira.pattern from flag: expected one of full-delegation, hybrid, identity-passthrough, three-legged, got "two-legged"'],
  ])('refuses an incomplete combination at start-up, naming the missing setting: %j', (input, message) => {
    expect(() => resolve(input)).toThrow(message);
  });
});

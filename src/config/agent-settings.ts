import { ToolgraphError } from '../errors/index.ts';
import { booleanValue, httpUrl, integerIn, Invalid, oneOf, stringValue, type ValueParser } from './value-parsers.ts';

/**
 * Downstream agents of the tool server and their credentials (spec, Area B: "each downstream agent
 * has its own variables for a base URL or instance, a token or username/password pair, and in some
 * cases an SSL-verify flag; the identity-passthrough agent uses a host, a public key and a secret
 * key"). Every field of every agent resolves on its own: flag > env > config.json > default.
 *
 * - config.json: `"agents": {"crm": {"url": "https://crm.example.com", "public_key": "…", "secret_key": "…"}}`
 * - env: `TOOLGRAPH_AGENT_<NAME>_<FIELD>`, e.g. `TOOLGRAPH_AGENT_CRM_SECRET_KEY` (NAME upper-cased)
 * - flags: `--agent <name>.<field>=<value>`, repeatable; never for a secret field (argument lists
 *   are readable by every user of the machine).
 */
const AGENT_KINDS = ['graph', 'http'] as const;
type AgentKind = (typeof AGENT_KINDS)[number];
const API_KEY_STYLES = ['basic', 'headers'] as const;
type ApiKeyStyle = (typeof API_KEY_STYLES)[number];
/**
 * How an agent authenticates downstream, as the spec names the patterns (plus three-legged OAuth);
 * the delegation library (src/auth) implements each. Default: full-delegation for graph agents,
 * identity-passthrough for http agents.
 */
export const AGENT_PATTERNS = ['full-delegation', 'hybrid', 'identity-passthrough', 'three-legged'] as const;
export type AgentPattern = (typeof AGENT_PATTERNS)[number];
/** Whose consent a three-legged agent calls with: each caller's (default), or the operator's sign-in. */
export const CONSENT_OWNERS = ['caller', 'operator'] as const;
export type ConsentOwner = (typeof CONSENT_OWNERS)[number];

export interface AgentSettings {
  readonly name: string;
  /** `graph`: a toolgraph graph service (full delegation); `http`: a REST API with API keys (identity passthrough). */
  readonly kind: AgentKind;
  /** Base URL. For `graph` agents unset means this process's own graph service. */
  readonly url: string | undefined;
  readonly token: string | undefined;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly publicKey: string | undefined;
  readonly secretKey: string | undefined;
  /** How an API key pair is sent: HTTP Basic (public:secret), or two headers. */
  readonly apiKeyStyle: ApiKeyStyle;
  readonly publicKeyHeader: string;
  readonly secretKeyHeader: string;
  /** Check the API's TLS certificate (default true). */
  readonly sslVerify: boolean;
  /** The audience (aud) of tokens the API accepts; a caller's token is passed on only when issued for it. */
  readonly audience: string | undefined;
  readonly timeoutSecs: number;
  /** What the tool says it is for (http agents). */
  readonly description: string | undefined;
  readonly pattern: AgentPattern;
  /** Space-separated scopes: of the delegated token (full delegation, hybrid), or asked for at consent (three-legged). */
  readonly scopes: string | undefined;
  /** Three-legged: whose consent; undefined means `caller`. */
  readonly consent: ConsentOwner | undefined;
  /** The OAuth provider of a three-legged agent (and of a hybrid agent's own device flow): its discovery document… */
  readonly providerConfigUrl: string | undefined;
  /** …or its endpoints. */
  readonly authorizationEndpoint: string | undefined;
  readonly tokenEndpoint: string | undefined;
  /** The client registered at the provider. */
  readonly clientId: string | undefined;
  readonly clientSecret: string | undefined;
  /** The client secret's key in the secrets backend (`key`, or `key#field` for one field of an object secret). */
  readonly clientSecretRef: string | undefined;
}

export type AgentsSettings = Readonly<Record<string, AgentSettings>>;

type FieldName = 'kind' | 'url' | 'host' | 'token' | 'username' | 'password' | 'public_key' | 'secret_key' | 'api_key_style'
  | 'public_key_header' | 'secret_key_header' | 'ssl_verify' | 'audience' | 'timeout_secs' | 'description'
  | 'pattern' | 'scopes' | 'consent' | 'provider_config_url' | 'authorization_endpoint' | 'token_endpoint' | 'client_id' | 'client_secret' | 'client_secret_ref';

interface FieldDef {
  readonly parser: ValueParser<unknown>;
  readonly secret?: true;
  readonly meaning: string;
}

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;

function baseUrl(): ValueParser<string> {
  const url = httpUrl();
  return {
    expected: 'an absolute http(s) URL, or a host name (https is assumed)',
    parse(raw) {
      if (typeof raw !== 'string' || raw === '') return Invalid;
      const parsed = url.parse(raw);
      if (parsed !== Invalid) return parsed;
      return /^[A-Za-z0-9.-]+(?::\d{1,5})?$/.test(raw) ? `https://${raw}` : Invalid;
    },
  };
}

const AGENT_FIELDS: Readonly<Record<FieldName, FieldDef>> = {
  kind: { parser: oneOf(AGENT_KINDS), meaning: 'graph (a toolgraph graph service, full delegation) or http (a REST API with API keys, identity passthrough); default graph for the agent named graph, else http' },
  url: { parser: baseUrl(), meaning: 'base URL (graph: default this process\'s own origin)' },
  host: { parser: baseUrl(), meaning: 'the same as url (the identity-passthrough agent\'s name for it); give one of them' },
  token: { parser: stringValue(), secret: true, meaning: 'a static token, sent as Authorization: Bearer' },
  username: { parser: stringValue(), meaning: 'user for HTTP Basic (with password)' },
  password: { parser: stringValue(), secret: true, meaning: 'password for HTTP Basic (with username)' },
  public_key: { parser: stringValue(), meaning: 'public key of an API key pair (with secret_key)' },
  secret_key: { parser: stringValue(), secret: true, meaning: 'secret key of an API key pair (with public_key)' },
  api_key_style: { parser: oneOf(API_KEY_STYLES), meaning: 'how the key pair is sent: basic (Authorization: Basic public:secret, the default) or headers' },
  public_key_header: { parser: { expected: 'an HTTP header name', parse: (raw) => (typeof raw === 'string' && HEADER_NAME.test(raw) ? raw.toLowerCase() : Invalid) }, meaning: 'header carrying the public key with api_key_style headers (default x-public-key)' },
  secret_key_header: { parser: { expected: 'an HTTP header name', parse: (raw) => (typeof raw === 'string' && HEADER_NAME.test(raw) ? raw.toLowerCase() : Invalid) }, meaning: 'header carrying the secret key with api_key_style headers (default x-secret-key)' },
  ssl_verify: { parser: booleanValue(), meaning: 'check the API\'s TLS certificate (default true)' },
  audience: { parser: stringValue(), meaning: 'the API\'s identifier: the aud of tokens it accepts, the delegated token\'s audience (default AUDIENCE; graph without url: TOKEN_AUDIENCE), the resource a three-legged consent is for' },
  timeout_secs: { parser: integerIn(1, 600), meaning: 'seconds a call may take (default 30)' },
  description: { parser: stringValue(), meaning: 'what the tool is for, shown to MCP clients (http agents)' },
  pattern: { parser: oneOf(AGENT_PATTERNS), meaning: 'how the agent authenticates downstream: full-delegation (default for graph), hybrid, identity-passthrough (default for http) or three-legged' },
  scopes: { parser: stringValue('a space-separated list of scopes'), meaning: 'scopes of the delegated token (full-delegation, hybrid; default DELEGATED_SCOPES, the graph tool: what each action needs), or asked for at consent (three-legged; default openid offline_access)' },
  consent: { parser: oneOf(CONSENT_OWNERS), meaning: 'three-legged: whose consent calls carry, each caller\'s own (caller, the default) or the operator\'s sign-in by toolgraph auth login (operator)' },
  provider_config_url: { parser: httpUrl(), meaning: 'the OAuth provider\'s discovery document (three-legged; a hybrid agent\'s own device flow, default the IdP)' },
  authorization_endpoint: { parser: httpUrl(), meaning: 'the provider\'s authorization endpoint, for a provider without discovery (with token_endpoint)' },
  token_endpoint: { parser: httpUrl(), meaning: 'the provider\'s token endpoint, for a provider without discovery' },
  client_id: { parser: stringValue(), meaning: 'the client registered at the provider (three-legged; hybrid with its own provider)' },
  client_secret: { parser: stringValue(), secret: true, meaning: 'its secret (absent for a public client)' },
  client_secret_ref: { parser: stringValue('a secrets-backend key, optionally #field'), meaning: 'the client secret\'s key in the secrets backend (key, or key#field), read at start-up instead of client_secret' },
};

/** The provider fields: only three-legged and hybrid agents sign in at an OAuth provider. */
const PROVIDER_FIELDS = ['provider_config_url', 'authorization_endpoint', 'token_endpoint', 'client_id', 'client_secret', 'client_secret_ref'] as const;

export const AGENT_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
/** Tools built in under these names; an agent may not take them (the graph agent apart, which configures the built-in). */
export const RESERVED_AGENT_NAMES: readonly string[] = ['schemas', 'secrets'];
const AGENT_ENV_PREFIX = 'TOOLGRAPH_AGENT_';

type Source = 'flag' | 'env' | 'config' | 'default';
const RANK: Record<Source, number> = { default: 0, config: 1, env: 2, flag: 3 };

export interface AgentsInputs {
  /** `--agent name.field=value` values, in command-line order. */
  readonly flags: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** config.json's `agents` value, as read. */
  readonly config: unknown;
  readonly configPath: string;
}

export interface ResolvedAgents {
  readonly agents: AgentsSettings;
  /** The strongest source any field came from. */
  readonly source: Source;
  /** Secret values (tokens, passwords, secret keys), for the log scrubber. */
  readonly secrets: readonly string[];
}

function invalid(message: string, details: Record<string, unknown> = {}): ToolgraphError {
  return new ToolgraphError('TG_CONFIG_INVALID', message, { details: { setting: 'agents', ...details } });
}

/** Env suffixes, longest first, so `_PUBLIC_KEY_HEADER` wins over `_PUBLIC_KEY`. */
const ENV_SUFFIXES = (Object.keys(AGENT_FIELDS) as FieldName[]).map((f) => [`_${f.toUpperCase()}`, f] as const).sort((a, b) => b[0].length - a[0].length);

interface RawField {
  readonly raw: unknown;
  readonly source: Source;
  readonly label: string;
}

/** Resolves every agent from the three sources; a bad name, field or value stops start-up naming it. */
export function resolveAgents(inputs: AgentsInputs): ResolvedAgents {
  const fields = new Map<string, Map<FieldName, RawField>>();
  const put = (name: string, field: FieldName, value: RawField) => {
    if (!AGENT_NAME_PATTERN.test(name)) throw invalid(`${value.label}: agent names must match ${AGENT_NAME_PATTERN.source}, got ${JSON.stringify(name)}`);
    let byField = fields.get(name);
    if (byField === undefined) fields.set(name, (byField = new Map()));
    const before = byField.get(field);
    if (before === undefined || RANK[value.source] >= RANK[before.source]) byField.set(field, value);
  };

  if (inputs.config !== undefined) {
    const where = `config file ${inputs.configPath}`;
    if (inputs.config === null || typeof inputs.config !== 'object' || Array.isArray(inputs.config)) throw invalid(`agents from ${where}: expected an object of agent name → settings`);
    for (const [name, settings] of Object.entries(inputs.config as Record<string, unknown>)) {
      if (settings === null || typeof settings !== 'object' || Array.isArray(settings)) throw invalid(`agents.${name} from ${where}: expected an object of settings`);
      for (const [field, raw] of Object.entries(settings as Record<string, unknown>)) {
        if (!(field in AGENT_FIELDS)) throw invalid(`agents.${name}.${field} from ${where}: unknown field; known fields are ${Object.keys(AGENT_FIELDS).join(', ')}`);
        put(name, field as FieldName, { raw, source: 'config', label: `agents.${name}.${field}` });
      }
    }
  }

  for (const [key, raw] of Object.entries(inputs.env)) {
    if (!key.startsWith(AGENT_ENV_PREFIX) || raw === undefined || raw === '') continue;
    const rest = key.slice(AGENT_ENV_PREFIX.length);
    const suffix = ENV_SUFFIXES.find(([s]) => rest.endsWith(s) && rest.length > s.length);
    if (suffix === undefined) throw invalid(`${key} from env: expected ${AGENT_ENV_PREFIX}<NAME>_<FIELD> with FIELD one of ${Object.keys(AGENT_FIELDS).map((f) => f.toUpperCase()).join(', ')}`);
    put(rest.slice(0, -suffix[0].length).toLowerCase(), suffix[1], { raw, source: 'env', label: key });
  }

  for (const flag of inputs.flags) {
    const match = /^([^.=]+)\.([^=]+)=(.*)$/s.exec(flag);
    if (!match) throw invalid(`--agent from flag: expected <name>.<field>=<value>, got ${JSON.stringify(flag.slice(0, 100))}`);
    const [, name, field, raw] = match as unknown as [string, string, string, string];
    if (!(field in AGENT_FIELDS)) throw invalid(`--agent ${name}.${field} from flag: unknown field; known fields are ${Object.keys(AGENT_FIELDS).join(', ')}`);
    if (AGENT_FIELDS[field as FieldName].secret) {
      throw invalid(`--agent ${name}.${field} from flag: ${field} is a secret, and command lines are readable by every user of the machine; set ${AGENT_ENV_PREFIX}${name.toUpperCase()}_${field.toUpperCase()} or agents.${name}.${field} in config.json`);
    }
    put(name, field as FieldName, { raw, source: 'flag', label: `--agent ${name}.${field}` });
  }

  const agents: Record<string, AgentSettings> = {};
  const secrets: string[] = [];
  let strongest: Source = 'default';
  for (const name of [...fields.keys()].sort()) {
    const byField = fields.get(name) as Map<FieldName, RawField>;
    const value = <T>(field: FieldName): T | undefined => {
      const raw = byField.get(field);
      if (raw === undefined) return undefined;
      if (RANK[raw.source] > RANK[strongest]) strongest = raw.source;
      const def = AGENT_FIELDS[field];
      const parsed = def.parser.parse(raw.raw);
      if (parsed === Invalid) {
        const shown = def.secret ? '[REDACTED]' : JSON.stringify(raw.raw);
        throw invalid(`${raw.label} from ${raw.source === 'config' ? `config file ${inputs.configPath}` : raw.source}: expected ${def.parser.expected}, got ${shown}`, { agent: name, field });
      }
      if (def.secret && typeof parsed === 'string') secrets.push(parsed);
      return parsed as T;
    };
    agents[name] = checkAgent(name, {
      kind: value<AgentKind>('kind'),
      url: value<string>('url'),
      host: value<string>('host'),
      token: value<string>('token'),
      username: value<string>('username'),
      password: value<string>('password'),
      publicKey: value<string>('public_key'),
      secretKey: value<string>('secret_key'),
      apiKeyStyle: value<ApiKeyStyle>('api_key_style'),
      publicKeyHeader: value<string>('public_key_header'),
      secretKeyHeader: value<string>('secret_key_header'),
      sslVerify: value<boolean>('ssl_verify'),
      audience: value<string>('audience'),
      timeoutSecs: value<number>('timeout_secs'),
      description: value<string>('description'),
      pattern: value<AgentPattern>('pattern'),
      scopes: value<string>('scopes'),
      consent: value<ConsentOwner>('consent'),
      providerConfigUrl: value<string>('provider_config_url'),
      authorizationEndpoint: value<string>('authorization_endpoint'),
      tokenEndpoint: value<string>('token_endpoint'),
      clientId: value<string>('client_id'),
      clientSecret: value<string>('client_secret'),
      clientSecretRef: value<string>('client_secret_ref'),
    });
  }
  return { agents, source: strongest, secrets };
}

interface Parsed {
  kind: AgentKind | undefined;
  url: string | undefined;
  host: string | undefined;
  token: string | undefined;
  username: string | undefined;
  password: string | undefined;
  publicKey: string | undefined;
  secretKey: string | undefined;
  apiKeyStyle: ApiKeyStyle | undefined;
  publicKeyHeader: string | undefined;
  secretKeyHeader: string | undefined;
  sslVerify: boolean | undefined;
  audience: string | undefined;
  timeoutSecs: number | undefined;
  description: string | undefined;
  pattern: AgentPattern | undefined;
  scopes: string | undefined;
  consent: ConsentOwner | undefined;
  providerConfigUrl: string | undefined;
  authorizationEndpoint: string | undefined;
  tokenEndpoint: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
  clientSecretRef: string | undefined;
}

/** How a missing field is named: every place it can be set. */
function fieldNamed(agent: string, field: FieldName): string {
  return `${field} (${AGENT_ENV_PREFIX}${agent.toUpperCase()}_${field.toUpperCase()}, or agents.${agent}.${field} in config.json)`;
}

const FIELD_VALUE: Readonly<Record<(typeof PROVIDER_FIELDS)[number], keyof Parsed>> = {
  provider_config_url: 'providerConfigUrl', authorization_endpoint: 'authorizationEndpoint', token_endpoint: 'tokenEndpoint',
  client_id: 'clientId', client_secret: 'clientSecret', client_secret_ref: 'clientSecretRef',
};

/** The pattern's needs that the agent's own fields decide (those that need AUDIENCE and the rest are checked by src/auth at start-up too). */
function checkPattern(name: string, pattern: AgentPattern, p: Parsed): void {
  const given = PROVIDER_FIELDS.filter((f) => p[FIELD_VALUE[f]] !== undefined);
  if (pattern !== 'three-legged' && pattern !== 'hybrid' && given.length > 0) {
    throw invalid(`agent ${name}: ${given.join(', ')} name an OAuth provider, which only three-legged and hybrid agents sign in at; this agent's pattern is ${pattern}`, { agent: name });
  }
  if (pattern !== 'three-legged' && p.consent !== undefined) throw invalid(`agent ${name}: consent applies to three-legged agents; this agent's pattern is ${pattern}`, { agent: name });
  if (p.clientSecret !== undefined && p.clientSecretRef !== undefined) throw invalid(`agent ${name}: give client_secret or client_secret_ref, not both`, { agent: name });
  if (p.providerConfigUrl !== undefined && (p.authorizationEndpoint !== undefined || p.tokenEndpoint !== undefined)) {
    throw invalid(`agent ${name}: give provider_config_url (discovery) or authorization_endpoint and token_endpoint, not both`, { agent: name });
  }
  const needsProvider = pattern === 'three-legged' || given.length > 0;
  if (!needsProvider) return;
  if (p.providerConfigUrl === undefined && p.tokenEndpoint === undefined) {
    throw invalid(`agent ${name}: pattern ${pattern} needs the OAuth provider ${pattern === 'three-legged' ? 'the user consents at' : 'of its device flow'}: set ${fieldNamed(name, 'provider_config_url')}, or authorization_endpoint and token_endpoint`, { agent: name, field: 'provider_config_url' });
  }
  if (pattern === 'three-legged' && p.providerConfigUrl === undefined && p.authorizationEndpoint === undefined) {
    throw invalid(`agent ${name}: pattern three-legged sends the user to the provider's authorization endpoint: set ${fieldNamed(name, 'authorization_endpoint')} beside token_endpoint, or provider_config_url`, { agent: name, field: 'authorization_endpoint' });
  }
  if (p.clientId === undefined) throw invalid(`agent ${name}: pattern ${pattern} signs in at the provider as a registered client: set ${fieldNamed(name, 'client_id')}`, { agent: name, field: 'client_id' });
}

/** The rules that join fields: one base URL, one kind of credential, both halves of a pair. */
function checkAgent(name: string, p: Parsed): AgentSettings {
  const kind = p.kind ?? (name === 'graph' ? 'graph' : 'http');
  if (RESERVED_AGENT_NAMES.includes(name)) throw invalid(`agent ${name}: the name is a built-in tool's (${RESERVED_AGENT_NAMES.join(', ')}); choose another`, { agent: name });
  if (name === 'graph' && kind !== 'graph') throw invalid('agent graph: the built-in graph tool\'s agent must have kind graph', { agent: name });
  if (p.url !== undefined && p.host !== undefined) throw invalid(`agent ${name}: give url or host, not both (they mean the same)`, { agent: name });
  const url = p.url ?? p.host;
  if (kind === 'http' && url === undefined) throw invalid(`agent ${name}: an http agent needs its API's base URL (url or host)`, { agent: name });
  if ((p.username === undefined) !== (p.password === undefined)) throw invalid(`agent ${name}: username and password come together; one is missing`, { agent: name });
  if ((p.publicKey === undefined) !== (p.secretKey === undefined)) throw invalid(`agent ${name}: public_key and secret_key come together; one is missing`, { agent: name });
  const kinds = [p.token !== undefined && 'token', p.username !== undefined && 'username/password', p.publicKey !== undefined && 'public_key/secret_key'].filter(Boolean);
  if (kinds.length > 1) throw invalid(`agent ${name}: give one credential, not ${kinds.join(' and ')}`, { agent: name });
  const pattern = p.pattern ?? (kind === 'graph' ? 'full-delegation' : 'identity-passthrough');
  checkPattern(name, pattern, p);
  return Object.freeze({
    name,
    kind,
    url,
    token: p.token,
    username: p.username,
    password: p.password,
    publicKey: p.publicKey,
    secretKey: p.secretKey,
    apiKeyStyle: p.apiKeyStyle ?? 'basic',
    publicKeyHeader: p.publicKeyHeader ?? 'x-public-key',
    secretKeyHeader: p.secretKeyHeader ?? 'x-secret-key',
    sslVerify: p.sslVerify ?? true,
    audience: p.audience,
    timeoutSecs: p.timeoutSecs ?? 30,
    description: p.description,
    pattern,
    scopes: p.scopes,
    consent: p.consent,
    providerConfigUrl: p.providerConfigUrl,
    authorizationEndpoint: p.authorizationEndpoint,
    tokenEndpoint: p.tokenEndpoint,
    clientId: p.clientId,
    clientSecret: p.clientSecret,
    clientSecretRef: p.clientSecretRef,
  });
}

/** An agent with nothing configured but its name (the built-in graph agent when config names none). */
export function unconfiguredAgent(name: string): AgentSettings {
  return checkAgent(name, {
    kind: undefined, url: undefined, host: undefined, token: undefined, username: undefined, password: undefined, publicKey: undefined, secretKey: undefined,
    apiKeyStyle: undefined, publicKeyHeader: undefined, secretKeyHeader: undefined, sslVerify: undefined, audience: undefined, timeoutSecs: undefined, description: undefined,
    pattern: undefined, scopes: undefined, consent: undefined, providerConfigUrl: undefined, authorizationEndpoint: undefined, tokenEndpoint: undefined,
    clientId: undefined, clientSecret: undefined, clientSecretRef: undefined,
  });
}

/** The agents for `toolgraph config`: every field that is set, secrets as [REDACTED]. */
export function describeAgents(agents: AgentsSettings): string {
  if (Object.keys(agents).length === 0) return '(none)';
  const shown = Object.fromEntries(Object.values(agents).map((a) => {
    const fields: Record<string, unknown> = { kind: a.kind };
    if (a.url !== undefined) fields['url'] = a.url;
    if (a.token !== undefined) fields['token'] = '[REDACTED]';
    if (a.username !== undefined) fields['username'] = a.username;
    if (a.password !== undefined) fields['password'] = '[REDACTED]';
    if (a.publicKey !== undefined) fields['public_key'] = a.publicKey;
    if (a.secretKey !== undefined) fields['secret_key'] = '[REDACTED]';
    if (a.publicKey !== undefined) fields['api_key_style'] = a.apiKeyStyle;
    if (!a.sslVerify) fields['ssl_verify'] = false;
    if (a.audience !== undefined) fields['audience'] = a.audience;
    if (a.pattern !== (a.kind === 'graph' ? 'full-delegation' : 'identity-passthrough')) fields['pattern'] = a.pattern;
    if (a.scopes !== undefined) fields['scopes'] = a.scopes;
    if (a.consent !== undefined) fields['consent'] = a.consent;
    if (a.providerConfigUrl !== undefined) fields['provider_config_url'] = a.providerConfigUrl;
    if (a.authorizationEndpoint !== undefined) fields['authorization_endpoint'] = a.authorizationEndpoint;
    if (a.tokenEndpoint !== undefined) fields['token_endpoint'] = a.tokenEndpoint;
    if (a.clientId !== undefined) fields['client_id'] = a.clientId;
    if (a.clientSecret !== undefined) fields['client_secret'] = '[REDACTED]';
    if (a.clientSecretRef !== undefined) fields['client_secret_ref'] = a.clientSecretRef;
    return [a.name, fields];
  }));
  return JSON.stringify(shown);
}

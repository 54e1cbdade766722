import { xdgPaths } from './xdg-paths.ts';
import {
  absolutePath, booleanValue, httpUrl, integerIn, listenHost, loopbackAddress, oneOf, postgresUrl, stringValue,
  type ListenAddress, type ValueParser,
} from './value-parsers.ts';

/**
 * One definition per setting: its env var, CLI flag and config.json key (each only where the spec or
 * our design gives one), its default, how a raw value is checked, and whether it is secret.
 * `V` is the resolved type: `T` when there is a default, `T | undefined` when there is none.
 */
export interface SettingDef<T, V extends T | undefined> {
  area: 'general' | 'A' | 'B' | 'C';
  description: string;
  env?: string;
  flag?: string;
  configKey?: string;
  default: V | ((env: NodeJS.ProcessEnv) => V);
  /** How docs show a default computed from the environment (e.g. `$XDG_DATA_HOME/toolgraph`). */
  defaultLabel?: string;
  parser: ValueParser<T>;
  /** `whole`: never printed; `url-password`: only the password part of a URL is hidden. */
  secret?: 'whole' | 'url-password';
}

type Def<T> = Omit<SettingDef<T, T>, 'default'>;

// NoInfer: the parser alone fixes T, so an enum setting keeps its union type instead of widening to string.
function withDefault<T>(def: Def<T> & { default: NoInfer<T> | ((env: NodeJS.ProcessEnv) => NoInfer<T>) }): SettingDef<T, T> {
  return def;
}

function optional<T>(def: Def<T>): SettingDef<T, T | undefined> {
  return { ...def, default: undefined };
}

export const AUTH_TYPES = ['none', 'oidc-proxy', 'oauth-proxy', 'jwt', 'remote'] as const;
export const STORE_AUTH_METHODS = ['auto', 'oidc', 'approle', 'token', 'orchestrator'] as const;
export const PERSISTENCE_KINDS = ['file', 'postgres', 'memory'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const MCP_TRANSPORTS = ['streamable-http', 'stdio'] as const;
export const SERVICE_NAMES = ['graph', 'catalogue', 'tools'] as const;

export const SETTINGS = {
  // General (our design: the spec leaves these "not shown")
  host: withDefault({ area: 'general', description: 'Address the HTTP services bind to', env: 'HOST', flag: '--host', configKey: 'host', default: '127.0.0.1', parser: listenHost() }),
  port: withDefault({ area: 'general', description: 'Port shared by every HTTP service of the process (0 picks a free one)', env: 'PORT', flag: '--port', configKey: 'port', default: 4000, parser: integerIn(0, 65535) }),
  logLevel: withDefault({ area: 'general', description: 'pino log level', env: 'LOG_LEVEL', flag: '--log-level', configKey: 'log_level', default: 'info', parser: oneOf(LOG_LEVELS) }),
  dataDir: withDefault({ area: 'general', description: 'Where the file persistence keeps graphs', env: 'TOOLGRAPH_DATA_DIR', flag: '--data-dir', configKey: 'data_dir', default: (env) => xdgPaths(env).dataDir, defaultLabel: '$XDG_DATA_HOME/toolgraph', parser: absolutePath() }),
  cacheDir: withDefault({ area: 'A', description: 'Content-addressed cache of fetched schemas', env: 'TOOLGRAPH_CACHE_DIR', flag: '--cache-dir', configKey: 'cache_dir', default: (env) => xdgPaths(env).cacheDir, defaultLabel: '$XDG_CACHE_HOME/toolgraph', parser: absolutePath() }),
  persistence: withDefault({ area: 'C', description: 'Graph persistence adapter', env: 'TOOLGRAPH_PERSISTENCE', flag: '--persistence', configKey: 'persistence', default: 'file', parser: oneOf(PERSISTENCE_KINDS) }),
  databaseUrl: optional({ area: 'C', description: 'PostgreSQL URL, for persistence=postgres', env: 'DATABASE_URL', flag: '--database-url', configKey: 'database_url', parser: postgresUrl(), secret: 'url-password' }),
  publicUrl: optional({ area: 'A', description: 'Public base URL in manifest_uri and fragment_uri_template (default: the bound origin)', env: 'TOOLGRAPH_PUBLIC_URL', flag: '--public-url', configKey: 'public_url', parser: httpUrl() }),

  // Area B: transport layer and delegation (names, defaults and keys exactly as the spec gives them)
  authType: withDefault({ area: 'B', description: 'Auth type of the tool-server transport', env: 'AUTH_TYPE', flag: '--auth-type', default: 'none', parser: oneOf(AUTH_TYPES) }),
  transport: withDefault({ area: 'B', description: 'MCP transport', env: 'MCP_TRANSPORT', flag: '--transport', configKey: 'transport', default: 'streamable-http', parser: oneOf(MCP_TRANSPORTS) }),
  oidcConfigUrl: optional({ area: 'B', description: 'OIDC discovery URL (the well-known configuration document)', env: 'OIDC_CONFIG_URL', flag: '--oidc-config-url', configKey: 'oidc_config_url', parser: httpUrl() }),
  oidcClientId: optional({ area: 'B', description: 'OAuth 2.0 client id', env: 'OIDC_CLIENT_ID', flag: '--oidc-client-id', configKey: 'oidc_client_id', parser: stringValue() }),
  oidcClientSecret: optional({ area: 'B', description: 'OAuth 2.0 client secret', env: 'OIDC_CLIENT_SECRET', flag: '--oidc-client-secret', configKey: 'oidc_client_secret', parser: stringValue(), secret: 'whole' }),
  enableDelegation: withDefault({ area: 'B', description: 'Enables RFC 8693 token exchange for downstream APIs', env: 'ENABLE_DELEGATION', flag: '--enable-delegation', configKey: 'enable_delegation', default: false, parser: booleanValue() }),
  audience: optional({ area: 'B', description: 'Target audience of the delegated token', env: 'AUDIENCE', configKey: 'delegation_audience', parser: stringValue() }),
  delegatedScopes: withDefault({ area: 'B', description: 'Space-separated scopes of the delegated token', env: 'DELEGATED_SCOPES', configKey: 'delegated_scopes', default: 'api', parser: stringValue('a space-separated list of scopes') }),

  // Area B: secrets store
  secretsBackend: withDefault({ area: 'B', description: 'Secrets backend', env: 'SECRETS_BACKEND', flag: '--backend', default: 'inmemory', parser: oneOf(['inmemory', 'store'] as const) }),
  storeUrl: withDefault({ area: 'B', description: 'Secrets store URL', env: 'SECRETS_STORE_URL', configKey: 'store_url', default: 'http://127.0.0.1:8200', parser: httpUrl() }),
  storeMount: withDefault({ area: 'B', description: 'Versioned key-value mount point', env: 'SECRETS_STORE_MOUNT', configKey: 'store_mount', default: 'secret', parser: stringValue() }),
  storeAuthMethod: withDefault({ area: 'B', description: 'Secrets-store auth method', env: 'STORE_AUTH_METHOD', flag: '--store-auth', configKey: 'store_auth_method', default: 'auto', parser: oneOf(STORE_AUTH_METHODS) }),
  storeAuthMount: withDefault({ area: 'B', description: 'Auth-method mount path; custom mounts are supported', env: 'STORE_AUTH_MOUNT', flag: '--store-auth-mount', configKey: 'store_auth_mount', default: 'jwt', parser: stringValue() }),
  storeRole: withDefault({ area: 'B', description: 'Role name (OIDC or orchestrator auth)', env: 'STORE_ROLE', flag: '--store-role', configKey: 'store_role', default: 'default', parser: stringValue() }),
  storeToken: optional({ area: 'B', description: 'Static store token (token auth)', env: 'STORE_TOKEN', parser: stringValue(), secret: 'whole' }),
  storePathPrefix: optional({ area: 'B', description: 'Path prefix within the mount', env: 'STORE_PATH_PREFIX', flag: '--store-path-prefix', configKey: 'store_path_prefix', parser: stringValue() }),
  storeRoleId: optional({ area: 'B', description: 'AppRole role_id', env: 'STORE_ROLE_ID', parser: stringValue() }),
  storeSecretId: optional({ area: 'B', description: 'AppRole secret_id', env: 'STORE_SECRET_ID', parser: stringValue(), secret: 'whole' }),
  storeOrchSaTokenPath: withDefault({ area: 'B', description: 'Orchestrator service-account token path', env: 'STORE_ORCH_SA_TOKEN_PATH', default: '/var/run/secrets/kubernetes.io/serviceaccount/token', parser: absolutePath() }),

  // Area C: subscription carrier
  graphqlAddr: optional<ListenAddress>({ area: 'C', description: 'SSE subscription carrier address (loopback only; disabled unless set)', env: 'SERVICE_GRAPHQL_ADDR', flag: '--graphql-addr', parser: loopbackAddress() }),
  graphqlMaxConnections: withDefault({ area: 'C', description: 'Carrier connections, process-wide across handshakes and SSE sessions', env: 'SERVICE_GRAPHQL_MAX_CONNECTIONS', flag: '--graphql-max-connections', default: 128, parser: integerIn(1, 10000) }),
  graphqlMaxSessionSecs: withDefault({ area: 'C', description: 'Maximum carrier session lifetime in seconds', env: 'SERVICE_GRAPHQL_MAX_SESSION_SECS', flag: '--graphql-max-session-secs', default: 300, parser: integerIn(1, 3600) }),
};

export type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;
export type ResolvedValues = {
  [K in SettingName]: Settings[K] extends SettingDef<infer _T, infer V> ? V : never;
};

import { describeAgents, resolveAgents, type AgentsSettings } from './agent-settings.ts';
import { join } from 'node:path';
import { xdgPaths } from './xdg-paths.ts';
import {
  absolutePath, booleanValue, DEFAULT_METRICS_ADDRESS, httpUrl, integerIn, jwksLocation, listenHost, loopbackAddress, oneOf, postgresUrl, sqlName, stringValue,
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
  /**
   * A setting with its own resolution rule instead of one env var, flag and key (the agents: one
   * value per agent and field, each from flag, env or config.json). Returns secret values for the
   * log scrubber.
   */
  resolve?: (inputs: { flag: unknown; env: NodeJS.ProcessEnv; config: unknown; configPath: string }) => { value: T; source: 'flag' | 'env' | 'config' | 'default'; secrets: readonly string[] };
  /** How `toolgraph config` shows the value, secrets redacted (settings whose value is not a scalar). */
  display?: (value: T) => string;
  /** The flag may be given more than once; its values arrive as a list. */
  repeatable?: boolean;
  /** How docs name the env vars of a setting with its own resolution rule. */
  envLabel?: string;
}

type Def<T> = Omit<SettingDef<T, T>, 'default'>;

// NoInfer: the parser alone fixes T, so an enum setting keeps its union type instead of widening to string.
function withDefault<T>(def: Def<T> & { default: NoInfer<T> | ((env: NodeJS.ProcessEnv) => NoInfer<T>) }): SettingDef<T, T> {
  return def;
}

function optional<T>(def: Def<T>): SettingDef<T, T | undefined> {
  return { ...def, default: undefined };
}

const AUTH_TYPES = ['none', 'oidc-proxy', 'oauth-proxy', 'jwt', 'remote'] as const;
const STORE_AUTH_METHODS = ['auto', 'oidc', 'approle', 'token', 'orchestrator'] as const;
const PERSISTENCE_KINDS = ['file', 'postgres', 'memory'] as const;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const MCP_TRANSPORTS = ['streamable-http', 'stdio'] as const;

export const SETTINGS = {
  // General (our design: the spec leaves these "not shown")
  host: withDefault({ area: 'general', description: 'Address the HTTP services bind to', env: 'HOST', flag: '--host', configKey: 'host', default: '127.0.0.1', parser: listenHost() }),
  port: withDefault({ area: 'general', description: 'Port shared by every HTTP service of the process (0 picks a free one)', env: 'PORT', flag: '--port', configKey: 'port', default: 4000, parser: integerIn(0, 65535) }),
  logLevel: withDefault({ area: 'general', description: 'pino log level', env: 'LOG_LEVEL', flag: '--log-level', configKey: 'log_level', default: 'info', parser: oneOf(LOG_LEVELS) }),
  shutdownGraceSecs: withDefault({ area: 'general', description: 'On SIGTERM/SIGINT, seconds in-flight requests get to finish before their connections are cut', env: 'TOOLGRAPH_SHUTDOWN_GRACE_SECS', flag: '--shutdown-grace-secs', configKey: 'shutdown_grace_secs', default: 10, parser: integerIn(0, 3600) }),
  maxConnections: withDefault({ area: 'general', description: 'Connections the main port serves at once, idle ones included; past it a connection is answered only on /healthz and /livez (anything else: 503 TG_TOO_MANY_CONNECTIONS), see README "Connections and overload"', env: 'TOOLGRAPH_MAX_CONNECTIONS', flag: '--max-connections', configKey: 'max_connections', default: 1024, parser: integerIn(1, 100000) }),
  requestHeadTimeoutMs: withDefault({ area: 'general', description: 'Milliseconds a new connection has to send its whole request head, first byte included, on the main port and the carrier (a later request on a kept-alive connection: from its first byte); then it is closed', env: 'TOOLGRAPH_REQUEST_HEAD_TIMEOUT_MS', flag: '--request-head-timeout-ms', configKey: 'request_head_timeout_ms', default: 10_000, parser: integerIn(10, 600_000) }),
  keepAliveTimeoutMs: withDefault({ area: 'general', description: 'Milliseconds an idle kept-alive connection of the main port stays open after its last response (node:http adds one second of grace)', env: 'TOOLGRAPH_KEEP_ALIVE_TIMEOUT_MS', flag: '--keep-alive-timeout-ms', configKey: 'keep_alive_timeout_ms', default: 5_000, parser: integerIn(1, 600_000) }),
  overloadHeapPercent: withDefault({ area: 'general', description: 'Percent of the V8 heap limit in use at which the process sheds load: new requests get 503 TG_OVERLOADED and running queries stop at their next budget check (100 turns this check off)', env: 'TOOLGRAPH_OVERLOAD_HEAP_PERCENT', flag: '--overload-heap-percent', configKey: 'overload_heap_percent', default: 90, parser: integerIn(10, 100) }),
  overloadEventLoopDelayMs: withDefault({ area: 'general', description: 'Median event-loop delay, in milliseconds over a quarter-second reading, on two readings in a row (one late reading is a stall already over), at which the process sheds load as for the heap', env: 'TOOLGRAPH_OVERLOAD_EVENT_LOOP_DELAY_MS', flag: '--overload-event-loop-delay-ms', configKey: 'overload_event_loop_delay_ms', default: 1000, parser: integerIn(10, 600_000) }),
  overloadRssBytes: optional({ area: 'general', description: 'Resident set size, in bytes, at which the process sheds load as for the heap (it counts what the heap percent misses: buffers, request bodies, native memory), while V8 counts at least half of it live (so memory the allocator keeps after a burst holds nothing back). Unset: the smaller of 90% of the memory the process may use (its cgroup limit, else the machine\'s) and 1.5 times the V8 heap limit', env: 'TOOLGRAPH_OVERLOAD_RSS_BYTES', flag: '--overload-rss-bytes', configKey: 'overload_rss_bytes', parser: integerIn(64 * 1024 * 1024, 2 ** 50) }),
  bodyMemoryBytes: withDefault({ area: 'general', description: 'Bytes the request bodies being received may hold at once, across every connection and route of the process; past it a new body is refused with 503 TG_BODY_MEMORY_FULL and Retry-After (at least 4 MiB, the largest body a route takes: an MCP message), see README "Connections and overload"', env: 'TOOLGRAPH_BODY_MEMORY_BYTES', flag: '--body-memory-bytes', configKey: 'body_memory_bytes', default: 256 * 1024 * 1024, parser: integerIn(4 * 1024 * 1024, 2 ** 50) }),
  bodyTimeoutMs: withDefault({ area: 'general', description: 'Milliseconds a request body has to arrive in full once its route starts reading it; past it the request is answered 408 TG_BODY_TIMEOUT and its connection closed', env: 'TOOLGRAPH_BODY_TIMEOUT_MS', flag: '--body-timeout-ms', configKey: 'body_timeout_ms', default: 30_000, parser: integerIn(100, 600_000) }),
  metrics: withDefault({ area: 'general', description: 'Serve Prometheus metrics at /metrics (kg:admin under token auth) and record them; false serves none and records nothing (README "Metrics")', env: 'TOOLGRAPH_METRICS', flag: '--metrics', configKey: 'metrics', default: true, parser: booleanValue() }),
  metricsListen: optional<ListenAddress>({ area: 'general', description: 'Also serve GET /metrics, with no token, on this loopback address of its own (for a local Prometheus agent); off unless set', env: 'TOOLGRAPH_METRICS_LISTEN', flag: '--metrics-listen', configKey: 'metrics_listen', parser: loopbackAddress(DEFAULT_METRICS_ADDRESS) }),
  metricsGraphLabels: withDefault({ area: 'general', description: 'Label the per-graph engine gauges with the graph\'s name; off, they are sums over every graph and no metric names a graph (README "Metrics")', env: 'TOOLGRAPH_METRICS_GRAPH_LABELS', flag: '--metrics-graph-labels', configKey: 'metrics_graph_labels', default: false, parser: booleanValue() }),
  dataDir: withDefault({ area: 'general', description: 'Where the file persistence keeps graphs', env: 'TOOLGRAPH_DATA_DIR', flag: '--data-dir', configKey: 'data_dir', default: (env) => xdgPaths(env).dataDir, defaultLabel: '$XDG_DATA_HOME/toolgraph', parser: absolutePath() }),
  cacheDir: withDefault({ area: 'A', description: 'Content-addressed cache of fetched schemas', env: 'TOOLGRAPH_CACHE_DIR', flag: '--cache-dir', configKey: 'cache_dir', default: (env) => xdgPaths(env).cacheDir, defaultLabel: '$XDG_CACHE_HOME/toolgraph', parser: absolutePath() }),
  persistence: withDefault({ area: 'C', description: 'Graph persistence adapter', env: 'TOOLGRAPH_PERSISTENCE', flag: '--persistence', configKey: 'persistence', default: 'file', parser: oneOf(PERSISTENCE_KINDS) }),
  acceptDataLoss: withDefault({ area: 'C', description: 'Start even when the file graph log has lost acknowledged records (start-up otherwise refuses with TG_STORAGE_DATA_LOST): keep its intact part, move the rest into lost-<time>/ beside it and log what was lost (docs/persistence.md#lost-acknowledged-records). Meant for one start; no config key', env: 'TOOLGRAPH_ACCEPT_DATA_LOSS', flag: '--accept-data-loss', default: false, parser: booleanValue() }),
  databaseUrl: optional({ area: 'C', description: 'PostgreSQL URL, for persistence=postgres', env: 'DATABASE_URL', flag: '--database-url', configKey: 'database_url', parser: postgresUrl(), secret: 'url-password' }),
  databaseSchema: withDefault({ area: 'C', description: 'PostgreSQL schema of the graph tables and the shared state table (replicas of one deployment share it; deployments sharing a database each take their own)', env: 'TOOLGRAPH_DATABASE_SCHEMA', flag: '--database-schema', configKey: 'database_schema', default: 'public', parser: sqlName() }),
  publicUrl: optional({ area: 'A', description: 'Public base URL in manifest_uri and fragment_uri_template (default: the bound origin)', env: 'TOOLGRAPH_PUBLIC_URL', flag: '--public-url', configKey: 'public_url', parser: httpUrl() }),

  // Area C: the execution budget of every query (our design: the spec says only that limits exist and are configurable)
  queryMaxRows: withDefault({ area: 'C', description: 'Most rows one query may produce across all its steps (every scan hit and expansion, nested patterns included)', env: 'TOOLGRAPH_QUERY_MAX_ROWS', flag: '--query-max-rows', configKey: 'query_max_rows', default: 1_000_000, parser: integerIn(1, 1_000_000_000) }),
  queryMaxResultBytes: withDefault({ area: 'C', description: 'Most bytes of one query result (its JSON text, UTF-8)', env: 'TOOLGRAPH_QUERY_MAX_RESULT_BYTES', flag: '--query-max-result-bytes', configKey: 'query_max_result_bytes', default: 16 * 1024 * 1024, parser: integerIn(1024, 256 * 1024 * 1024) }),
  queryTimeoutMs: withDefault({ area: 'C', description: 'Most milliseconds one query may run (a long read delays writes to its graph by at most this)', env: 'TOOLGRAPH_QUERY_TIMEOUT_MS', flag: '--query-timeout-ms', configKey: 'query_timeout_ms', default: 5_000, parser: integerIn(1, 600_000) }),
  queryMaxStallMs: withDefault({ area: 'C', description: 'Most milliseconds one query may run without yielding the event loop (one step over large values that cannot pause is stopped past it, so other requests are served)', env: 'TOOLGRAPH_QUERY_MAX_STALL_MS', flag: '--query-max-stall-ms', configKey: 'query_max_stall_ms', default: 150, parser: integerIn(20, 600_000) }),

  // Area C: the caps on one write batch (a Cypher statement, a GraphQL mutation operation, an import batch; our design)
  writeMaxChanges: withDefault({ area: 'C', description: 'Most changes one write batch may make: nodes created or deleted, edges added or removed, properties set or removed (a Cypher statement, a GraphQL mutation operation; imports cut their batches to fit)', env: 'TOOLGRAPH_WRITE_MAX_CHANGES', flag: '--write-max-changes', configKey: 'write_max_changes', default: 20_000, parser: integerIn(100, 100_000_000) }),
  writeMaxBatchBytes: withDefault({ area: 'C', description: 'Most bytes of one write batch\'s log record (its mutations\' JSON, estimated as they are produced)', env: 'TOOLGRAPH_WRITE_MAX_BATCH_BYTES', flag: '--write-max-batch-bytes', configKey: 'write_max_batch_bytes', default: 16 * 1024 * 1024, parser: integerIn(65_536, 1024 * 1024 * 1024) }),

  // Area C: how far a graph's schema (its catalogue of labels, properties and edge types) may grow; a write past a cap is refused, stored graphs always load
  graphMaxLabels: withDefault({ area: 'C', description: 'Most labels one graph may have', env: 'TOOLGRAPH_GRAPH_MAX_LABELS', flag: '--graph-max-labels', configKey: 'graph_max_labels', default: 1000, parser: integerIn(1, 1_000_000) }),
  graphMaxEdgeTypes: withDefault({ area: 'C', description: 'Most edge types one graph may have', env: 'TOOLGRAPH_GRAPH_MAX_EDGE_TYPES', flag: '--graph-max-edge-types', configKey: 'graph_max_edge_types', default: 1000, parser: integerIn(1, 1_000_000) }),
  graphMaxPropertiesPerLabel: withDefault({ area: 'C', description: 'Most property names one label may have', env: 'TOOLGRAPH_GRAPH_MAX_PROPERTIES_PER_LABEL', flag: '--graph-max-properties-per-label', configKey: 'graph_max_properties_per_label', default: 1000, parser: integerIn(1, 1_000_000) }),
  graphMaxSchemaFields: withDefault({ area: 'C', description: 'Largest schema of one graph: its properties (of all labels) plus its edge-type label pairs (an edge type seen from one label to another), what a schema rebuild costs', env: 'TOOLGRAPH_GRAPH_MAX_SCHEMA_FIELDS', flag: '--graph-max-schema-fields', configKey: 'graph_max_schema_fields', default: 10_000, parser: integerIn(1, 10_000_000) }),
  graphMaxNameLength: withDefault({ area: 'C', description: 'Longest new label, property name or edge type, in characters', env: 'TOOLGRAPH_GRAPH_MAX_NAME_LENGTH', flag: '--graph-max-name-length', configKey: 'graph_max_name_length', default: 128, parser: integerIn(1, 1024) }),

  // Area B: transport layer and delegation (names, defaults and keys exactly as the spec gives them)
  authType: withDefault({ area: 'B', description: 'Auth type of every HTTP service of the process (the spec names it for the tool-server transport)', env: 'AUTH_TYPE', flag: '--auth-type', default: 'none', parser: oneOf(AUTH_TYPES) }),
  transport: withDefault({ area: 'B', description: 'MCP transport', env: 'MCP_TRANSPORT', flag: '--transport', configKey: 'transport', default: 'streamable-http', parser: oneOf(MCP_TRANSPORTS) }),
  consentLinkTtlSecs: withDefault({ area: 'B', description: 'How long a consent link a three-legged agent answers a caller with stays good, from the tool call to the provider\'s redirect back (seconds); each link is good once', env: 'TOOLGRAPH_CONSENT_LINK_TTL_SECS', flag: '--consent-link-ttl-secs', configKey: 'consent_link_ttl_secs', default: 600, parser: integerIn(1, 3600) }),
  oauthMaxClients: withDefault({ area: 'B', description: 'Most OAuth clients the sign-in proxy (oauth-proxy, oidc-proxy) keeps registered at once (each for 30 days); a registration past it is refused (too_many_requests)', env: 'TOOLGRAPH_OAUTH_MAX_CLIENTS', flag: '--oauth-max-clients', configKey: 'oauth_max_clients', default: 10_000, parser: integerIn(1, 10_000_000) }),
  cimdAllowPrivateAddresses: withDefault({ area: 'B', description: 'Let the sign-in proxy fetch a client ID metadata document (a client_id that is an https URL) from a private, loopback, link-local, unique-local, CGNAT, multicast or unspecified address; for tests only (docs/tools.md#client-id-metadata-documents)', env: 'TOOLGRAPH_CIMD_ALLOW_PRIVATE_ADDRESSES', flag: '--cimd-allow-private-addresses', configKey: 'cimd_allow_private_addresses', default: false, parser: booleanValue() }),
  cimdFetchTimeoutMs: withDefault({ area: 'B', description: 'Milliseconds the sign-in proxy gives one fetch of a client ID metadata document, from the name lookup to its last byte; past it the client is refused (invalid_client)', env: 'TOOLGRAPH_CIMD_FETCH_TIMEOUT_MS', flag: '--cimd-fetch-timeout-ms', configKey: 'cimd_fetch_timeout_ms', default: 5_000, parser: integerIn(100, 60_000) }),
  cimdMaxBytes: withDefault({ area: 'B', description: 'Largest client ID metadata document the sign-in proxy reads, in bytes; a larger one is refused (invalid_client)', env: 'TOOLGRAPH_CIMD_MAX_BYTES', flag: '--cimd-max-bytes', configKey: 'cimd_max_bytes', default: 5_120, parser: integerIn(1024, 1_048_576) }),
  cimdCaFile: optional({ area: 'B', description: 'PEM file of CA certificates the sign-in proxy trusts, besides Node\'s own, when it fetches client ID metadata documents (a private CA; read at start-up)', env: 'TOOLGRAPH_CIMD_CA_FILE', flag: '--cimd-ca-file', configKey: 'cimd_ca_file', parser: absolutePath() }),
  mcpMaxSessions: withDefault({ area: 'B', description: 'Most MCP sessions (Streamable HTTP) the tool server keeps; a caller is refused past it unless it has sessions of its own to close', env: 'TOOLGRAPH_MCP_MAX_SESSIONS', flag: '--mcp-max-sessions', configKey: 'mcp_max_sessions', default: 1000, parser: integerIn(1, 100000) }),
  mcpOperationTools: withDefault({ area: 'B', description: 'Which catalogue operations /mcp also lists as tools of their own, each with its SchemaManifest\'s schemas and digest: persisted (each trusted GraphQL document of the demo graph), catalogue (those and every action of the built-in tools), off', env: 'TOOLGRAPH_MCP_OPERATION_TOOLS', flag: '--mcp-operation-tools', configKey: 'mcp_operation_tools', default: 'persisted', parser: oneOf(['persisted', 'catalogue', 'off'] as const) }),
  mcpOperationMutations: withDefault({ area: 'B', description: 'List trusted GraphQL documents that are mutations as operation tools too (each call then needs a write scope)', env: 'TOOLGRAPH_MCP_OPERATION_MUTATIONS', flag: '--mcp-operation-mutations', configKey: 'mcp_operation_mutations', default: false, parser: booleanValue() }),
  mcpMaxSubscriptions: withDefault({ area: 'B', description: 'Most MCP 2026-07-28 subscriptions/listen streams (SSE) one tool server process keeps open at once; past it a new one is refused in the protocol (-32603, Subscription limit reached)', env: 'TOOLGRAPH_MCP_MAX_SUBSCRIPTIONS', flag: '--mcp-max-subscriptions', configKey: 'mcp_max_subscriptions', default: 1024, parser: integerIn(1, 100000) }),
  mcpMaxSessionsPerSubject: withDefault({ area: 'B', description: 'Most MCP sessions one caller (token issuer and subject) keeps, and never more than half of TOOLGRAPH_MCP_MAX_SESSIONS (rounded up), so one caller alone never fills the server; past it its own least recently used session closes', env: 'TOOLGRAPH_MCP_MAX_SESSIONS_PER_SUBJECT', flag: '--mcp-max-sessions-per-subject', configKey: 'mcp_max_sessions_per_subject', default: 16, parser: integerIn(1, 100000) }),
  idpRetryMaxMs: withDefault({ area: 'B', description: 'While the IdP cannot be reached (discovery at OIDC_CONFIG_URL, its key set), the process serves anyway (requests that need a token get 503 TG_NOT_READY) and retries with a delay doubling from half a second up to this many milliseconds', env: 'TOOLGRAPH_IDP_RETRY_MAX_MS', flag: '--idp-retry-max-ms', configKey: 'idp_retry_max_ms', default: 10_000, parser: integerIn(100, 600_000) }),
  oidcConfigUrl: optional({ area: 'B', description: 'OIDC discovery URL (the well-known configuration document)', env: 'OIDC_CONFIG_URL', flag: '--oidc-config-url', configKey: 'oidc_config_url', parser: httpUrl() }),
  tokenAudience: optional({ area: 'B', description: 'Audience (aud) a bearer token must carry, RFC 8707 (default: TOOLGRAPH_PUBLIC_URL, else the bound origin)', env: 'TOKEN_AUDIENCE', flag: '--token-audience', configKey: 'token_audience', parser: stringValue('a non-empty string, compared exactly with aud') }),
  oauthAuthorizationEndpoint: optional({ area: 'B', description: 'Authorization endpoint of the IdP behind the oidc-proxy or oauth-proxy (default: from OIDC_CONFIG_URL discovery)', env: 'OAUTH_AUTHORIZATION_ENDPOINT', flag: '--oauth-authorization-endpoint', configKey: 'oauth_authorization_endpoint', parser: httpUrl() }),
  oauthTokenEndpoint: optional({ area: 'B', description: 'Token endpoint of the IdP behind the oidc-proxy or oauth-proxy (default: from OIDC_CONFIG_URL discovery)', env: 'OAUTH_TOKEN_ENDPOINT', flag: '--oauth-token-endpoint', configKey: 'oauth_token_endpoint', parser: httpUrl() }),
  oauthIssuer: optional({ area: 'B', description: 'Issuer (iss) of the IdP\'s tokens, for oauth-proxy without OIDC_CONFIG_URL (with OAUTH_JWKS_URI)', env: 'OAUTH_ISSUER', flag: '--oauth-issuer', configKey: 'oauth_issuer', parser: stringValue() }),
  oauthJwksUri: optional({ area: 'B', description: 'Key set (JWKS) URL of the IdP, for oauth-proxy without OIDC_CONFIG_URL (with OAUTH_ISSUER)', env: 'OAUTH_JWKS_URI', flag: '--oauth-jwks-uri', configKey: 'oauth_jwks_uri', parser: httpUrl() }),
  oidcClientId: optional({ area: 'B', description: 'OAuth 2.0 client id', env: 'OIDC_CLIENT_ID', flag: '--oidc-client-id', configKey: 'oidc_client_id', parser: stringValue() }),
  oidcClientSecret: optional({ area: 'B', description: 'OAuth 2.0 client secret', env: 'OIDC_CLIENT_SECRET', flag: '--oidc-client-secret', configKey: 'oidc_client_secret', parser: stringValue(), secret: 'whole' }),
  enableDelegation: withDefault({ area: 'B', description: 'Enables RFC 8693 token exchange for downstream APIs', env: 'ENABLE_DELEGATION', flag: '--enable-delegation', configKey: 'enable_delegation', default: false, parser: booleanValue() }),
  audience: optional({ area: 'B', description: 'Target audience of the delegated token', env: 'AUDIENCE', configKey: 'delegation_audience', parser: stringValue() }),
  agents: withDefault<AgentsSettings>({
    area: 'B', description: 'Downstream agents of the tool server and their credentials: base URL, token or username/password, SSL verify, or a public/secret key pair (docs/tools.md#agents-and-their-credentials; secret fields redacted, never taken as flags)',
    envLabel: 'TOOLGRAPH_AGENT_<NAME>_<FIELD>', flag: '--agent', configKey: 'agents', default: Object.freeze({}), defaultLabel: 'none', repeatable: true,
    parser: { expected: 'per agent: kind, url or host, token, username and password, public_key and secret_key, ssl_verify, audience (docs/tools.md#agents-and-their-credentials)', parse: () => Object.freeze({}) },
    resolve: ({ flag, env, config, configPath }) => {
      const resolved = resolveAgents({ flags: Array.isArray(flag) ? flag.map(String) : flag === undefined ? [] : [String(flag)], env, config, configPath });
      return { value: resolved.agents, source: resolved.source, secrets: resolved.secrets };
    },
    display: describeAgents,
  }),
  delegatedScopes: withDefault({ area: 'B', description: 'Space-separated scopes of the delegated token', env: 'DELEGATED_SCOPES', configKey: 'delegated_scopes', default: 'api', parser: stringValue('a space-separated list of scopes') }),
  stateDir: withDefault({ area: 'B', description: 'Where signed-in token sets (three-legged and device flows) are kept, one file per agent, mode 0600', env: 'TOOLGRAPH_STATE_DIR', flag: '--state-dir', configKey: 'state_dir', default: (env) => xdgPaths(env).stateDir, defaultLabel: '$XDG_STATE_HOME/toolgraph', parser: absolutePath() }),
  auditLog: withDefault({ area: 'B', description: 'JSON-lines audit log of identity-passthrough calls (who called which API-key agent), written when delegation is enabled', env: 'TOOLGRAPH_AUDIT_LOG', flag: '--audit-log', configKey: 'audit_log', default: (env) => join(xdgPaths(env).stateDir, 'audit.jsonl'), defaultLabel: '$XDG_STATE_HOME/toolgraph/audit.jsonl', parser: absolutePath() }),

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

  // Area C: the GraphQL endpoint /graphql/{graph} and the GraphQl method of /dispatch (our names; the spec leaves the numbers open)
  graphqlIntrospection: withDefault({ area: 'C', description: 'GraphQL introspection (__schema, __type) and GraphiQL; _service { sdl } stays reachable for routers when off', env: 'TOOLGRAPH_GRAPHQL_INTROSPECTION', flag: '--graphql-introspection', configKey: 'graphql_introspection', default: true, parser: booleanValue() }),
  graphqlPersistedOnly: withDefault({ area: 'C', description: 'Run only trusted documents (by id, or their exact text); refuse any other GraphQL document', env: 'TOOLGRAPH_GRAPHQL_PERSISTED_ONLY', flag: '--graphql-persisted-only', configKey: 'graphql_persisted_only', default: false, parser: booleanValue() }),
  graphqlPersistedDocuments: optional({ area: 'C', description: 'Trusted documents, a JSON object of sha256 → document text (default: generated/graphql/client/persisted-documents.json)', env: 'TOOLGRAPH_GRAPHQL_PERSISTED_DOCUMENTS', flag: '--graphql-persisted-documents', configKey: 'graphql_persisted_documents', parser: absolutePath() }),
  graphqlApqMaxEntries: withDefault({ area: 'C', description: 'Automatic persisted queries kept (least recently used dropped first)', env: 'TOOLGRAPH_GRAPHQL_APQ_MAX_ENTRIES', flag: '--graphql-apq-max-entries', configKey: 'graphql_apq_max_entries', default: 1000, parser: integerIn(1, 1000000) }),
  graphqlMaxQueryBytes: withDefault({ area: 'C', description: 'Largest GraphQL document text, in UTF-8 bytes', env: 'TOOLGRAPH_GRAPHQL_MAX_QUERY_BYTES', flag: '--graphql-max-query-bytes', configKey: 'graphql_max_query_bytes', default: 32768, parser: integerIn(16, 1048576) }),
  graphqlMaxDepth: withDefault({ area: 'C', description: 'Deepest field nesting of a GraphQL operation (fragments flattened)', env: 'TOOLGRAPH_GRAPHQL_MAX_DEPTH', flag: '--graphql-max-depth', configKey: 'graphql_max_depth', default: 10, parser: integerIn(1, 1000) }),
  graphqlMaxCost: withDefault({ area: 'C', description: 'Highest GraphQL operation cost (graphql-armor\'s weights: object 2, scalar 1, depth factor 1.5; every list times its page as sent, variables included: first/limit/last, else the list limit at the root and the default page below it, _entities per representation)', env: 'TOOLGRAPH_GRAPHQL_MAX_COST', flag: '--graphql-max-cost', configKey: 'graphql_max_cost', default: 10_000_000, parser: integerIn(1, 100000000) }),
  graphqlMaxAliases: withDefault({ area: 'C', description: 'Most aliases in one GraphQL operation', env: 'TOOLGRAPH_GRAPHQL_MAX_ALIASES', flag: '--graphql-max-aliases', configKey: 'graphql_max_aliases', default: 15, parser: integerIn(0, 100000) }),
  graphqlMaxDirectives: withDefault({ area: 'C', description: 'Most directives in one GraphQL operation', env: 'TOOLGRAPH_GRAPHQL_MAX_DIRECTIVES', flag: '--graphql-max-directives', configKey: 'graphql_max_directives', default: 50, parser: integerIn(0, 100000) }),
  graphqlMaxTokens: withDefault({ area: 'C', description: 'Most lexical tokens in one GraphQL document', env: 'TOOLGRAPH_GRAPHQL_MAX_TOKENS', flag: '--graphql-max-tokens', configKey: 'graphql_max_tokens', default: 1000, parser: integerIn(1, 10000000) }),
  graphqlMaxFields: withDefault({ area: 'C', description: 'Most fields one GraphQL operation selects, with every fragment spread expanded where it is used', env: 'TOOLGRAPH_GRAPHQL_MAX_FIELDS', flag: '--graphql-max-fields', configKey: 'graphql_max_fields', default: 1000, parser: integerIn(1, 10000000) }),
  graphqlDefaultPage: withDefault({ area: 'C', description: 'What GraphQL cost analysis prices an edge field without first/limit at: the items it is taken to return per parent', env: 'TOOLGRAPH_GRAPHQL_DEFAULT_PAGE', flag: '--graphql-default-page', configKey: 'graphql_default_page', default: 5, parser: integerIn(1, 1000000) }),
  graphqlListLimit: withDefault({ area: 'C', description: 'Most items a GraphQL list field without first/limit (a connection without first/last) may return; more is refused: ask for a page. Cost analysis prices a root list without a page at this', env: 'TOOLGRAPH_GRAPHQL_LIST_LIMIT', flag: '--graphql-list-limit', configKey: 'graphql_list_limit', default: 1000, parser: integerIn(1, 1000000000) }),
  graphqlMaxRepresentations: withDefault({ area: 'C', description: 'Most representations one GraphQL _entities call may carry (each is priced as one row by cost analysis)', env: 'TOOLGRAPH_GRAPHQL_MAX_REPRESENTATIONS', flag: '--graphql-max-representations', configKey: 'graphql_max_representations', default: 1000, parser: integerIn(1, 1000000) }),

  // Area C: subscription carrier
  graphqlAddr: optional<ListenAddress>({ area: 'C', description: 'SSE subscription carrier address (loopback only; disabled unless set)', env: 'SERVICE_GRAPHQL_ADDR', flag: '--graphql-addr', parser: loopbackAddress() }),
  graphqlMaxConnections: withDefault({ area: 'C', description: 'Carrier connections, process-wide across handshakes and SSE sessions', env: 'SERVICE_GRAPHQL_MAX_CONNECTIONS', flag: '--graphql-max-connections', default: 128, parser: integerIn(1, 10000) }),
  graphqlMaxSessionSecs: withDefault({ area: 'C', description: 'Maximum carrier session lifetime in seconds', env: 'SERVICE_GRAPHQL_MAX_SESSION_SECS', flag: '--graphql-max-session-secs', default: 300, parser: integerIn(1, 3600) }),
  carrierMaxWork: withDefault({ area: 'C', description: 'Most work the subscription carrier may do for one commit: the summed complexity (result values) of its running subscriptions, one per subscription text, variables and visibility; a new subscription past it is refused with 503 TG_CARRIER_WORK_LIMIT, running ones go on', env: 'TOOLGRAPH_CARRIER_MAX_WORK', flag: '--carrier-max-work', configKey: 'carrier_max_work', default: 1_000_000, parser: integerIn(1, 1_000_000_000) }),
  graphqlSignerJwks: optional({ area: 'C', description: 'Trusted signer keys of carrier envelopes: a JWKS file or URL (required when the carrier is enabled)', env: 'SERVICE_GRAPHQL_SIGNER_JWKS', flag: '--graphql-signer-jwks', configKey: 'graphql_signer_jwks', parser: jwksLocation() }),
};

type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;
export type ResolvedValues = {
  [K in SettingName]: Settings[K] extends SettingDef<infer _T, infer V> ? V : never;
};

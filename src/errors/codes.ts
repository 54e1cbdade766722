/**
 * Every error code toolgraph returns, with its HTTP status and a one-line meaning.
 * The README's "Error codes" table lists each of them; `test/errors/codes.test.ts` fails when one is missing.
 * Codes are stable: never rename one, add a new one instead.
 * `reservedFor` names the feature (a row of src/serve/features-not-in-build.ts) that will raise a code
 * this build never raises; the test checks both ways, so building the feature means deleting the mark.
 */
export interface ErrorCodeInfo {
  readonly status: number;
  readonly meaning: string;
  readonly reservedFor?: string;
}

export const ERROR_CODES = {
  // General
  TG_BAD_REQUEST: { status: 400, meaning: 'The request is malformed: a parameter or body field is missing or has the wrong shape.' },
  TG_NOT_FOUND: { status: 404, meaning: 'No route or resource exists at this path.' },
  TG_METHOD_NOT_ALLOWED: { status: 405, meaning: 'The route exists but does not accept this HTTP method.' },
  TG_UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: 'The request body has a media type the route does not accept (e.g. not application/json).' },
  TG_PAYLOAD_TOO_LARGE: { status: 413, meaning: 'The request body is larger than the route accepts.' },
  TG_BODY_TIMEOUT: { status: 408, meaning: 'The request body did not arrive in full within TOOLGRAPH_BODY_TIMEOUT_MS of the route starting to read it; the connection is closed (details: received and declared bytes).' },
  TG_BODY_MEMORY_FULL: { status: 503, meaning: 'The request bodies being received across all connections already hold TOOLGRAPH_BODY_MEMORY_BYTES; a new body is refused until some finish or time out; retry after the Retry-After seconds.' },
  TG_RATE_LIMITED: { status: 429, meaning: 'Too many requests or connections; retry later.' },
  TG_INTERNAL: { status: 500, meaning: 'An unexpected server fault; the log has the details.' },
  TG_NOT_READY: { status: 503, meaning: 'The process is still starting (recovering its graphs, or waiting for the identity provider before it can verify tokens) or is shutting down; retry after the Retry-After seconds.' },
  TG_OVERLOADED: { status: 503, meaning: 'The process is near its heap limit or its event loop is running late: new work is refused and running queries are stopped until it recovers; retry after the Retry-After seconds (details name the reading, its threshold and setting).' },
  TG_CONFIG_INVALID: { status: 500, meaning: 'A setting has an invalid value; start-up stops and names the setting, its source, what was expected and what came.' },
  TG_FILE_UNREADABLE: { status: 400, meaning: 'A file named on the command line (e.g. a JSON Lines import) is missing, unreadable, not a regular file, or changed while being read; the message names it.' },

  // Area A: schema manifest and catalogue
  TG_MANIFEST_INVALID: { status: 422, meaning: 'A SchemaManifest breaks its JSON Schema; the message names the JSON pointer, what was expected and what came.' },
  TG_OPERATION_NAME_INVALID: { status: 500, meaning: 'An operation name does not fit ^[A-Za-z][A-Za-z0-9_]*$ or is longer than 512 characters (reported at build time).' },
  TG_DIGEST_MALFORMED: { status: 400, meaning: 'A schema digest is not 64 lowercase hex characters.' },
  TG_FRAGMENT_INDEX_INVALID: { status: 400, meaning: 'A fragment index is not a non-negative integer.' },
  TG_SCHEMA_NOT_FOUND: { status: 404, meaning: 'No manifest has this schema digest, operation or alias.' },
  TG_FRAGMENT_NOT_FOUND: { status: 404, meaning: 'The fragment index is past the last fragment of the schema.' },
  TG_SCHEMA_TOO_LARGE: { status: 422, meaning: 'A manifest announces more than 16 MiB or a fragment count that disagrees with schema_bytes; nothing is downloaded.' },
  TG_FRAGMENT_LENGTH_MISMATCH: { status: 502, meaning: 'A fetched fragment or the reassembled schema has the wrong length.' },
  TG_DIGEST_MISMATCH: { status: 502, meaning: 'A fetched schema, or its input or output part, does not hash to the digest its manifest announces.' },
  TG_FETCH_FAILED: { status: 502, meaning: 'A manifest or fragment could not be fetched after every retry.' },

  // Area B: SSO delegation, tool server, secrets
  TG_UNAUTHENTICATED: { status: 401, meaning: 'No valid bearer token: missing, malformed, expired, wrong issuer or audience, or bad signature.' },
  TG_INSUFFICIENT_SCOPE: { status: 403, meaning: 'The token is valid but lacks a scope the operation needs.' },
  TG_FORBIDDEN: { status: 403, meaning: 'The caller is authenticated but not allowed to do this.' },
  TG_NO_USER_TOKEN: { status: 401, meaning: 'No user token available for delegation (start with --auth-type oidc-proxy, send Authorization: Bearer <token>, pass --enable-delegation).' },
  TG_NO_TOKEN_ENDPOINT: { status: 500, meaning: 'No token_endpoint configured: OIDC discovery was not resolved (set OIDC_CONFIG_URL; an unreachable IdP is retried in the background).' },
  TG_TOKEN_EXCHANGE_FAILED: { status: 502, meaning: 'Token exchange failed (HTTP 400/401): check client id and secret, the token-exchange grant, audience and scopes.' },
  TG_NO_DOWNSTREAM_CREDENTIAL: { status: 401, meaning: 'No credential could be obtained for a downstream API: every step of the agent\'s pattern was unavailable or refused; the message lists each with its fix.' },
  TG_AUTHORIZATION_FAILED: { status: 401, meaning: 'A three-legged or device-flow sign-in, or the refresh of its token set, did not complete (denied, state mismatch, code or refresh token refused); sign in again.' },
  TG_CONSENT_REQUIRED: { status: 401, meaning: 'A three-legged agent needs the caller\'s own consent at its OAuth provider first: the answer carries the consent link to open in the caller\'s own browser (MCP URL-mode elicitation, or the tool error\'s text and structured content); call again once consented.' },
  TG_CONSENT_LINK_INVALID: { status: 400, meaning: 'A consent link (its start, sign-in or callback step) was already used, has expired, or was not issued by this server; nothing was stored. Call the tool again for a new link.' },
  TG_CONSENT_BINDING_FAILED: { status: 403, meaning: 'The browser bringing a consent back is not the one that started it (its consent cookie is missing or does not match); nothing was stored. Open the link the tool answered in your own browser.' },
  TG_CONSENT_SUBJECT_MISMATCH: { status: 403, meaning: 'The user who signed in to consent is not the caller the consent link was issued to (issuer and subject differ); nothing was stored. Only the caller may consent, in their own browser.' },
  TG_CONSENT_DECLINED: { status: 403, meaning: 'The caller declined or cancelled the consent a three-legged agent asked for (MCP 2026-07-28: the URL-mode elicitation of an input_required answer); nothing was stored. Call the tool again to be asked anew.' },
  TG_OIDC_DISCOVERY_FAILED: { status: 502, meaning: 'The OIDC discovery document could not be fetched or is invalid.' },
  TG_TOOL_NOT_FOUND: { status: 404, meaning: 'No tool (or no action of that tool) has this name.' },
  TG_TOOL_ARGUMENTS_INVALID: { status: 400, meaning: 'The tool arguments do not match the tool action\'s input schema.' },
  TG_DOWNSTREAM_FAILED: { status: 502, meaning: 'A downstream API called by a tool answered with an error.' },
  TG_SECRET_NOT_FOUND: { status: 404, meaning: 'The secrets store has no secret under this key.' },
  TG_SECRETS_STORE_AUTH_FAILED: { status: 502, meaning: 'Every configured secrets-store auth method failed or none has the inputs it needs.' },
  TG_SECRETS_STORE_UNAVAILABLE: { status: 503, meaning: 'The secrets store could not be reached.' },

  // Area C: graph engine, Cypher, GraphQL, access, carrier
  TG_REQUEST_INVALID: { status: 400, meaning: 'A native request is malformed (id not a positive u64, missing graph, unknown method).' },
  TG_GRAPH_NOT_FOUND: { status: 404, meaning: 'No graph has this name.' },
  TG_GRAPH_EXISTS: { status: 409, meaning: 'A graph with this name already exists.' },
  TG_GRAPH_NAME_INVALID: { status: 400, meaning: 'A graph name breaks the graph name rule.' },
  TG_NAME_INVALID: { status: 400, meaning: 'A label, property name or edge type is not a valid GraphQL name.' },
  TG_NAMESPACE_INVALID: { status: 400, meaning: 'A graph\'s federation namespace is not 1 to 32 lowercase letters and digits starting with a letter (or null).' },
  TG_NAMESPACE_TAKEN: { status: 409, meaning: 'Another graph of this store already has this federation namespace: their names would collide in a supergraph.' },
  TG_VALUE_INVALID: { status: 400, meaning: 'A property value is not a supported scalar (NaN, Infinity, unsafe integer, nested object).' },
  TG_NODE_NOT_FOUND: { status: 404, meaning: 'No node has this id in the graph.' },
  TG_NODE_EXISTS: { status: 409, meaning: 'A node with this id already exists in the graph.' },
  TG_EDGE_NOT_FOUND: { status: 404, meaning: 'No edge of this type joins these nodes.' },
  TG_SCHEMA_CAP_EXCEEDED: { status: 400, meaning: 'The write would grow the graph\'s schema (labels, edge types, properties, schema fields, name length) past a cap; details name the cap, its value and its setting; nothing was written.' },
  TG_VERSION_CONFLICT: { status: 409, meaning: 'The batch named an expected graph version that is no longer current; nothing was changed.' },
  TG_STORAGE_FAILED: { status: 503, meaning: 'The persistence adapter could not durably store or load a batch, or the state store (MCP sessions, sign-ins, nonces) could not read or write (details name the store and the error code; retry after the Retry-After seconds).' },
  TG_STORAGE_CORRUPT: { status: 500, meaning: 'Stored data failed its checksum in a place recovery cannot drop (not a torn tail).' },
  TG_STORAGE_DATA_LOST: { status: 500, meaning: 'The graph log lacks records that something durable (a snapshot, the next segment\'s name, LOG-HEAD) says were acknowledged: it was cut short, or a segment deleted or renamed. Start-up stops, naming the file, what was expected and what the log holds; TOOLGRAPH_ACCEPT_DATA_LOSS starts anyway.' },
  TG_CYPHER_SYNTAX: { status: 400, meaning: 'The Cypher text does not parse; the message gives line and column.' },
  TG_CYPHER_UNSUPPORTED: { status: 400, meaning: 'The Cypher text uses a construct outside the documented subset.' },
  TG_CYPHER_RUNTIME: { status: 400, meaning: 'The Cypher query failed while running (missing parameter, type error).' },
  TG_GRAPHQL_INVALID: { status: 400, meaning: 'The GraphQL document does not parse or validate.' },
  TG_GRAPHQL_NO_NODE_TYPE: { status: 400, meaning: 'GraphQL: no node type with this name; root fields must be node labels.' },
  TG_QUERY_TOO_COMPLEX: { status: 400, meaning: 'The query is over the depth, complexity, token or field budget; rejected before execution.' },
  TG_QUERY_BUDGET_EXCEEDED: { status: 400, meaning: 'The query was stopped while running: it went over its row, result-size, time or stall budget (TOOLGRAPH_QUERY_MAX_STALL_MS: too long without yielding the event loop), or a GraphQL list without first/limit over the list limit (details name the limit and its setting).' },
  TG_WRITE_TOO_LARGE: { status: 400, meaning: 'A write (Cypher statement, GraphQL mutation, import batch) makes more changes or a larger log record than one batch may (details name the cap and its setting); nothing was changed.' },
  TG_PERSISTED_QUERY_NOT_FOUND: { status: 400, meaning: 'APQ: no query is registered under this sha256 hash; resend with the query text.' },
  TG_PERSISTED_QUERY_MISMATCH: { status: 400, meaning: 'APQ: the query text does not hash to the sha256 hash sent with it.' },
  TG_PERSISTED_ONLY: { status: 400, meaning: 'Persisted-only mode: the endpoint runs only trusted documents; send a document id, not query text.' },
  TG_CURSOR_INVALID: { status: 400, meaning: 'A pagination cursor is malformed or was issued by another connection.' },
  TG_SUBSCRIPTION_NOT_SERVED: { status: 400, meaning: 'Subscriptions are served by the SSE carrier (SERVICE_GRAPHQL_ADDR), not by /graphql or /dispatch.' },
  TG_ENVELOPE_INVALID: { status: 401, meaning: 'The signed envelope is missing, malformed, badly signed, expired, or does not match the request byte for byte.' },
  TG_NONCE_REPLAYED: { status: 401, meaning: 'The envelope\'s nonce was already used; every request and reconnect needs a fresh one.' },
  TG_REQUEST_ID_REPLAYED: { status: 401, meaning: 'The carrier request id was already used by the same signed subject within the envelope lifetime; every request and reconnect needs a fresh id, nonce and envelope.' },
  TG_ACCESS_DENIED: { status: 403, meaning: 'The graph ACL or row-level security denies the request.' },
  TG_ACCESS_POLICY_INVALID: { status: 400, meaning: 'An access policy breaks specs/access-policy.schema.json; the message names the JSON pointer of the first problem.' },
  TG_TOO_MANY_CONNECTIONS: { status: 503, meaning: 'The main port (TOOLGRAPH_MAX_CONNECTIONS) or the subscription carrier (SERVICE_GRAPHQL_MAX_CONNECTIONS) is at its connection limit; retry after the Retry-After seconds.' },
  TG_FRAME_TOO_LARGE: { status: 413, meaning: 'A subscription result serialises to more than 8 MiB; the stream ends with this error (select less or lower first/limit).' },
  TG_CARRIER_WORK_LIMIT: { status: 503, meaning: 'A new subscription would take the carrier past the work it may do per commit (TOOLGRAPH_CARRIER_MAX_WORK, the summed complexity of its running subscriptions); running ones go on. Retry after the Retry-After seconds, subscribe to less, or share a running subscription\'s text.' },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}

import { AGENT_PATTERNS, CONSENT_OWNERS as CONSENT_OWNER_NAMES, type AgentPattern, type ConsentOwner as ConsentOwnerName } from '../../config/index.ts';
import { ToolgraphError, describeValue } from '../../errors/index.ts';
import { rememberSecret } from '../../log/index.ts';
import { checkAgentName } from '../client-flows/index.ts';

/**
 * How an agent authenticates to its downstream API, named as the spec names the patterns:
 * - `full-delegation`: RFC 8693 exchange of the caller's token for one whose audience is the API.
 *   Delegation disabled: the caller's own token when it was issued for the API (its `aud` names the
 *   agent's audience), else `credentials`, else nothing. Delegation failing: `credentials`, with the
 *   spec's warning.
 * - `identity-passthrough`: always the agent's own credentials (API keys); when delegation is enabled
 *   the caller's SSO identity goes to the audit log. The caller's token never leaves the tool server.
 * - `hybrid`: delegation, then the vendor flow's cached token (device flow, signed in by the
 *   operator), then the caller's own token if (and only if) its audience includes the API.
 * - `three-legged`: a token set a user consented to at the agent's OAuth provider, refreshed when it
 *   expires: each caller's own (`consent: 'caller'`), or the operator's (`'operator'`, signed in by
 *   `toolgraph auth login`).
 */
type DownstreamPattern = AgentPattern;
/** One list of pattern names: the agent settings' (src/config) accept exactly these. */
const DOWNSTREAM_PATTERNS: readonly DownstreamPattern[] = AGENT_PATTERNS;

/**
 * Whose consent a three-legged agent calls with: each caller's own (kept per caller's issuer and
 * subject, asked for with the authorization URL when missing), or the operator's one token set
 * (`toolgraph auth login <agent>`, e.g. the loopback-seeded search agent). A request without a caller
 * (AUTH_TYPE=none, stdio) is the local operator either way.
 */
type ConsentOwner = ConsentOwnerName;
const CONSENT_OWNERS: readonly ConsentOwner[] = CONSENT_OWNER_NAMES;

/**
 * An agent's own credentials (the spec's per-agent env vars): what `identity-passthrough` sends, the
 * fallback of `full-delegation`, and the last resort of `hybrid` and operator-consent `three-legged`.
 */
export type StaticCredentials =
  /** Send nothing (an API without auth). Never a fallback for a failed delegation. */
  | { readonly kind: 'none' }
  /** `Authorization: <scheme> <token>`; scheme default `Bearer`. */
  | { readonly kind: 'token'; readonly token: string; readonly scheme?: string }
  /** `Authorization: Basic base64(username:password)`. */
  | { readonly kind: 'basic'; readonly username: string; readonly password: string }
  /**
   * A public/secret key pair (the identity-passthrough agent's "host, public key and secret key"):
   * `placement: 'basic'` (default) sends `Authorization: Basic base64(public:secret)`; `'headers'`
   * sends them in two headers, by default `x-api-key` and `x-api-secret`.
   */
  | { readonly kind: 'api-key'; readonly publicKey: string; readonly secretKey: string; readonly placement?: 'basic' | 'headers'; readonly headerNames?: { readonly publicKey: string; readonly secretKey: string } }
  /** Any other vendor scheme: these headers as given. */
  | { readonly kind: 'headers'; readonly headers: Readonly<Record<string, string>> };

/** An OAuth provider a user signs in to: by discovery URL, or by its two endpoints. */
export interface OAuthProvider {
  /** The discovery document (`…/.well-known/openid-configuration`). */
  readonly configUrl?: string;
  readonly authorizationEndpoint?: string;
  readonly tokenEndpoint?: string;
  readonly clientId: string;
  /** Absent for a public client (PKCE only). */
  readonly clientSecret?: string;
  /** Scopes asked for at sign-in; default `openid offline_access` (a refresh token needs offline_access). */
  readonly scopes?: readonly string[];
  /** RFC 8707 resource indicator: the API the tokens are for. */
  readonly resource?: string;
}

/** Default scopes of a sign-in: OpenID Connect, and a refresh token (OIDC Core §11). */
export const DEFAULT_SIGN_IN_SCOPES: readonly string[] = ['openid', 'offline_access'];

/** One downstream agent, as the tool server's configuration describes it. */
export interface DownstreamAgent {
  /** Unique; also the operator's token set's file name (letters, digits, `.`, `_`, `-`). */
  readonly name: string;
  readonly pattern: DownstreamPattern;
  /**
   * The API's identifier at the IdP: the delegated token's `audience` (default AUDIENCE), and what a
   * caller's token must carry in `aud` to be passed on (full delegation without delegation, hybrid).
   */
  readonly audience?: string;
  /** Space-separated scopes of the delegated token; default DELEGATED_SCOPES. */
  readonly scopes?: string;
  readonly credentials?: StaticCredentials;
  /**
   * `three-legged`: the provider the user consents at (required). `hybrid`: the vendor device flow's
   * provider for refreshing its cached token; default the IdP at OIDC_CONFIG_URL with OIDC_CLIENT_ID.
   */
  readonly provider?: OAuthProvider;
  /** `three-legged`: whose consent the calls carry; default `caller`. */
  readonly consent?: ConsentOwner;
}

/** What the agent's configuration resolves to, checked once. */
export interface CheckedAgent {
  readonly agent: DownstreamAgent;
  readonly audience: string | undefined;
  /** Normalised: single spaces. */
  readonly scopes: string;
  /** Headers of `credentials`, computed once; undefined when the agent has none. */
  readonly credentialHeaders: Readonly<Record<string, string>> | undefined;
  /** Whether `credentials` may stand in for a failed delegation (any kind but `none`). */
  readonly hasFallback: boolean;
  /** `three-legged`: whose consent; `operator` for the other patterns (their vendor tokens are the operator's). */
  readonly consent: ConsentOwner;
}

export interface AgentDefaults {
  readonly delegationEnabled: boolean;
  /** AUDIENCE. */
  readonly audience: string | undefined;
  /** DELEGATED_SCOPES. */
  readonly scopes: string;
}

function invalid(agent: string, message: string): ToolgraphError {
  return new ToolgraphError('TG_CONFIG_INVALID', `agent ${agent}: ${message}`, { details: { agent } });
}

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function checkHeader(agent: string, name: string, value: string): void {
  if (!HEADER_NAME.test(name)) throw invalid(agent, `expected an HTTP header name, got ${describeValue(name)}`);
  // A line break in a header value would let a credential smuggle in a second header.
  if (/[\r\n\0]/.test(value) || value === '') throw invalid(agent, `header ${name}: expected a non-empty value without line breaks`);
}

function basic(user: string, secret: string): string {
  return `Basic ${Buffer.from(`${user}:${secret}`, 'utf8').toString('base64')}`;
}

/** The headers `credentials` stand for. Every secret in them is remembered by the log scrubber. */
function credentialHeaders(agent: string, credentials: StaticCredentials): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  switch (credentials.kind) {
    case 'none':
      break;
    case 'token':
      rememberSecret(credentials.token);
      headers['authorization'] = `${credentials.scheme ?? 'Bearer'} ${credentials.token}`;
      break;
    case 'basic':
      rememberSecret(credentials.password);
      if (credentials.username.includes(':')) throw invalid(agent, 'a basic-auth username cannot contain ":"');
      headers['authorization'] = basic(credentials.username, credentials.password);
      break;
    case 'api-key':
      rememberSecret(credentials.secretKey);
      if ((credentials.placement ?? 'basic') === 'basic') {
        if (credentials.publicKey.includes(':')) throw invalid(agent, 'a public key sent as basic auth cannot contain ":"');
        headers['authorization'] = basic(credentials.publicKey, credentials.secretKey);
      } else {
        const names = credentials.headerNames ?? { publicKey: 'x-api-key', secretKey: 'x-api-secret' };
        headers[names.publicKey.toLowerCase()] = credentials.publicKey;
        headers[names.secretKey.toLowerCase()] = credentials.secretKey;
      }
      break;
    case 'headers':
      for (const [name, value] of Object.entries(credentials.headers)) {
        rememberSecret(value);
        headers[name.toLowerCase()] = value;
      }
      break;
    default:
      throw invalid(agent, `credentials: expected kind none, token, basic, api-key or headers, got ${describeValue((credentials as { kind?: unknown }).kind)}`);
  }
  for (const [name, value] of Object.entries(headers)) checkHeader(agent, name, value);
  if (credentials.kind === 'basic' && credentials.password === '') throw invalid(agent, 'basic auth needs a password');
  return Object.freeze(headers);
}

/** Normalises a space-separated scope list: single spaces, no empty entries. */
export function normaliseScopes(scopes: string): string {
  return scopes.split(' ').filter(Boolean).join(' ');
}

/** Checks an agent description against its pattern's needs; TG_CONFIG_INVALID names what is missing. */
export function checkAgent(agent: DownstreamAgent, defaults: AgentDefaults): CheckedAgent {
  checkAgentName(agent.name);
  const name = agent.name;
  if (!DOWNSTREAM_PATTERNS.includes(agent.pattern)) throw invalid(name, `pattern: expected one of ${DOWNSTREAM_PATTERNS.join(', ')}, got ${describeValue(agent.pattern)}`);
  if (agent.consent !== undefined && !CONSENT_OWNERS.includes(agent.consent)) throw invalid(name, `consent: expected one of ${CONSENT_OWNERS.join(', ')}, got ${describeValue(agent.consent)}`);
  const audience = agent.audience ?? defaults.audience;
  const scopes = normaliseScopes(agent.scopes ?? defaults.scopes);
  const headers = agent.credentials === undefined ? undefined : credentialHeaders(name, agent.credentials);
  const hasFallback = agent.credentials !== undefined && agent.credentials.kind !== 'none';
  const consent: ConsentOwner = agent.pattern === 'three-legged' ? agent.consent ?? 'caller' : 'operator';
  switch (agent.pattern) {
    case 'full-delegation':
      if (defaults.delegationEnabled && audience === undefined) throw invalid(name, 'full delegation needs the downstream audience: set AUDIENCE (config key delegation_audience) or the agent\'s audience');
      break;
    case 'identity-passthrough':
      if (headers === undefined) throw invalid(name, 'identity passthrough calls the API with its API keys: configure its credentials (kind api-key, token, basic or headers; kind none for an API without auth)');
      break;
    case 'hybrid':
      if (audience === undefined) throw invalid(name, 'the hybrid pattern needs the API\'s audience (for delegation, and to check a caller token before passing it on): set AUDIENCE or the agent\'s audience');
      break;
    case 'three-legged':
      if (agent.provider === undefined) throw invalid(name, 'three-legged OAuth needs the provider the user consents at: its discovery URL or endpoints, client id and scopes');
      if (consent === 'caller' && hasFallback) throw invalid(name, 'a three-legged agent with per-caller consent calls with each caller\'s own token, so its credentials would stand in for a consent nobody gave: remove them, or use consent operator');
      break;
  }
  if (agent.provider) {
    rememberSecret(agent.provider.clientSecret);
    if (agent.pattern !== 'three-legged' && agent.pattern !== 'hybrid') throw invalid(name, `provider: only three-legged and hybrid agents sign in at an OAuth provider, and this agent is ${agent.pattern}`);
    if (agent.provider.configUrl === undefined && agent.provider.tokenEndpoint === undefined) throw invalid(name, 'provider: expected configUrl (discovery) or tokenEndpoint');
  }
  return Object.freeze({ agent, audience, scopes, credentialHeaders: headers, hasFallback, consent });
}

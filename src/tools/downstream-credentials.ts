import type { AgentSettings } from '../config/index.ts';
import type { RequestContext } from '../auth/index.ts';

/**
 * How a downstream agent's API is reached, as the spec names the three patterns: full delegation
 * (the API accepts OIDC tokens or RFC 8693 exchange), identity passthrough (the API accepts only API
 * keys; SSO protects only the tool server) and hybrid (OIDC delegation beside a vendor device-code
 * flow).
 */
export type DelegationPattern = 'full-delegation' | 'identity-passthrough' | 'hybrid';

/** What the credentials port needs to know about the agent a call goes to. */
export interface DownstreamAgent {
  readonly name: string;
  readonly pattern: DelegationPattern;
  /**
   * The audience (aud) of tokens the API accepts. A caller's token is passed on only when its `aud`
   * includes this value: MCP forbids passing on a token that was not issued for the downstream API.
   */
  readonly audience: string | undefined;
  /** The agent's configured static credentials (token, username/password, API key pair). */
  readonly settings: AgentSettings;
}

/**
 * Where a bearer token came from, for logs and the audit (never the token itself):
 * `caller` the caller's own token (issued for this API), `static` the agent's configured token,
 * `delegated` an RFC 8693 exchange, `device` a vendor device-code flow, `three-legged` a 3LO token set.
 */
export type TokenSource = 'caller' | 'static' | 'delegated' | 'device' | 'three-legged';

/** The credentials of one downstream call. */
export type DownstreamAuth =
  | { readonly kind: 'none' }
  /** Headers as the delegation library resolved them (a bearer token, API keys, …). */
  | { readonly kind: 'headers'; readonly headers: Readonly<Record<string, string>>; readonly source: TokenSource | 'static' }
  | { readonly kind: 'bearer'; readonly token: string; readonly source: TokenSource }
  | { readonly kind: 'basic'; readonly username: string; readonly password: string; readonly source: 'static' }
  | { readonly kind: 'api-key'; readonly headers: Readonly<Record<string, string>>; readonly source: 'static' };

/**
 * The port through which every tool obtains downstream credentials. The tool calls it once per
 * downstream request, inside the caller's request context, and turns the answer into headers with
 * `authorizationHeaders`. Implementations: `createStaticCredentials` (configured credentials, and
 * the caller's token where it was issued for the API); the delegation library (RFC 8693 exchange,
 * device flow, 3LO, the identity-passthrough audit) plugs in here.
 *
 * A refusal is a thrown ToolgraphError whose message reaches the MCP client as the tool error's
 * text (the spec's texts verbatim: `No user token available for delegation`, …).
 */
export interface DownstreamCredentials {
  /**
   * `operation` says what the tool does downstream (`crm.get`), for the identity-passthrough audit.
   */
  for(agent: DownstreamAgent, request: RequestContext | undefined, operation?: string): Promise<DownstreamAuth>;
  /** Called once per agent when the tool server is built, so a bad agent description stops start-up. */
  prepare?(agent: DownstreamAgent): void;
  close?(): Promise<void>;
}

/** True when the token's `aud` (a string or a list) includes `audience`. */
export function audienceIncludes(aud: unknown, audience: string): boolean {
  if (typeof aud === 'string') return aud === audience;
  return Array.isArray(aud) && aud.includes(audience);
}

/** The agent's configured static credentials, or undefined when it has none. */
export function staticAuthOf(settings: AgentSettings): DownstreamAuth | undefined {
  if (settings.token !== undefined) return { kind: 'bearer', token: settings.token, source: 'static' };
  if (settings.username !== undefined && settings.password !== undefined) return { kind: 'basic', username: settings.username, password: settings.password, source: 'static' };
  if (settings.publicKey !== undefined && settings.secretKey !== undefined) {
    if (settings.apiKeyStyle === 'headers') {
      return { kind: 'api-key', headers: { [settings.publicKeyHeader]: settings.publicKey, [settings.secretKeyHeader]: settings.secretKey }, source: 'static' };
    }
    return { kind: 'basic', username: settings.publicKey, password: settings.secretKey, source: 'static' };
  }
  return undefined;
}

/**
 * The first implementation: no token exchange.
 * - full delegation and hybrid: the caller's own token when its audience includes the agent's (it
 *   was issued for that API), else the agent's static credentials, else none;
 * - identity passthrough: the agent's static credentials only (API keys); the caller's token never
 *   leaves the tool server.
 */
export function createStaticCredentials(): DownstreamCredentials {
  return {
    async for(agent, request) {
      if (agent.pattern !== 'identity-passthrough' && request !== undefined && agent.audience !== undefined && audienceIncludes(request.principal.claims?.['aud'], agent.audience)) {
        return { kind: 'bearer', token: request.token, source: 'caller' };
      }
      return staticAuthOf(agent.settings) ?? { kind: 'none' };
    },
  };
}

/** The request headers that carry `auth`. */
export function authorizationHeaders(auth: DownstreamAuth): Record<string, string> {
  switch (auth.kind) {
    case 'none':
      return {};
    case 'bearer':
      return { authorization: `Bearer ${auth.token}` };
    case 'basic':
      return { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`, 'utf8').toString('base64')}` };
    case 'api-key':
    case 'headers':
      return { ...auth.headers };
  }
}

/** How a credential is named in logs: its kind and source, never its value. */
export function describeAuth(auth: DownstreamAuth): string {
  return auth.kind === 'none' ? 'none' : `${auth.kind}:${auth.source}`;
}

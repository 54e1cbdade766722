import { issuerUrlProblem } from '../../auth/index.ts';
import { ToolgraphError } from '../../errors/index.ts';

/** The identity provider the proxy signs users in at, and the proxy's own client there. */
export interface UpstreamAuthorizationServer {
  readonly issuer: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  /** Scopes the IdP announces; requested scopes outside it are not forwarded. Undefined: forward all. */
  readonly scopesSupported: readonly string[] | undefined;
  /** An OpenID provider: `openid` is always requested. */
  readonly openid: boolean;
  /** OIDC_CLIENT_ID: the proxy's one client at the IdP. */
  readonly clientId: string;
  /** OIDC_CLIENT_SECRET; undefined for a public client (PKCE alone). */
  readonly clientSecret: string | undefined;
}

export interface UpstreamInputs {
  /** The discovery document (OIDC or RFC 8414) when OIDC_CONFIG_URL is set. */
  readonly document: Readonly<Record<string, unknown>> | undefined;
  readonly issuer: string;
  /** OAUTH_AUTHORIZATION_ENDPOINT / OAUTH_TOKEN_ENDPOINT, which win over the document's. */
  readonly authorizationEndpoint: string | undefined;
  readonly tokenEndpoint: string | undefined;
  readonly openid: boolean;
  readonly clientId: string;
  readonly clientSecret: string | undefined;
}

function endpoint(configured: string | undefined, document: Readonly<Record<string, unknown>> | undefined, key: string, setting: string): string {
  const value = configured ?? document?.[key];
  if (typeof value !== 'string' || value === '') {
    throw new ToolgraphError('TG_CONFIG_INVALID', `The OAuth proxy needs the identity provider's ${key}: the discovery document at OIDC_CONFIG_URL has none; set ${setting}.`, { details: { setting } });
  }
  const problem = issuerUrlProblem(value);
  if (problem !== undefined) throw new ToolgraphError('TG_CONFIG_INVALID', `The identity provider's ${key} ${value} ${problem}.`, { details: { setting } });
  return value;
}

/** The upstream from the discovery document and the settings (configured endpoints win). */
export function upstreamAuthorizationServer(inputs: UpstreamInputs): UpstreamAuthorizationServer {
  const scopes = inputs.document?.['scopes_supported'];
  return Object.freeze({
    issuer: inputs.issuer,
    authorizationEndpoint: endpoint(inputs.authorizationEndpoint, inputs.document, 'authorization_endpoint', 'OAUTH_AUTHORIZATION_ENDPOINT'),
    tokenEndpoint: endpoint(inputs.tokenEndpoint, inputs.document, 'token_endpoint', 'OAUTH_TOKEN_ENDPOINT'),
    scopesSupported: Array.isArray(scopes) && scopes.every((s) => typeof s === 'string') ? Object.freeze([...scopes] as string[]) : undefined,
    openid: inputs.openid,
    clientId: inputs.clientId,
    clientSecret: inputs.clientSecret,
  });
}

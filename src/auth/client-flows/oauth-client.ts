import * as oidc from 'openid-client';
import { ToolgraphError } from '../../errors/index.ts';
import { rememberSecret } from '../../log/index.ts';
import { issuerUrlProblem, type IssuerMetadata } from '../resource-server/index.ts';

/** The endpoints of an authorization server that the grants toolgraph makes need. */
export interface AuthorizationServer {
  readonly issuer: string;
  readonly tokenEndpoint: string | undefined;
  readonly authorizationEndpoint: string | undefined;
  readonly deviceAuthorizationEndpoint: string | undefined;
  /** `token_endpoint_auth_methods_supported`, when the server publishes it. */
  readonly tokenEndpointAuthMethods: readonly string[] | undefined;
}

/** A registered OAuth client: OIDC_CLIENT_ID / OIDC_CLIENT_SECRET, or a three-legged agent's own. */
export interface OAuthClientIdentity {
  readonly clientId: string;
  /** Absent for a public client (PKCE only). */
  readonly clientSecret?: string | undefined;
}

export interface OAuthClientOptions {
  /** Per-request limit in ms; default 10000. */
  readonly timeoutMs?: number;
  /** Replaces global fetch (tests, benchmarks counting requests). */
  readonly fetch?: typeof fetch;
}

const ENDPOINTS = [
  ['token_endpoint', 'tokenEndpoint'],
  ['authorization_endpoint', 'authorizationEndpoint'],
  ['device_authorization_endpoint', 'deviceAuthorizationEndpoint'],
] as const;

/**
 * The endpoints named by a discovery document (already validated by `discoverIssuer`). Each one
 * obeys the same transport rule as the keys (https, or http to loopback): a token endpoint reached
 * over plain http elsewhere would hand the caller's token and the client secret to anyone on the path.
 */
export function authorizationServerOf(metadata: IssuerMetadata, configUrl: string): AuthorizationServer {
  const found: Record<string, string | undefined> = {};
  for (const [field, name] of ENDPOINTS) {
    const value = metadata.document[field];
    if (value === undefined) continue;
    const problem = typeof value === 'string' ? issuerUrlProblem(value) : 'is not a string';
    if (problem) {
      throw new ToolgraphError('TG_OIDC_DISCOVERY_FAILED', `OIDC discovery at OIDC_CONFIG_URL ${configUrl} failed: ${field} ${JSON.stringify(value)} ${problem}.`, { details: { setting: 'OIDC_CONFIG_URL' } });
    }
    found[name] = value as string;
  }
  const methods = metadata.document['token_endpoint_auth_methods_supported'];
  return Object.freeze({
    issuer: metadata.issuer,
    tokenEndpoint: found['tokenEndpoint'],
    authorizationEndpoint: found['authorizationEndpoint'],
    deviceAuthorizationEndpoint: found['deviceAuthorizationEndpoint'],
    tokenEndpointAuthMethods: Array.isArray(methods) ? methods.filter((m): m is string => typeof m === 'string') : undefined,
  });
}

/** A server given by its endpoints instead of discovery (a vendor without a discovery document). */
export function explicitAuthorizationServer(endpoints: { authorizationEndpoint?: string | undefined; tokenEndpoint: string }): AuthorizationServer {
  for (const [name, value] of Object.entries(endpoints)) {
    if (value === undefined) continue;
    const problem = issuerUrlProblem(value);
    if (problem) throw new ToolgraphError('TG_CONFIG_INVALID', `${name} ${JSON.stringify(value)} ${problem}.`, { details: { setting: name } });
  }
  return Object.freeze({
    issuer: new URL(endpoints.tokenEndpoint).origin,
    tokenEndpoint: endpoints.tokenEndpoint,
    authorizationEndpoint: endpoints.authorizationEndpoint,
    deviceAuthorizationEndpoint: undefined,
    tokenEndpointAuthMethods: undefined,
  });
}

/**
 * client_secret_basic unless the server says it only takes client_secret_post (RFC 6749 §2.3.1
 * makes Basic the one servers must support); no secret means a public client.
 */
function clientAuthentication(server: AuthorizationServer, client: OAuthClientIdentity): oidc.ClientAuth {
  if (client.clientSecret === undefined) return oidc.None();
  const methods = server.tokenEndpointAuthMethods;
  if (methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')) return oidc.ClientSecretPost(client.clientSecret);
  return oidc.ClientSecretBasic(client.clientSecret);
}

/** An openid-client configuration for `client` at `server`, every grant of this module goes through one. */
export function oauthConfiguration(server: AuthorizationServer, client: OAuthClientIdentity, options: OAuthClientOptions = {}): oidc.Configuration {
  rememberSecret(client.clientSecret);
  const metadata: oidc.ServerMetadata = {
    issuer: server.issuer,
    ...(server.tokenEndpoint ? { token_endpoint: server.tokenEndpoint } : {}),
    ...(server.authorizationEndpoint ? { authorization_endpoint: server.authorizationEndpoint } : {}),
    ...(server.deviceAuthorizationEndpoint ? { device_authorization_endpoint: server.deviceAuthorizationEndpoint } : {}),
  };
  const config = new oidc.Configuration(metadata, client.clientId, client.clientSecret === undefined ? undefined : { client_secret: client.clientSecret }, clientAuthentication(server, client));
  config.timeout = Math.ceil((options.timeoutMs ?? 10_000) / 1000);
  // graphql-yoga's typings add the DOM lib to the program, whose BodyInit leaves out Uint8Array; Node's
  // fetch takes the Uint8Array bodies openid-client sends, so the two fetch types agree at run time.
  if (options.fetch) config[oidc.customFetch] = options.fetch as unknown as oidc.CustomFetch;
  // Every URL here passed issuerUrlProblem: plain http only ever reaches a loopback host.
  const urls = [server.issuer, server.tokenEndpoint, server.authorizationEndpoint, server.deviceAuthorizationEndpoint];
  if (urls.some((url) => url?.startsWith('http:'))) oidc.allowInsecureRequests(config);
  return config;
}

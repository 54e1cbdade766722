import { DEFAULT_SIGN_IN_SCOPES, type DownstreamAgent, type OAuthProvider, type StaticCredentials } from '../auth/index.ts';
import type { AgentSettings } from '../config/index.ts';

/**
 * An agent's configured credentials (token, username/password, API key pair) as the delegation
 * library takes them; `none` when it has none (an API without auth).
 */
function credentialsOf(settings: AgentSettings): StaticCredentials {
  if (settings.token !== undefined) return { kind: 'token', token: settings.token };
  if (settings.username !== undefined && settings.password !== undefined) return { kind: 'basic', username: settings.username, password: settings.password };
  if (settings.publicKey !== undefined && settings.secretKey !== undefined) {
    return settings.apiKeyStyle === 'headers'
      ? { kind: 'api-key', publicKey: settings.publicKey, secretKey: settings.secretKey, placement: 'headers', headerNames: { publicKey: settings.publicKeyHeader, secretKey: settings.secretKeyHeader } }
      : { kind: 'api-key', publicKey: settings.publicKey, secretKey: settings.secretKey, placement: 'basic' };
  }
  return { kind: 'none' };
}

export interface AgentDescriptionInputs {
  /** The API's identifier when the settings name none (the local graph service's TOKEN_AUDIENCE). */
  readonly audience?: string | undefined;
  /** The client secret, read from the secrets backend when the settings give `client_secret_ref`. */
  readonly clientSecret?: string | undefined;
}

/** The OAuth provider the settings name (three-legged; a hybrid agent's own device flow), if any. */
export function providerOf(settings: AgentSettings, inputs: AgentDescriptionInputs = {}): OAuthProvider | undefined {
  if (settings.clientId === undefined) return undefined;
  const clientSecret = settings.clientSecret ?? inputs.clientSecret;
  const audience = settings.audience ?? inputs.audience;
  const threeLegged = settings.pattern === 'three-legged';
  return {
    clientId: settings.clientId,
    ...(settings.providerConfigUrl === undefined ? {} : { configUrl: settings.providerConfigUrl }),
    ...(settings.authorizationEndpoint === undefined ? {} : { authorizationEndpoint: settings.authorizationEndpoint }),
    ...(settings.tokenEndpoint === undefined ? {} : { tokenEndpoint: settings.tokenEndpoint }),
    ...(clientSecret === undefined ? {} : { clientSecret }),
    // A three-legged agent's scopes are what the user consents to, for the API's audience.
    ...(threeLegged ? { scopes: settings.scopes === undefined ? DEFAULT_SIGN_IN_SCOPES : settings.scopes.split(' ').filter(Boolean) } : {}),
    ...(threeLegged && audience !== undefined ? { resource: audience } : {}),
  };
}

/**
 * The downstream agent a configured tool agent is, in the one credentials model (src/auth): its
 * pattern (default full delegation for `graph` agents, identity passthrough for `http` agents), the
 * API's audience, the delegated token's scopes, its credentials and its OAuth provider.
 */
export function downstreamAgentOf(settings: AgentSettings, inputs: AgentDescriptionInputs = {}): DownstreamAgent {
  const audience = settings.audience ?? inputs.audience;
  const provider = providerOf(settings, inputs);
  return {
    name: settings.name,
    pattern: settings.pattern,
    ...(audience === undefined ? {} : { audience }),
    ...(settings.scopes === undefined || settings.pattern === 'three-legged' ? {} : { scopes: settings.scopes }),
    credentials: credentialsOf(settings),
    ...(provider === undefined ? {} : { provider }),
    ...(settings.consent === undefined ? {} : { consent: settings.consent }),
  };
}

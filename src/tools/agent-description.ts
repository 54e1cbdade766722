import type { DownstreamAgent, StaticCredentials } from '../auth/index.ts';
import type { AgentSettings } from '../config/index.ts';

/**
 * An agent's configured credentials (token, username/password, API key pair) as the delegation
 * library takes them; `none` when it has none (an API without auth).
 */
export function credentialsOf(settings: AgentSettings): StaticCredentials {
  if (settings.token !== undefined) return { kind: 'token', token: settings.token };
  if (settings.username !== undefined && settings.password !== undefined) return { kind: 'basic', username: settings.username, password: settings.password };
  if (settings.publicKey !== undefined && settings.secretKey !== undefined) {
    return settings.apiKeyStyle === 'headers'
      ? { kind: 'api-key', publicKey: settings.publicKey, secretKey: settings.secretKey, placement: 'headers', headerNames: { publicKey: settings.publicKeyHeader, secretKey: settings.secretKeyHeader } }
      : { kind: 'api-key', publicKey: settings.publicKey, secretKey: settings.secretKey, placement: 'basic' };
  }
  return { kind: 'none' };
}

/**
 * The downstream agent a configured tool agent is, in the one credentials model (src/auth): `graph`
 * agents are full delegation, `http` agents identity passthrough. `audience` is the API's identifier
 * when the settings name none (the local graph service's TOKEN_AUDIENCE).
 */
export function downstreamAgentOf(settings: AgentSettings, audience: string | undefined): DownstreamAgent {
  return {
    name: settings.name,
    pattern: settings.kind === 'graph' ? 'full-delegation' : 'identity-passthrough',
    ...(audience === undefined ? {} : { audience }),
    credentials: credentialsOf(settings),
  };
}

import { DEFAULT_SIGN_IN_SCOPES, providerServer, type AuthorizationServer, type OAuthClientIdentity } from '../auth/index.ts';
import { AGENT_NAME_PATTERN, RESERVED_AGENT_NAMES, type ResolvedValues } from '../config/index.ts';
import { ToolgraphError, describeValue } from '../errors/index.ts';
import type { SecretsBackend } from '../secrets/index.ts';
import { readClientSecrets } from './agent-client-secrets.ts';
import { providerOf } from './agent-description.ts';

/** What `toolgraph auth login` may override on the command line. */
export interface SignInOverrides {
  /** `--scope`, when given (space-separated). */
  readonly scopes?: string | undefined;
  /** `--audience`: the RFC 8707 resource. */
  readonly audience?: string | undefined;
  readonly authorizationEndpoint?: string | undefined;
  readonly tokenEndpoint?: string | undefined;
}

/** Where and as whom an operator signs an agent in, and for what. */
export interface SignInTarget {
  readonly server: AuthorizationServer;
  readonly client: OAuthClientIdentity;
  readonly scopes: readonly string[];
  readonly resource: string | undefined;
}

/**
 * Refuses a name no agent of the tool server can have (the token set would be stored for nobody):
 * the tool server's own rule, `^[a-z][a-z0-9_]{0,63}$`, and not a built-in tool's.
 */
function checkServedAgentName(name: string): void {
  if (!AGENT_NAME_PATTERN.test(name) || RESERVED_AGENT_NAMES.includes(name)) {
    throw new ToolgraphError('TG_CONFIG_INVALID', `agent name: expected a name the tool server's agents can have (${AGENT_NAME_PATTERN.source}, not ${RESERVED_AGENT_NAMES.join(' or ')}), got ${describeValue(name)}`, { details: { agent: name } });
  }
}

/**
 * The provider, client, scopes and resource of an operator's sign-in (`toolgraph auth login <agent>`),
 * read as the tool server reads them: the agent's own provider when its configuration names one
 * (`provider_config_url` or endpoints, `client_id`, `client_secret` or `client_secret_ref`,
 * `scopes`, `audience`), else the IdP (OIDC_CONFIG_URL, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET) as the
 * spec's hybrid agent has it. Flags override.
 */
export async function signInTargetOf(values: ResolvedValues, agent: string, overrides: SignInOverrides, secrets: () => SecretsBackend): Promise<SignInTarget> {
  checkServedAgentName(agent);
  const settings = values.agents[agent];
  const endpoints = overrides.tokenEndpoint === undefined ? undefined : { tokenEndpoint: overrides.tokenEndpoint, authorizationEndpoint: overrides.authorizationEndpoint };
  const flagScopes = overrides.scopes?.split(' ').filter(Boolean);
  if (settings?.clientId !== undefined) {
    const clientSecret = settings.clientSecretRef === undefined ? undefined : (await readClientSecrets({ [agent]: settings }, secrets()))[agent];
    const provider = providerOf(settings, { clientSecret });
    if (provider === undefined) throw new Error('unreachable: an agent with client_id has a provider');
    return {
      server: await providerServer(endpoints ?? provider),
      client: { clientId: provider.clientId, clientSecret: provider.clientSecret },
      scopes: flagScopes ?? provider.scopes ?? (settings.scopes?.split(' ').filter(Boolean) ?? DEFAULT_SIGN_IN_SCOPES),
      resource: overrides.audience ?? provider.resource ?? settings.audience,
    };
  }
  if (values.oidcClientId === undefined) {
    throw new ToolgraphError('TG_CONFIG_INVALID', 'auth login needs the OAuth client: set OIDC_CLIENT_ID (--oidc-client-id or config key oidc_client_id), and OIDC_CLIENT_SECRET for a confidential client', { details: { setting: 'OIDC_CLIENT_ID' } });
  }
  if (endpoints === undefined && values.oidcConfigUrl === undefined) {
    throw new ToolgraphError('TG_CONFIG_INVALID', 'auth login needs the provider: set OIDC_CONFIG_URL (--oidc-config-url), or give --authorization-endpoint and --token-endpoint', { details: { setting: 'OIDC_CONFIG_URL' } });
  }
  return {
    server: await providerServer(endpoints ?? { configUrl: values.oidcConfigUrl as string }),
    client: { clientId: values.oidcClientId, clientSecret: values.oidcClientSecret },
    scopes: flagScopes ?? DEFAULT_SIGN_IN_SCOPES,
    resource: overrides.audience ?? settings?.audience,
  };
}

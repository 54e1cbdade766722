import type * as oidc from 'openid-client';
import type { ResolvedValues } from '../../config/index.ts';
import { ToolgraphError } from '../../errors/index.ts';
import { silentLogger, type Logger } from '../../log/index.ts';
import { AuditLog } from './audit-log.ts';
import type { DownstreamAgent, OAuthProvider } from './downstream-agent.ts';
import { type ConsentRoutes, authorizationServerOf, explicitAuthorizationServer, oauthConfiguration, type AuthorizationServer, type OAuthClientIdentity, type OAuthClientOptions, TokenSetStore } from '../client-flows/index.ts';
import { DownstreamCredentials } from './downstream-credentials.ts';
import { loadInBackground, discoverIssuer } from '../resource-server/index.ts';
import { createTokenExchanger } from './token-exchange.ts';
import type { StateStore } from '../../state/index.ts';

/** The settings delegation is built from (a subset of the resolved configuration). */
export type DelegationSettings = Pick<ResolvedValues,
  'enableDelegation' | 'audience' | 'delegatedScopes' | 'oidcConfigUrl' | 'oidcClientId' | 'oidcClientSecret' | 'stateDir' | 'auditLog'> & Partial<Pick<ResolvedValues, 'idpRetryMaxMs'>>;

export interface OpenDownstreamCredentialsOptions extends OAuthClientOptions {
  readonly logger?: Logger;
  readonly now?: () => number;
  /**
   * Per-caller three-legged consent (toolgraph serve): the state store, this server's consent routes
   * and how long a link lasts. The consenting browser signs in with OIDC_CLIENT_ID at the IdP of
   * OIDC_CONFIG_URL; both are required.
   */
  readonly consents?: { readonly state: StateStore; readonly routes: ConsentRoutes; readonly linkTtlMs?: number };
}

/** Discovers an OAuth provider by its discovery URL, or takes its endpoints as given. */
export async function providerServer(provider: Pick<OAuthProvider, 'configUrl' | 'authorizationEndpoint' | 'tokenEndpoint'>, options: OAuthClientOptions = {}): Promise<AuthorizationServer> {
  if (provider.configUrl !== undefined) {
    const metadata = await discoverIssuer(provider.configUrl, options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs });
    return authorizationServerOf(metadata, provider.configUrl);
  }
  if (provider.tokenEndpoint === undefined) throw new ToolgraphError('TG_CONFIG_INVALID', 'an OAuth provider needs a discovery URL or a token endpoint');
  return explicitAuthorizationServer({ authorizationEndpoint: provider.authorizationEndpoint, tokenEndpoint: provider.tokenEndpoint });
}

/** Runs `load` once; a failure is not remembered, so the next call tries again. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}

/**
 * Builds the downstream-credentials resolver from the settings, at start-up. With ENABLE_DELEGATION
 * the token endpoint is found by OIDC discovery at OIDC_CONFIG_URL, tried now and, while the IdP
 * cannot be reached, retried in the background (TOOLGRAPH_IDP_RETRY_MAX_MS): start-up goes on, and
 * until discovery resolves every exchange answers `No token_endpoint configured` (so an agent with
 * credentials falls back to them, with the spec's warning). Without OIDC_CONFIG_URL every exchange
 * answers so, and start-up says so in a warning.
 */
export async function openDownstreamCredentials(settings: DelegationSettings, options: OpenDownstreamCredentialsOptions = {}): Promise<DownstreamCredentials> {
  const logger = (options.logger ?? silentLogger()).child({ component: 'delegation' });
  const idpClient = settings.oidcClientId === undefined ? undefined : { clientId: settings.oidcClientId, clientSecret: settings.oidcClientSecret };
  const idpServer = once(async () => {
    if (settings.oidcConfigUrl === undefined) return undefined;
    return providerServer({ configUrl: settings.oidcConfigUrl }, options);
  });
  let server: (() => AuthorizationServer | undefined) | undefined;
  let unresolved: (() => string | undefined) | undefined;
  if (settings.enableDelegation) {
    if (idpClient === undefined) {
      throw new ToolgraphError('TG_CONFIG_INVALID', 'ENABLE_DELEGATION is true, but OIDC_CLIENT_ID is not set: the token exchange is made by this client, which the IdP must allow the token-exchange grant (set OIDC_CLIENT_ID and OIDC_CLIENT_SECRET)', { details: { setting: 'OIDC_CLIENT_ID' } });
    }
    // Without OIDC_CONFIG_URL there is nothing to discover (and nothing to retry).
    const configUrl = settings.oidcConfigUrl;
    const pending = configUrl === undefined ? undefined : await loadInBackground(async () => (await idpServer()) as AuthorizationServer, {
      what: `OIDC discovery at OIDC_CONFIG_URL ${settings.oidcConfigUrl ?? ''} (the token_endpoint of delegation)`,
      logger,
      ...(settings.idpRetryMaxMs === undefined ? {} : { maxDelayMs: settings.idpRetryMaxMs }),
    });
    server = () => pending?.current();
    unresolved = () => {
      const waiting = pending?.waiting();
      return waiting === undefined ? undefined : `OIDC discovery was not resolved yet (${waiting}); it is retried in the background`;
    };
    const found = pending?.current();
    if (found === undefined && configUrl !== undefined) {
      logger.warn({ oidcConfigUrl: settings.oidcConfigUrl }, 'delegation is enabled but OIDC discovery did not resolve: until it does every exchange fails with "No token_endpoint configured" (retrying in the background)');
    } else if (found?.tokenEndpoint === undefined) {
      logger.warn({ oidcConfigUrl: settings.oidcConfigUrl ?? null }, 'delegation is enabled but no token_endpoint was found: every exchange will fail with "No token_endpoint configured" (set OIDC_CONFIG_URL)');
    } else {
      logger.info({ tokenEndpoint: found.tokenEndpoint, audience: settings.audience ?? null, scopes: settings.delegatedScopes }, 'token delegation on');
    }
  }
  // Without delegation there is no server, so the client is never used.
  const exchanger = createTokenExchanger({ server, ...(unresolved ? { unresolved } : {}), client: idpClient ?? { clientId: '' }, timeoutMs: options.timeoutMs, fetch: options.fetch, now: options.now });
  const providers = new Map<string, () => Promise<oidc.Configuration>>();
  const refreshClient = (agent: DownstreamAgent): Promise<oidc.Configuration> => {
    const key = JSON.stringify([agent.name, agent.provider ?? null]);
    let load = providers.get(key);
    if (!load) {
      load = once(async () => {
        if (agent.provider !== undefined) {
          return oauthConfiguration(await providerServer(agent.provider, options), { clientId: agent.provider.clientId, clientSecret: agent.provider.clientSecret }, options);
        }
        // The hybrid agent's vendor flow reuses OIDC_CLIENT_ID at the IdP (the spec).
        const found = await idpServer();
        if (found === undefined || idpClient === undefined) {
          throw new ToolgraphError('TG_CONFIG_INVALID', `agent ${agent.name}: refreshing its device-flow token needs the IdP (OIDC_CONFIG_URL) and OIDC_CLIENT_ID, or the agent's own provider`, { details: { agent: agent.name } });
        }
        return oauthConfiguration(found, idpClient, options);
      });
      providers.set(key, load);
    }
    return load();
  };
  let signIn: (() => Promise<oidc.Configuration>) | undefined;
  if (options.consents !== undefined) {
    // The consenting browser proves it is the caller's by signing in at the IdP whose tokens callers bring.
    const missing = settings.oidcConfigUrl === undefined ? 'OIDC_CONFIG_URL' : idpClient === undefined ? 'OIDC_CLIENT_ID' : undefined;
    if (missing !== undefined) {
      throw new ToolgraphError('TG_CONFIG_INVALID', `per-caller consent (a three-legged agent with consent caller) needs ${missing}: the browser that consents first signs in at the IdP with OIDC_CLIENT_ID (redirect URI ${options.consents.routes.signedInUrl}), so a consent link works only for the caller it was issued to`, { details: { setting: missing } });
    }
    signIn = once(async () => oauthConfiguration((await idpServer()) as AuthorizationServer, idpClient as OAuthClientIdentity, options));
  }
  return new DownstreamCredentials({
    defaults: { delegationEnabled: settings.enableDelegation, audience: settings.audience, scopes: settings.delegatedScopes },
    exchanger,
    tokenSets: new TokenSetStore(settings.stateDir),
    refreshClient,
    auditLog: new AuditLog(settings.auditLog, options.now === undefined ? {} : { now: options.now }),
    logger: options.logger,
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.consents === undefined || signIn === undefined ? {} : { consents: { ...options.consents, signIn } }),
  });
}

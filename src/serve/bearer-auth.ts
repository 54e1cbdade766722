import {
  createAccessTokenVerifier, createBearerAuthenticator, createResourceMetadataService, issuerUrlProblem, openIssuerKeySet, openTrustedIssuer,
  protectedResourceMetadata, requireBearer, resourceMetadataUrl, type TrustedIssuer,
} from '../auth/index.ts';
import type { ResolvedValues } from '../config/index.ts';
import { ToolgraphError } from '../errors/index.ts';
import { GRAPH_SCOPES } from '../graph/dispatch/index.ts';
import type { HttpService } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { createOAuthProxyService, upstreamAuthorizationServer, type UpstreamAuthorizationServer } from '../tools/index.ts';

export interface ServeBearerAuth {
  /**
   * Every service behind bearer authentication, plus the protected resource metadata service
   * (open, like /healthz) and, for the proxy auth types, the OAuth proxy (open: it is how clients
   * get a token). `publicBaseUrl` is TOOLGRAPH_PUBLIC_URL or the bound origin.
   */
  protect(services: readonly HttpService[], publicBaseUrl: string): HttpService[];
  close(): void;
}

export type BearerAuthSettings = Pick<ResolvedValues,
  'authType' | 'oidcConfigUrl' | 'tokenAudience' | 'oidcClientId' | 'oidcClientSecret' |
  'oauthAuthorizationEndpoint' | 'oauthTokenEndpoint' | 'oauthIssuer' | 'oauthJwksUri'>;

/** TOKEN_AUDIENCE, or the public base URL without a trailing slash (`https://h/` and `https://h` are one resource). */
export function tokenAudienceOf(values: Pick<ResolvedValues, 'tokenAudience'>, publicBaseUrl: string): string {
  return values.tokenAudience ?? publicBaseUrl.replace(/\/+$/, '');
}

/**
 * The IdP whose tokens are accepted. Through discovery at OIDC_CONFIG_URL; for oauth-proxy without
 * it, from OAUTH_ISSUER and the key set at OAUTH_JWKS_URI (config validation requires one or the other).
 */
async function trustedIssuerOf(values: BearerAuthSettings, logger: Logger): Promise<TrustedIssuer> {
  if (values.oidcConfigUrl !== undefined) return openTrustedIssuer(values.oidcConfigUrl, { logger });
  const issuer = values.oauthIssuer as string;
  const jwksUri = values.oauthJwksUri as string;
  const problem = issuerUrlProblem(jwksUri);
  if (problem !== undefined) throw new ToolgraphError('TG_CONFIG_INVALID', `OAUTH_JWKS_URI ${jwksUri} ${problem}.`, { details: { setting: 'oauthJwksUri' } });
  const keys = await openIssuerKeySet(jwksUri, { logger });
  return { metadata: { issuer, jwksUri, document: {} }, keys, close: () => keys.close() };
}

/**
 * Layer 1 of the tool server, and of every other service of the process, by AUTH_TYPE:
 * - `none`: no token (undefined here);
 * - `jwt`: verify bearer JWTs against the IdP's keys (issuer, audience TOKEN_AUDIENCE, …);
 * - `remote`: the same verification; the protected resource metadata names the real authorization
 *   server, where clients get their tokens;
 * - `oidc-proxy` / `oauth-proxy`: the same verification, and this server is also an OAuth
 *   authorization server in front of the IdP (dynamic client registration, PKCE, consent), which
 *   the metadata names instead: clients that speak only dynamic registration sign in through it.
 * Discovery and the IdP's keys load now: an unreachable IdP fails start-up.
 */
export async function openServeBearerAuth(values: BearerAuthSettings, logger: Logger): Promise<ServeBearerAuth | undefined> {
  if (values.authType === 'none') return undefined;
  const issuer = await trustedIssuerOf(values, logger);
  const proxy = values.authType === 'oidc-proxy' || values.authType === 'oauth-proxy';
  let upstream: UpstreamAuthorizationServer | undefined;
  try {
    if (proxy) {
      upstream = upstreamAuthorizationServer({
        document: values.oidcConfigUrl === undefined ? undefined : issuer.metadata.document,
        issuer: issuer.metadata.issuer,
        authorizationEndpoint: values.oauthAuthorizationEndpoint,
        tokenEndpoint: values.oauthTokenEndpoint,
        openid: values.authType === 'oidc-proxy',
        clientId: values.oidcClientId as string,
        clientSecret: values.oidcClientSecret,
      });
    }
  } catch (error) {
    issuer.close();
    throw error;
  }
  logger.info({ authType: values.authType, keys: issuer.keys.getKey.jwks()?.keys.length ?? 0 }, 'token authentication on: every service needs a verified access token');
  return {
    protect(services, publicBaseUrl) {
      const audience = tokenAudienceOf(values, publicBaseUrl);
      const authenticator = createBearerAuthenticator({ issuer, audience, resourceMetadataUrl: resourceMetadataUrl(publicBaseUrl) });
      const protectedServices = services.map((service) => requireBearer(service, authenticator, logger));
      if (upstream === undefined) {
        const metadata = protectedResourceMetadata({ resource: audience, issuer: issuer.metadata.issuer, scopesSupported: GRAPH_SCOPES });
        return [...protectedServices, createResourceMetadataService(metadata)];
      }
      const verify = createAccessTokenVerifier({ issuer: issuer.metadata.issuer, audience, getKey: issuer.keys.getKey });
      const { service } = createOAuthProxyService({
        upstream,
        publicBase: publicBaseUrl,
        resource: audience,
        resourceName: 'toolgraph',
        verify,
        logger,
        scopesSupported: GRAPH_SCOPES,
      });
      // The authorization server clients sign in at is this one (the SDK's metadata names it with a trailing slash for an origin).
      const metadata = protectedResourceMetadata({ resource: audience, issuer: new URL(publicBaseUrl).href, scopesSupported: GRAPH_SCOPES });
      return [...protectedServices, createResourceMetadataService(metadata), service];
    },
    close: () => issuer.close(),
  };
}

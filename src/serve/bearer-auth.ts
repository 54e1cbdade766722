import type { IncomingMessage, ServerResponse } from 'node:http';
import { createAccessTokenVerifier, createBearerAuthenticator, createResourceMetadataService, issuerUrlProblem, loadInBackground, openIssuerKeySet, openTrustedIssuer, PROTECTED_RESOURCE_METADATA_PATH, protectedResourceMetadata, requireBearer, resourceMetadataUrl, type BearerAuthenticator, type Pending, type TrustedIssuer, type VerifiedTokenCacheStats } from '../auth/index.ts';
import type { ResolvedValues } from '../config/index.ts';
import { ToolgraphError } from '../errors/index.ts';
import { sendError, type HttpService } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { GRAPH_SCOPES } from '../principal/index.ts';
import type { StateStore } from '../state/index.ts';
import { createOAuthProxyService, upstreamAuthorizationServer, type UpstreamAuthorizationServer } from '../tools/index.ts';

export interface ServeBearerAuth {
  /**
   * Every service behind bearer authentication, plus the protected resource metadata service
   * (open, like /healthz) and, for the proxy auth types, the OAuth proxy (open: it is how clients
   * get a token). `publicBaseUrl` is TOOLGRAPH_PUBLIC_URL or the bound origin. Until the IdP's
   * discovery and keys have loaded, each answers 503 TG_NOT_READY with Retry-After.
   */
  protect(services: readonly HttpService[], publicBaseUrl: string): HttpService[];
  /** While discovery or the keys have not loaded: what the process waits for (for /healthz). */
  waiting(): string | undefined;
  /** Resolves once the IdP's discovery and keys have loaded. */
  readonly ready: Promise<void>;
  /** The verified-token cache's hits and misses (zero until the IdP has loaded and a request came). */
  tokenCacheStats(): VerifiedTokenCacheStats;
  close(): void;
}

export type BearerAuthSettings = Pick<ResolvedValues,
  'authType' | 'oidcConfigUrl' | 'tokenAudience' | 'oidcClientId' | 'oidcClientSecret' |
  'oauthAuthorizationEndpoint' | 'oauthTokenEndpoint' | 'oauthIssuer' | 'oauthJwksUri'> & Partial<Pick<ResolvedValues, 'idpRetryMaxMs' | 'oauthMaxClients' | 'cimdAllowPrivateAddresses' | 'cimdFetchTimeoutMs' | 'cimdMaxBytes' | 'cimdCaFile'>>;

export interface ServeBearerAuthOptions {
  /** Where the OAuth proxy keeps its clients, sign-ins, codes and refresh-token owners (shared by replicas). */
  readonly state?: StateStore;
}

/** TOKEN_AUDIENCE, or the public base URL without a trailing slash (`https://h/` and `https://h` are one resource). */
export function tokenAudienceOf(values: Pick<ResolvedValues, 'tokenAudience'>, publicBaseUrl: string): string {
  return values.tokenAudience ?? publicBaseUrl.replace(/\/+$/, '');
}

/** The IdP as loaded: whose tokens are accepted, and (proxy auth types) where users sign in. */
interface IdentityProvider {
  readonly issuer: TrustedIssuer;
  readonly upstream: UpstreamAuthorizationServer | undefined;
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

async function identityProviderOf(values: BearerAuthSettings, logger: Logger): Promise<IdentityProvider> {
  const issuer = await trustedIssuerOf(values, logger);
  if (values.authType !== 'oidc-proxy' && values.authType !== 'oauth-proxy') return { issuer, upstream: undefined };
  try {
    const upstream = upstreamAuthorizationServer({
      document: values.oidcConfigUrl === undefined ? undefined : issuer.metadata.document,
      issuer: issuer.metadata.issuer,
      authorizationEndpoint: values.oauthAuthorizationEndpoint,
      tokenEndpoint: values.oauthTokenEndpoint,
      openid: values.authType === 'oidc-proxy',
      clientId: values.oidcClientId as string,
      clientSecret: values.oidcClientSecret,
    });
    return { issuer, upstream };
  } catch (error) {
    issuer.close();
    throw error;
  }
}

const NO_CACHE_USE: VerifiedTokenCacheStats = Object.freeze({ hits: 0, misses: 0 });

/** Seconds a client is asked to wait while the IdP is not reached yet. */
const NOT_READY_RETRY_AFTER = '2';

function notReady(res: ServerResponse, waiting: string): void {
  sendError(res, new ToolgraphError('TG_NOT_READY', `toolgraph cannot verify access tokens yet: it is waiting for ${waiting}; retry in a moment.`, {
    details: { status: 'starting', waitingFor: 'idp' },
  }), { 'retry-after': NOT_READY_RETRY_AFTER });
}

/**
 * `service` answered 503 TG_NOT_READY with Retry-After until the IdP has loaded, then the service
 * `realOf` builds from it (once).
 */
function untilLoaded(shape: Pick<HttpService, 'name' | 'prefixes' | 'entryPath'>, idp: Pending<IdentityProvider>, realOf: (loaded: IdentityProvider) => HttpService, closeable?: HttpService): HttpService {
  let real: HttpService | undefined;
  return {
    name: shape.name,
    prefixes: shape.prefixes,
    entryPath: shape.entryPath,
    handle(req: IncomingMessage, res: ServerResponse) {
      if (real === undefined) {
        const loaded = idp.current();
        if (loaded === undefined) {
          notReady(res, idp.waiting() ?? 'the identity provider');
          return;
        }
        real = realOf(loaded);
      }
      return real.handle(req, res);
    },
    ...(closeable?.close ? { close: () => closeable.close?.() ?? Promise.resolve() } : {}),
  };
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
 * Discovery and the IdP's keys are tried once now; when the IdP cannot be reached the process
 * starts anyway, retries in the background with capped backoff (TOOLGRAPH_IDP_RETRY_MAX_MS, a log
 * line per attempt), answers requests that need a token with 503 TG_NOT_READY and Retry-After, and
 * becomes ready once they load. A configuration error (a document without a needed endpoint, an
 * insecure URL) still stops start-up.
 */
export async function openServeBearerAuth(values: BearerAuthSettings, logger: Logger, options: ServeBearerAuthOptions = {}): Promise<ServeBearerAuth | undefined> {
  if (values.authType === 'none') return undefined;
  const idp = await loadInBackground(() => identityProviderOf(values, logger), {
    what: values.oidcConfigUrl !== undefined ? `OIDC discovery and the key set of OIDC_CONFIG_URL ${values.oidcConfigUrl}` : `the key set at OAUTH_JWKS_URI ${values.oauthJwksUri ?? ''}`,
    logger,
    ...(values.idpRetryMaxMs === undefined ? {} : { maxDelayMs: values.idpRetryMaxMs }),
    fatal: (error) => (error as { code?: string }).code === 'TG_CONFIG_INVALID',
    dispose: (loaded) => loaded.issuer.close(),
  });
  const loaded = idp.current();
  if (loaded !== undefined) {
    logger.info({ authType: values.authType, keys: loaded.issuer.keys.getKey.jwks()?.keys.length ?? 0 }, 'token authentication on: every service needs a verified access token');
  }
  const proxy = values.authType === 'oidc-proxy' || values.authType === 'oauth-proxy';
  let authenticator: BearerAuthenticator | undefined;
  return {
    protect(services, publicBaseUrl) {
      const audience = tokenAudienceOf(values, publicBaseUrl);
      const metadataUrl = resourceMetadataUrl(publicBaseUrl);
      const authenticatorOf = ({ issuer }: IdentityProvider) => (authenticator ??= createBearerAuthenticator({ issuer, audience, resourceMetadataUrl: metadataUrl }));
      const protectedServices = services.map((service) => untilLoaded(service, idp, (found) => requireBearer(service, authenticatorOf(found), logger), service));
      const metadataShape = { name: 'metadata', prefixes: [PROTECTED_RESOURCE_METADATA_PATH], entryPath: PROTECTED_RESOURCE_METADATA_PATH };
      if (!proxy) {
        const metadata = untilLoaded(metadataShape, idp, ({ issuer }) => createResourceMetadataService(protectedResourceMetadata({ resource: audience, issuer: issuer.metadata.issuer, scopesSupported: GRAPH_SCOPES })));
        return [...protectedServices, metadata];
      }
      const upstream = (): UpstreamAuthorizationServer => {
        const found = idp.current()?.upstream;
        if (found === undefined) throw new ToolgraphError('TG_NOT_READY', `The identity provider is not reached yet (${idp.waiting() ?? 'starting'}); retry in a moment.`);
        return found;
      };
      const verify = async (token: string) => {
        const found = idp.current();
        if (found === undefined) throw new ToolgraphError('TG_NOT_READY', 'Access tokens cannot be verified yet: the identity provider is not reached.');
        return createAccessTokenVerifier({ issuer: found.issuer.metadata.issuer, audience, getKey: found.issuer.keys.getKey })(token);
      };
      const { service } = createOAuthProxyService({
        upstream,
        ...(options.state ? { state: options.state } : {}),
        publicBase: publicBaseUrl,
        resource: audience,
        resourceName: 'toolgraph',
        verify,
        logger,
        scopesSupported: GRAPH_SCOPES,
        ...(values.oauthMaxClients === undefined ? {} : { maxClients: values.oauthMaxClients }),
        clientMetadataDocuments: {
          ...(values.cimdAllowPrivateAddresses === undefined ? {} : { allowPrivateAddresses: values.cimdAllowPrivateAddresses }),
          ...(values.cimdFetchTimeoutMs === undefined ? {} : { timeoutMs: values.cimdFetchTimeoutMs }),
          ...(values.cimdMaxBytes === undefined ? {} : { maxBytes: values.cimdMaxBytes }),
          ...(values.cimdCaFile === undefined ? {} : { caFile: values.cimdCaFile }),
        },
      });
      // The authorization server clients sign in at is this one (the SDK's metadata names it with a trailing slash for an origin).
      const metadata = createResourceMetadataService(protectedResourceMetadata({ resource: audience, issuer: new URL(publicBaseUrl).href, scopesSupported: GRAPH_SCOPES }));
      return [...protectedServices, untilLoaded(metadata, idp, () => metadata), untilLoaded(service, idp, () => service)];
    },
    waiting: () => idp.waiting(),
    tokenCacheStats: () => authenticator?.cacheStats ?? NO_CACHE_USE,
    ready: idp.ready.then(() => undefined),
    close: () => {
      idp.close();
      idp.current()?.issuer.close();
    },
  };
}

import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { ToolgraphError } from '../../errors/index.ts';
import { inClientSpan } from '../../observability/tracing/index.ts';
import { describeOAuthFailure, oauthConfiguration, type AuthorizationServer, type OAuthClientIdentity, type OAuthClientOptions, rememberOpaqueToken } from '../client-flows/index.ts';

/** RFC 8693 §2.1 grant type and §3 token type identifiers. */
const TOKEN_EXCHANGE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/**
 * The fix for each delegation error, as the spec gives it, and for a missing token how to get one (in
 * `details.fix`, at the end of a tool error's text, and in docs/delegation.md).
 */
export const DELEGATION_FIXES = {
  TG_NO_USER_TOKEN: 'Start the server with --auth-type oidc-proxy, send Authorization: Bearer <token>, and pass --enable-delegation. '
    + 'The token is an access token from the identity provider (OIDC_CONFIG_URL): an MCP client gets one by signing in through the server (oidc-proxy), '
    + 'a script by the device-code or client-credentials flow; `npm run dev:idp` starts a local test IdP and prints some.',
  TG_NO_TOKEN_ENDPOINT: 'Set OIDC_CONFIG_URL (--oidc-config-url, config key oidc_config_url) to the IdP\'s discovery document; its token_endpoint is read at start-up.',
  TG_TOKEN_EXCHANGE_FAILED: 'Check the client id and secret (OIDC_CLIENT_ID, OIDC_CLIENT_SECRET), that the IdP allows this client the token-exchange grant, that the audience is a service registered at the IdP, and the scopes.',
} as const;

interface ExchangeRequest {
  /** The caller's access token (RFC 8693 `subject_token`). Never logged. */
  readonly subjectToken: string;
  /** RFC 8693 `audience`: the downstream API's identifier at the IdP. */
  readonly audience: string;
  /** Space-separated scopes (RFC 8693 `scope`). */
  readonly scopes: string;
}

export interface DelegatedToken {
  readonly accessToken: string;
  /** As the IdP wrote it, e.g. `Bearer`. */
  readonly tokenType: string;
  /** Epoch ms; undefined when the IdP gave no `expires_in`. */
  readonly expiresAt: number | undefined;
  readonly scope: string | undefined;
  readonly issuedTokenType: string | undefined;
}

export interface TokenExchanger {
  /** Undefined while discovery has found none (every exchange then fails with TG_NO_TOKEN_ENDPOINT). */
  readonly tokenEndpoint: string | undefined;
  exchange(request: ExchangeRequest): Promise<DelegatedToken>;
}

export interface TokenExchangerOptions {
  readonly timeoutMs?: number | undefined;
  readonly fetch?: typeof fetch | undefined;
  /**
   * The IdP found by discovery; undefined when OIDC_CONFIG_URL was not set. A function when
   * discovery may still be under way (retried in the background): it answers undefined until then.
   */
  readonly server: AuthorizationServer | undefined | (() => AuthorizationServer | undefined);
  /** While `server` answers undefined: why (discovery not resolved yet), for the error's details. */
  readonly unresolved?: () => string | undefined;
  readonly client: OAuthClientIdentity;
  readonly now?: (() => number) | undefined;
}

function noTokenEndpoint(reason: string): ToolgraphError {
  return new ToolgraphError('TG_NO_TOKEN_ENDPOINT', 'No token_endpoint configured', {
    details: { reason, fix: DELEGATION_FIXES.TG_NO_TOKEN_ENDPOINT },
  });
}

/**
 * RFC 8693 token exchange through openid-client's `genericGrantRequest`: the caller's token goes
 * as `subject_token` with the downstream `audience` and `scope`; the answer is the delegated token.
 * A 400/401 from the IdP is `Token exchange failed (HTTP 400/401)` with the IdP's reason; an IdP
 * that cannot be reached or answers otherwise is TG_TOKEN_EXCHANGE_FAILED saying so.
 */
export function createTokenExchanger(options: TokenExchangerOptions): TokenExchanger {
  const now = options.now ?? Date.now;
  const clientOptions: OAuthClientOptions = { ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }), ...(options.fetch === undefined ? {} : { fetch: options.fetch }) };
  const serverOf = typeof options.server === 'function' ? options.server : () => options.server as AuthorizationServer | undefined;
  let config: oidc.Configuration | undefined;
  let tokenEndpoint: string | undefined;
  /** The client configuration, built once discovery has found a token endpoint. */
  const configured = (): oidc.Configuration | undefined => {
    if (config !== undefined) return config;
    const server = serverOf();
    if (server?.tokenEndpoint === undefined) return undefined;
    tokenEndpoint = server.tokenEndpoint;
    return (config = oauthConfiguration(server, options.client, clientOptions));
  };
  const missing = (): string => {
    const server = serverOf();
    if (server !== undefined) return `the discovery document of ${server.issuer} names no token_endpoint`;
    return options.unresolved?.() ?? 'OIDC_CONFIG_URL is not set, so there is no discovery document to read a token_endpoint from';
  };
  return {
    get tokenEndpoint() {
      configured();
      return tokenEndpoint;
    },
    exchange(request) {
      // A client span (the IdP is called); its attributes are none of the request's: the subject
      // token never, and the audience and scopes are in the exchange's own log lines when needed.
      return inClientSpan('token exchange', undefined, () => exchange(request));
    },
  };

  async function exchange(request: ExchangeRequest): Promise<DelegatedToken> {
    const config = configured();
    if (!config) throw noTokenEndpoint(missing());
    const sentAt = now();
    let answer: Awaited<ReturnType<typeof oidc.genericGrantRequest>>;
    try {
      answer = await oidc.genericGrantRequest(config, TOKEN_EXCHANGE_GRANT_TYPE, {
        subject_token: request.subjectToken,
        subject_token_type: ACCESS_TOKEN_TYPE,
        requested_token_type: ACCESS_TOKEN_TYPE,
        audience: request.audience,
        scope: request.scopes,
      });
    } catch (error) {
      throw exchangeFailed(error, request, tokenEndpoint as string);
    }
    rememberOpaqueToken(answer.access_token);
    const expiresIn = answer.expires_in;
    return Object.freeze({
      accessToken: answer.access_token,
      // openid-client lowercases token_type; RFC 6750 writes the scheme `Bearer`.
      tokenType: answer.token_type === 'bearer' ? 'Bearer' : answer.token_type,
      // Counted from when the request was sent, so the token is never thought fresher than it is.
      expiresAt: typeof expiresIn === 'number' ? sentAt + expiresIn * 1000 : jwtExpiry(answer.access_token),
      scope: answer.scope,
      issuedTokenType: typeof answer['issued_token_type'] === 'string' ? answer['issued_token_type'] : undefined,
    });
  }
}

function exchangeFailed(error: unknown, request: ExchangeRequest, tokenEndpoint: string): ToolgraphError {
  const failure = describeOAuthFailure(error);
  const details = { status: failure.status ?? null, error: failure.error ?? null, audience: request.audience, scopes: request.scopes, tokenEndpoint, fix: DELEGATION_FIXES.TG_TOKEN_EXCHANGE_FAILED };
  if (failure.status === 400 || failure.status === 401) {
    return new ToolgraphError('TG_TOKEN_EXCHANGE_FAILED', `Token exchange failed (HTTP 400/401): the IdP answered ${failure.reason} for audience ${JSON.stringify(request.audience)} and scopes ${JSON.stringify(request.scopes)}. ${DELEGATION_FIXES.TG_TOKEN_EXCHANGE_FAILED}`, { details, cause: error });
  }
  return new ToolgraphError('TG_TOKEN_EXCHANGE_FAILED', `Token exchange failed: the token endpoint ${tokenEndpoint} ${failure.status === undefined ? `did not answer the exchange: ${failure.reason}` : `answered ${failure.reason}`}.`, { details, cause: error });
}

/** A JWT's `exp` in epoch ms, for an IdP that leaves `expires_in` out; undefined for opaque tokens. */
function jwtExpiry(token: string): number | undefined {
  try {
    const exp = decodeJwt(token).exp;
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

import * as oidc from 'openid-client';
import { ToolgraphError } from '../../errors/index.ts';
import { scrubString } from '../../log/index.ts';
import { LoopbackCallbackServer, type LoopbackCallbackOptions } from './loopback-callback.ts';
import { describeOAuthFailure } from './oauth-failure.ts';
import { tokenSetFromResponse, type TokenSet } from './token-set.ts';

/** What the user's browser is sent to, and what the callback must match. Never log `codeVerifier`. */
export interface AuthorizationRequest {
  /** The authorization URL: endpoint, client_id, redirect_uri, scope, PKCE (S256) and state. */
  readonly url: string;
  readonly state: string;
  readonly codeVerifier: string;
  readonly redirectUri: string;
  readonly resource: string | undefined;
}

export interface AuthorizationRequestOptions {
  readonly redirectUri: string;
  readonly scopes: readonly string[];
  /** RFC 8707 resource indicator: the API the access token is for. */
  readonly resource?: string | undefined;
}

/**
 * The three-legged authorization URL (the spec's outbound call): `authorization_endpoint` with
 * `client_id`, `redirect_uri` and `scope`, plus PKCE S256 (RFC 7636) and a random `state`, which
 * protect the code from interception and the callback from forgery. Asking for `offline_access` (a
 * refresh token) also sends `prompt=consent`: OpenID Connect Core §11 has the provider ignore
 * offline_access otherwise, and standard IdPs (oidc-provider's default policy) then issue no refresh
 * token, so the token set would die with its first access token.
 */
export async function buildAuthorizationRequest(config: oidc.Configuration, options: AuthorizationRequestOptions): Promise<AuthorizationRequest> {
  if (!config.serverMetadata().authorization_endpoint) {
    throw new ToolgraphError('TG_CONFIG_INVALID', `the provider ${config.serverMetadata().issuer} has no authorization_endpoint: give its discovery URL, or --authorization-endpoint`, { details: { issuer: config.serverMetadata().issuer } });
  }
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const parameters: Record<string, string> = {
    redirect_uri: options.redirectUri,
    scope: options.scopes.join(' '),
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
  };
  if (options.scopes.includes('offline_access')) parameters['prompt'] = 'consent';
  if (options.resource !== undefined) parameters['resource'] = options.resource;
  return Object.freeze({ url: oidc.buildAuthorizationUrl(config, parameters).href, state, codeVerifier, redirectUri: options.redirectUri, resource: options.resource });
}

export interface CodeExchangeOptions {
  readonly agent: string;
  readonly now?: () => number;
}

/**
 * The code exchange (the spec's outbound call: token_endpoint, client_id, client_secret, code,
 * redirect_uri) for the callback URL the browser brought back. The state and PKCE verifier must match
 * the request; an `error` in the callback (the user denied) is TG_AUTHORIZATION_FAILED.
 */
export async function exchangeAuthorizationCode(config: oidc.Configuration, request: AuthorizationRequest, callbackUrl: URL, options: CodeExchangeOptions): Promise<TokenSet> {
  const params = callbackUrl.searchParams;
  if (params.get('state') !== request.state) {
    throw new ToolgraphError('TG_AUTHORIZATION_FAILED', 'the callback\'s state does not match the authorization request\'s: a stale or forged redirect. Start the sign-in again.', { details: { agent: options.agent } });
  }
  const error = params.get('error');
  if (error !== null) {
    const description = params.get('error_description');
    throw new ToolgraphError('TG_AUTHORIZATION_FAILED', `the provider did not authorize agent ${options.agent}: ${scrubString(error).slice(0, 100)}${description ? ` (${scrubString(description).slice(0, 300)})` : ''}`, { details: { agent: options.agent, error } });
  }
  const now = options.now ?? Date.now;
  const sentAt = now();
  let answer: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
  try {
    answer = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: request.codeVerifier, expectedState: request.state }, {
      redirect_uri: request.redirectUri,
      ...(request.resource === undefined ? {} : { resource: request.resource }),
    });
  } catch (cause) {
    const failure = describeOAuthFailure(cause);
    throw new ToolgraphError('TG_AUTHORIZATION_FAILED', `the provider refused the authorization code of agent ${options.agent}: ${failure.reason}`, { details: { agent: options.agent, status: failure.status ?? null, error: failure.error ?? null }, cause });
  }
  const server = config.serverMetadata();
  return tokenSetFromResponse(answer, { agent: options.agent, flow: 'authorization_code', issuer: server.issuer, clientId: config.clientMetadata().client_id, resource: request.resource, sentAt });
}

export interface LoopbackSignInOptions extends LoopbackCallbackOptions, CodeExchangeOptions {
  readonly scopes: readonly string[];
  readonly resource?: string | undefined;
  /** How long to wait for the browser; default 300000 ms. */
  readonly timeoutMs?: number;
  /** Called once the callback server listens, with the URL the user must open. */
  readonly onAuthorizationUrl: (url: string, redirectUri: string) => void | Promise<void>;
}

/**
 * The whole loopback flow: the callback server on 127.0.0.1 (port 56121 by default), the
 * authorization URL handed to the user, the browser's redirect, the code exchange, and an answer page
 * for the browser saying how it went. Returns the token set; storing it is the caller's.
 */
export async function signInWithLoopback(config: oidc.Configuration, options: LoopbackSignInOptions): Promise<TokenSet> {
  const callback = await LoopbackCallbackServer.start(options);
  try {
    const request = await buildAuthorizationRequest(config, { redirectUri: callback.redirectUri, scopes: options.scopes, resource: options.resource });
    const arrived = callback.wait(request.state, options.timeoutMs ?? 300_000);
    await options.onAuthorizationUrl(request.url, callback.redirectUri);
    const redirect = await arrived;
    try {
      const set = await exchangeAuthorizationCode(config, request, redirect.url, options);
      redirect.respond(true, `toolgraph: agent ${options.agent} is signed in. You can close this tab.`);
      return set;
    } catch (error) {
      redirect.respond(false, `toolgraph: ${(error as Error).message}`);
      throw error;
    }
  } finally {
    await callback.close();
  }
}

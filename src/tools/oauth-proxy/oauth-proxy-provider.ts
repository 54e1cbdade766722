import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Request, Response } from 'express';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidGrantError, InvalidTargetError, ServerError, TooManyRequestsError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { ToolgraphError } from '../../errors/index.ts';
import type { Logger } from '../../log/index.ts';
import type { Principal } from '../../principal/index.ts';
import { MemoryStateStore, type StateStore } from '../../state/index.ts';
import { ClientMetadataDocuments, isMetadataDocumentClientId } from './client-metadata-document.ts';
import { consentPage } from './consent-page.ts';
import type { UpstreamAuthorizationServer } from './upstream-authorization-server.ts';

/** Paths the proxy serves besides the SDK router's (/authorize, /token, /register, metadata). */
export const CONSENT_PATH = '/oauth/consent';
export const CALLBACK_PATH = '/oauth/callback';
const CONSENT_COOKIE = 'tg_oauth_consent';

/** The store's spaces of the proxy's state, and how long each entry lives. */
const OAUTH_PROXY_SPACES = {
  clients: 'oauth-clients',
  awaitingConsent: 'oauth-consent',
  awaitingIdp: 'oauth-signin',
  codes: 'oauth-codes',
  refreshOwners: 'oauth-refresh',
} as const;
/** Dynamically registered clients, and which client each refresh token belongs to, are kept 30 days. */
const OAUTH_CLIENT_TTL_MS = 30 * 24 * 3600_000;
const CODE_TTL_MS = 60_000;

export interface OAuthProxyOptions {
  /**
   * The identity provider, once discovery has found it; throws TG_NOT_READY while it has not (the
   * proxy then answers 503 with Retry-After rather than send a browser nowhere).
   */
  readonly upstream: () => UpstreamAuthorizationServer;
  /**
   * Where registrations, sign-ins in progress, codes and refresh-token ownership live: the
   * configured state store, so they survive a restart and every replica shares them. An in-process
   * store when omitted.
   */
  readonly state?: StateStore;
  /** The proxy's public base URL (its issuer); the callback registered at the IdP is `<it>/oauth/callback`. */
  readonly publicBase: string;
  /** TOKEN_AUDIENCE: the resource every token is requested for, whatever a client asks. */
  readonly resource: string;
  readonly resourceName: string;
  /** Verifies an access token as the bearer layer does (for the SDK's revocation and introspection uses). */
  readonly verify: (token: string) => Promise<{ principal: Principal; expiresAt: number }>;
  readonly logger: Logger;
  /** Sign-ins waiting for consent or for the IdP: how long one may take. Default 10 minutes. */
  readonly signInTtlMs?: number;
  /** TOOLGRAPH_OAUTH_MAX_CLIENTS: most clients registered at once, over every replica. Default 10,000. */
  readonly maxClients?: number;
  /** How client ID metadata documents (an https URL as client_id) are fetched: the TOOLGRAPH_CIMD_* settings. */
  readonly clientMetadataDocuments?: ClientMetadataDocumentFetching;
  readonly fetch?: typeof fetch;
}

interface ClientMetadataDocumentFetching {
  /** TOOLGRAPH_CIMD_ALLOW_PRIVATE_ADDRESSES (tests only). Default false. */
  readonly allowPrivateAddresses?: boolean;
  /** TOOLGRAPH_CIMD_FETCH_TIMEOUT_MS. Default 5,000. */
  readonly timeoutMs?: number;
  /** TOOLGRAPH_CIMD_MAX_BYTES. Default 5,120 (the draft's 5 KiB). */
  readonly maxBytes?: number;
  /** TOOLGRAPH_CIMD_CA_FILE: a PEM file of certificates trusted besides Node's roots, read at start-up. */
  readonly caFile?: string;
}

function readCaFile(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ToolgraphError('TG_CONFIG_INVALID', `TOOLGRAPH_CIMD_CA_FILE ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`, {
      details: { setting: 'cimdCaFile' }, cause: error,
    });
  }
}

interface SignIn {
  readonly clientId: string;
  readonly clientName: string;
  readonly redirectUri: string;
  readonly state: string | undefined;
  /** The MCP client's PKCE challenge, checked by the SDK's token handler against its verifier. */
  readonly codeChallenge: string;
  readonly scopes: readonly string[];
  readonly csrf: string;
  /** The proxy's own PKCE verifier towards the IdP. */
  upstreamVerifier?: string;
}

interface IssuedCode {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly tokens: OAuthTokens;
}

const random = () => randomBytes(32).toString('base64url');
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const withoutSlash = (s: string) => s.replace(/\/+$/, '');

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/** `redirectUri` with `params` added to its query (an OAuth answer to the client). */
function answerUrl(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  return url.href;
}

function page(res: Response, status: number, title: string, text: string): void {
  const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  res.status(status).set({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
    .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>\n`);
}

/**
 * An OAuth authorization server for MCP clients in front of an identity provider that knows only
 * one client, this proxy's (OIDC_CLIENT_ID). It is the SDK's `OAuthServerProvider`, served by
 * `mcpAuthRouter`; the SDK's `ProxyOAuthServerProvider` does not fit, since it forwards each MCP
 * client's own id and redirect URI to the IdP, which has never heard of them.
 *
 * 1. A client registers here (dynamic client registration, kept 30 days in the state store), or
 *    its client_id is the https URL of its client ID metadata document, fetched when it comes.
 * 2. /authorize (checked by the SDK: client, redirect URI, S256 PKCE) shows this proxy's consent
 *    page; the user approves (POST /oauth/consent, bound to the browser by a cookie).
 * 3. The browser goes to the IdP with the proxy's client id, its own PKCE, the callback
 *    /oauth/callback, and `resource` = TOKEN_AUDIENCE.
 * 4. The callback exchanges the IdP's code (client secret and verifier) and hands the client a
 *    one-time code of its own; at /token the SDK checks the client's PKCE verifier against the
 *    challenge it sent in step 2, and the client receives the IdP's tokens, whose audience is this
 *    server. Refresh tokens are exchanged at the IdP with the proxy's credentials.
 * Every step's state is in the state store, never only in this process: behind a round-robin load
 * balancer each step may reach another replica, and a restart between two steps loses nothing.
 * One-time values (consents, sign-ins at the IdP, codes) are taken atomically, so of two replicas
 * racing on one, exactly one proceeds.
 */
export class OAuthProxyProvider implements OAuthServerProvider {
  readonly skipLocalPkceValidation = false;
  readonly #options: OAuthProxyOptions;
  readonly #state: StateStore;
  readonly #signInTtlMs: number;
  readonly #fetch: typeof fetch;
  readonly #secureCookies: boolean;
  readonly #documents: ClientMetadataDocuments;

  constructor(options: OAuthProxyOptions) {
    this.#options = options;
    this.#state = options.state ?? new MemoryStateStore();
    this.#signInTtlMs = options.signInTtlMs ?? 10 * 60_000;
    this.#fetch = options.fetch ?? fetch;
    this.#secureCookies = new URL(options.publicBase).protocol === 'https:';
    const fetching = options.clientMetadataDocuments ?? {};
    const ca = readCaFile(fetching.caFile);
    this.#documents = new ClientMetadataDocuments({
      allowPrivateAddresses: fetching.allowPrivateAddresses ?? false,
      timeoutMs: fetching.timeoutMs ?? 5_000,
      maxBytes: fetching.maxBytes ?? 5_120,
      ...(ca === undefined ? {} : { ca }),
      logger: options.logger,
    });
  }

  get callbackUrl(): string {
    return `${withoutSlash(this.#options.publicBase)}${CALLBACK_PATH}`;
  }

  get clientsStore(): OAuthRegisteredClientsStore {
    return {
      getClient: async (clientId) => {
        // A client ID metadata document: the client is what its URL serves (fetched, checked, cached per process).
        if (isMetadataDocumentClientId(clientId)) return this.#documents.resolve(clientId);
        return clientId.length > 0 && clientId.length <= 256 ? this.#state.get<OAuthClientInformationFull>(OAUTH_PROXY_SPACES.clients, clientId) : undefined;
      },
      registerClient: async (client) => {
        const full = client as OAuthClientInformationFull;
        // Registration is open (RFC 7591) and a registration lives 30 days: without a cap, the store
        // would grow with whatever a client sends. Counted over the shared store, so across replicas.
        const max = this.#options.maxClients ?? 10_000;
        if (await this.#state.count(OAUTH_PROXY_SPACES.clients) >= max) {
          this.#options.logger.warn({ max, setting: 'TOOLGRAPH_OAUTH_MAX_CLIENTS' }, 'OAuth proxy: registration refused, the proxy holds its most clients');
          throw new TooManyRequestsError(`This authorization server holds its most registered clients (${max}, TOOLGRAPH_OAUTH_MAX_CLIENTS); registrations expire 30 days after they are made, retry later.`);
        }
        await this.#state.set(OAUTH_PROXY_SPACES.clients, full.client_id, full, OAUTH_CLIENT_TTL_MS);
        this.#options.logger.info({ clientId: full.client_id, clientName: full.client_name }, 'OAuth proxy: client registered');
        return full;
      },
    };
  }

  /** Step 2: the consent page (the SDK has checked the client, redirect URI and PKCE parameters). */
  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    if (params.resource !== undefined && withoutSlash(params.resource.href) !== withoutSlash(this.#options.resource)) {
      throw new InvalidTargetError(`This server issues tokens for the resource ${this.#options.resource} only.`);
    }
    const transaction = random();
    const csrf = random();
    const signIn: SignIn = {
      clientId: client.client_id,
      clientName: client.client_name ?? client.client_id,
      redirectUri: params.redirectUri,
      state: params.state,
      codeChallenge: params.codeChallenge,
      scopes: (params.scopes ?? []).filter((s) => s !== ''),
      csrf,
    };
    await this.#state.set(OAUTH_PROXY_SPACES.awaitingConsent, transaction, signIn, this.#signInTtlMs);
    res.cookie(CONSENT_COOKIE, csrf, { httpOnly: true, sameSite: 'lax', secure: this.#secureCookies, path: '/oauth', maxAge: this.#signInTtlMs });
    res.status(200).set({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-frame-options': 'DENY',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    }).send(consentPage({
      resourceName: this.#options.resourceName,
      clientName: client.client_name ?? client.client_id,
      clientId: client.client_id,
      redirectUri: params.redirectUri,
      scopes: params.scopes ?? [],
      action: CONSENT_PATH,
      transaction,
      csrf,
    }));
  }

  /** POST /oauth/consent: the user's decision; approval sends the browser to the IdP. */
  async consent(req: Request, res: Response): Promise<void> {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const transaction = typeof body['transaction'] === 'string' && body['transaction'].length <= 256 ? body['transaction'] : '';
    const signIn = transaction === '' ? undefined : await this.#state.get<SignIn>(OAUTH_PROXY_SPACES.awaitingConsent, transaction);
    if (signIn === undefined) {
      page(res, 400, 'This sign-in has expired', 'Start the sign-in again from your application.');
      return;
    }
    // The decision must come from the browser the page was shown to: its cookie and the form agree.
    const cookie = cookieValue(req.headers.cookie, CONSENT_COOKIE) ?? '';
    const csrf = typeof body['csrf'] === 'string' ? body['csrf'] : '';
    if (!sameSecret(cookie, signIn.csrf) || !sameSecret(csrf, signIn.csrf)) {
      page(res, 403, 'This sign-in was not started in this browser', 'Start the sign-in again from your application, in this browser.');
      return;
    }
    // One decision per sign-in: of two racing posts (two replicas), one takes it.
    if (await this.#state.take(OAUTH_PROXY_SPACES.awaitingConsent, transaction) === undefined) {
      page(res, 400, 'This sign-in has expired', 'Start the sign-in again from your application.');
      return;
    }
    res.clearCookie(CONSENT_COOKIE, { path: '/oauth' });
    if (body['decision'] !== 'approve') {
      this.#options.logger.info({ clientId: signIn.clientId }, 'OAuth proxy: sign-in denied by the user');
      res.redirect(302, answerUrl(signIn.redirectUri, { error: 'access_denied', error_description: 'The user denied the request.', state: signIn.state }));
      return;
    }
    const upstream = this.#options.upstream();
    const verifier = random();
    const upstreamState = random();
    await this.#state.set(OAUTH_PROXY_SPACES.awaitingIdp, upstreamState, { ...signIn, upstreamVerifier: verifier }, this.#signInTtlMs);
    const url = new URL(upstream.authorizationEndpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', upstream.clientId);
    url.searchParams.set('redirect_uri', this.callbackUrl);
    url.searchParams.set('state', upstreamState);
    url.searchParams.set('code_challenge', s256(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('resource', this.#options.resource);
    const scopes = this.#upstreamScopes(signIn.scopes);
    // The proxy refreshes its clients' tokens at the IdP, so it asks for a refresh token where the IdP
    // offers one; OpenID Connect Core §11 makes offline_access count only with prompt=consent.
    if (this.#options.upstream().scopesSupported?.includes('offline_access') && !scopes.includes('offline_access')) scopes.push('offline_access');
    if (scopes.includes('offline_access')) url.searchParams.set('prompt', 'consent');
    if (scopes.length > 0) url.searchParams.set('scope', scopes.join(' '));
    res.redirect(302, url.href);
  }

  /** The scopes asked of the IdP: the client's, less those the IdP does not announce; `openid` for an OpenID provider. */
  #upstreamScopes(requested: readonly string[]): string[] {
    const { scopesSupported, openid } = this.#options.upstream();
    const kept = scopesSupported === undefined ? [...requested] : requested.filter((s) => scopesSupported.includes(s));
    return [...new Set(openid ? ['openid', ...kept] : kept)];
  }

  /** GET /oauth/callback: the IdP's answer. Its code is exchanged here; the client gets a code of ours. */
  async callback(req: Request, res: Response): Promise<void> {
    const query = req.query as Record<string, unknown>;
    const state = typeof query['state'] === 'string' && query['state'].length <= 256 ? query['state'] : '';
    const signIn = state === '' ? undefined : await this.#state.take<SignIn>(OAUTH_PROXY_SPACES.awaitingIdp, state);
    if (signIn === undefined) {
      page(res, 400, 'Unknown or expired sign-in', 'The identity provider answered a sign-in this server does not know (or one that took too long). Start again from your application.');
      return;
    }
    const fail = (error: string, description: string) => res.redirect(302, answerUrl(signIn.redirectUri, { error, error_description: description, state: signIn.state }));
    if (typeof query['error'] === 'string') {
      this.#options.logger.info({ clientId: signIn.clientId, error: query['error'] }, 'OAuth proxy: the identity provider refused the sign-in');
      const known = ['access_denied', 'invalid_scope', 'temporarily_unavailable', 'server_error', 'login_required', 'consent_required', 'interaction_required'];
      fail(known.includes(query['error']) ? query['error'] : 'server_error', `The identity provider answered ${query['error']}.`);
      return;
    }
    const code = typeof query['code'] === 'string' ? query['code'] : undefined;
    if (code === undefined) {
      fail('server_error', 'The identity provider answered without a code.');
      return;
    }
    let tokens: OAuthTokens;
    try {
      tokens = await this.#tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: this.callbackUrl, code_verifier: signIn.upstreamVerifier ?? '' });
    } catch (error) {
      this.#options.logger.warn({ clientId: signIn.clientId, reason: (error as Error).message }, 'OAuth proxy: exchanging the identity provider\'s code failed');
      fail('server_error', (error as Error).message);
      return;
    }
    const ours = random();
    const issued: IssuedCode = { clientId: signIn.clientId, redirectUri: signIn.redirectUri, codeChallenge: signIn.codeChallenge, tokens };
    await this.#state.set(OAUTH_PROXY_SPACES.codes, ours, issued, CODE_TTL_MS);
    this.#options.logger.info({ clientId: signIn.clientId }, 'OAuth proxy: sign-in completed');
    res.redirect(302, answerUrl(signIn.redirectUri, { code: ours, state: signIn.state }));
  }

  async challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    const issued = await this.#code(code, 'get');
    if (issued === undefined || issued.clientId !== client.client_id) throw new InvalidGrantError('The authorization code is unknown, used or expired, or was issued to another client.');
    return issued.codeChallenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string, _verifier?: string, redirectUri?: string): Promise<OAuthTokens> {
    const issued = await this.#code(code, 'take');
    if (issued === undefined || issued.clientId !== client.client_id) throw new InvalidGrantError('The authorization code is unknown, used or expired, or was issued to another client.');
    if (redirectUri !== undefined && redirectUri !== issued.redirectUri) throw new InvalidGrantError('redirect_uri differs from the one the code was issued for.');
    await this.#rememberRefresh(issued.tokens, client.client_id);
    return issued.tokens;
  }

  /** A code of ours, read or redeemed (taken atomically: of racing redemptions one gets the tokens). */
  async #code(code: string, how: 'get' | 'take'): Promise<IssuedCode | undefined> {
    if (code.length === 0 || code.length > 256) return undefined;
    return how === 'get' ? this.#state.get<IssuedCode>(OAUTH_PROXY_SPACES.codes, code) : this.#state.take<IssuedCode>(OAUTH_PROXY_SPACES.codes, code);
  }

  /**
   * Refresh tokens are the IdP's, bound there to the proxy's client; here each is bound to the MCP
   * client it was handed to (in the state store, so every replica and a restarted one know it). One
   * this server did not hand out, or handed to another client, is refused: the client signs in again.
   */
  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, scopes?: string[]): Promise<OAuthTokens> {
    const key = s256(refreshToken);
    if (await this.#state.get<string>(OAUTH_PROXY_SPACES.refreshOwners, key) !== client.client_id) throw new InvalidGrantError('The refresh token was not issued to this client by this server; sign in again.');
    const scope = scopes === undefined ? undefined : this.#upstreamScopes(scopes).join(' ');
    const tokens = await this.#tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken, ...(scope ? { scope } : {}) });
    if (tokens.refresh_token !== undefined && tokens.refresh_token !== refreshToken) await this.#state.delete(OAUTH_PROXY_SPACES.refreshOwners, key);
    await this.#rememberRefresh(tokens, client.client_id);
    return tokens;
  }

  async #rememberRefresh(tokens: OAuthTokens, clientId: string): Promise<void> {
    if (tokens.refresh_token !== undefined) await this.#state.set(OAUTH_PROXY_SPACES.refreshOwners, s256(tokens.refresh_token), clientId, OAUTH_CLIENT_TTL_MS);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const { principal, expiresAt } = await this.#options.verify(token);
    const claims = principal.claims ?? {};
    const clientId = claims['client_id'] ?? claims['azp'];
    return { token, clientId: typeof clientId === 'string' ? clientId : principal.subject, scopes: [...principal.scopes], expiresAt };
  }

  /** A token request at the IdP with the proxy's client credentials; its refusal is an OAuth error without the IdP's body. */
  async #tokenRequest(params: Record<string, string>): Promise<OAuthTokens> {
    const upstream = this.#options.upstream();
    const form = new URLSearchParams({ ...params, resource: this.#options.resource });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (upstream.clientSecret === undefined) form.set('client_id', upstream.clientId);
    else headers['authorization'] = `Basic ${Buffer.from(`${encodeURIComponent(upstream.clientId)}:${encodeURIComponent(upstream.clientSecret)}`).toString('base64')}`;
    let response: globalThis.Response;
    try {
      response = await this.#fetch(upstream.tokenEndpoint, { method: 'POST', headers, body: form, signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      throw new ServerError(`The identity provider's token endpoint could not be reached (${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name}).`);
    }
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok || typeof body['access_token'] !== 'string') {
      const error = typeof body['error'] === 'string' ? ` ${body['error']}` : '';
      if (response.status === 400 && params['grant_type'] === 'refresh_token') throw new InvalidGrantError(`The identity provider refused the refresh token (HTTP 400${error}).`);
      throw new ServerError(`The identity provider refused the token request (HTTP ${response.status}${error}).`);
    }
    const tokens: OAuthTokens = { access_token: body['access_token'], token_type: typeof body['token_type'] === 'string' ? body['token_type'] : 'Bearer' };
    if (typeof body['expires_in'] === 'number') tokens.expires_in = body['expires_in'];
    if (typeof body['refresh_token'] === 'string') tokens.refresh_token = body['refresh_token'];
    if (typeof body['scope'] === 'string') tokens.scope = body['scope'];
    if (typeof body['id_token'] === 'string') tokens.id_token = body['id_token'];
    return tokens;
  }
}

import { randomBytes, randomUUID } from 'node:crypto';
import * as oidc from 'openid-client';
import { ToolgraphError } from '../../errors/index.ts';
import { scrubString } from '../../log/index.ts';
import type { StateStore } from '../../state/index.ts';
import { consentKey, type Caller } from './caller-token-sets.ts';
import { carriesBinding, clearConsentCookie, newConsentBinding, setConsentCookie, type ConsentCookieScope } from './consent-cookie.ts';
import { describeOAuthFailure } from './oauth-failure.ts';
import { buildAuthorizationRequest, exchangeAuthorizationCode } from './three-legged.ts';
import type { TokenSet } from './token-set.ts';

/** Consent links handed to callers and not opened yet, by the link's random id. */
const CONSENT_STARTS_SPACE = 'consent-starts';
/** Browsers sent to the SSO IdP to prove who they are, by that sign-in's `state`. */
const CONSENT_SIGN_INS_SPACE = 'consent-sign-ins';
/** Browsers sent to the agent's provider to consent, by the authorization request's `state`. */
const CONSENT_REQUESTS_SPACE = 'consent-requests';
/** Which consent link a caller was last given for an agent, so retries show the same link. */
const CONSENT_OF_CALLER_SPACE = 'consent-of-caller';
/** How long a consent link stays good by default (TOOLGRAPH_CONSENT_LINK_TTL_SECS): the whole flow must finish within it. */
const CONSENT_REQUEST_TTL_MS = 10 * 60_000;

/** Where the consent routes are, as browsers reach them (under TOOLGRAPH_PUBLIC_URL), and how the binding cookie is scoped. */
export interface ConsentRoutes {
  /** `…/agents/oauth/start`: the link a caller is given. */
  readonly startUrl: string;
  /** `…/agents/oauth/signed-in`: the SSO IdP's redirect back (register it for OIDC_CLIENT_ID). */
  readonly signedInUrl: string;
  /** `…/agents/oauth/callback`: the agent's provider's redirect back (register it for the agent's client). */
  readonly callbackUrl: string;
  readonly cookie: ConsentCookieScope;
}

/** Whose consent, for which agent, asking for what; and how long the link lasts. */
interface ConsentAsked {
  readonly agent: string;
  readonly issuer: string;
  readonly subject: string;
  readonly scopes: readonly string[];
  readonly resource: string | null;
  readonly elicitationId: string;
  /** Epoch ms: the end of the whole flow. */
  readonly expiresAt: number;
}

/** The binding cookie as the store knows it: its name and the SHA-256 of its value, never the value. */
interface StoredBinding {
  readonly name: string;
  readonly hash: string;
}

/** A browser sent to the SSO IdP. Holds the sign-in's PKCE verifier and nonce: never log them. */
interface PendingSignIn {
  readonly asked: ConsentAsked;
  readonly binding: StoredBinding;
  readonly state: string;
  readonly codeVerifier: string;
  readonly nonce: string;
}

/** A browser sent to the agent's provider. Holds the PKCE verifier: never log it. */
interface PendingConsent {
  readonly asked: ConsentAsked;
  readonly binding: StoredBinding;
  readonly state: string;
  readonly codeVerifier: string;
  readonly redirectUri: string;
  readonly url: string;
}

/** What the caller is told: where to consent. */
export interface ConsentPrompt {
  readonly agent: string;
  /** The consent link (`…/agents/oauth/start?consent=…`): good once, for this caller's own browser. */
  readonly url: string;
  /** Identifies this consent in MCP URL-mode elicitation. */
  readonly elicitationId: string;
  readonly expiresInSeconds: number;
}

/** The browser's next step: where to go, and the cookie to set or clear on the way. */
export interface ConsentStep {
  readonly agent: string;
  readonly location: string;
  readonly setCookie?: string;
}

export interface ConsentRequestsOptions {
  readonly state: StateStore;
  readonly routes: ConsentRoutes;
  /** How long a link lasts, start to callback (ms); default 10 minutes. */
  readonly ttlMs?: number;
  readonly now?: () => number;
}

/** The tool error of a call that needs the caller's consent first: the link in the text, and in `details` for the MCP and REST layers. */
export function consentRequired(prompt: ConsentPrompt, provider: string): ToolgraphError {
  return new ToolgraphError('TG_CONSENT_REQUIRED', `Agent ${prompt.agent} needs your consent at ${provider}: open ${prompt.url} in your own browser, sign in as yourself and allow access (within ${within(prompt.expiresInSeconds * 1000)}), then call the tool again. The link is good once, for you only.`, {
    details: { agent: prompt.agent, authorizationUrl: prompt.url, elicitationId: prompt.elicitationId, expiresInSeconds: prompt.expiresInSeconds },
  });
}

/** A duration as a person reads it: seconds under two minutes, else minutes. */
function within(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  return seconds < 120 ? `${seconds} seconds` : `${Math.round(seconds / 60)} minutes`;
}

function linkInvalid(step: string, ttlMs: number): ToolgraphError {
  return new ToolgraphError('TG_CONSENT_LINK_INVALID', `This consent link (${step}) was already used, has expired (links last ${within(ttlMs)}), or was not issued by this server; nothing was stored. Call the tool again for a new link.`, { details: { step } });
}

function bindingFailed(agent: string, sent: boolean): ToolgraphError {
  return new ToolgraphError('TG_CONSENT_BINDING_FAILED', `This browser did not start the consent to agent ${agent}: ${sent ? 'its consent cookie does not match' : 'it carries no consent cookie'}. Nothing was stored. Open the link the tool answered in your own browser, and finish there.`, { details: { agent } });
}

/** The redirect as it was addressed (behind a proxy the request URL may differ): `redirectUri` with the query the browser brought. */
function redirectedTo(redirectUri: string, arrived: URL): URL {
  const url = new URL(redirectUri);
  url.search = arrived.search;
  return url;
}

/**
 * Three-legged consent per caller, bound to the caller's own browser. A caller without a consent is
 * given a link to this server's start route, not the provider's authorization URL:
 *
 * 1. **start** (`?consent=<id>`): takes the link (once, on any replica: links live in the state
 *    store), sets an HttpOnly binding cookie whose SHA-256 is stored with the flow, and sends the
 *    browser to the SSO IdP (OIDC authorization code, PKCE S256, nonce) to prove who it is;
 * 2. **signed-in**: takes that sign-in by its `state`, requires the binding cookie, exchanges the
 *    code and checks the ID token's issuer and subject are the caller's who asked; only then sends
 *    the browser to the agent's provider (PKCE S256, `state`, `prompt=consent` with offline_access);
 * 3. **callback**: takes that request by its `state`, requires the same cookie, exchanges the code
 *    with that request's verifier: the caller the link was issued to gets the token set.
 *
 * So a link forwarded or stolen is worthless to anyone who cannot sign in as the caller, and a
 * provider URL lured into someone else's browser (login CSRF) lacks the cookie. Every entry is taken
 * atomically (one use) and expires with the link; refusals store nothing.
 */
export class ConsentRequests {
  readonly #state: StateStore;
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly routes: ConsentRoutes;

  constructor(options: ConsentRequestsOptions) {
    this.#state = options.state;
    this.#now = options.now ?? Date.now;
    this.#ttlMs = options.ttlMs ?? CONSENT_REQUEST_TTL_MS;
    this.routes = options.routes;
  }

  /** The consent link for `caller`: the one still open for this agent, or a new one. */
  async prompt(agent: string, caller: Caller, request: { scopes: readonly string[]; resource: string | undefined }): Promise<ConsentPrompt> {
    const now = this.#now();
    const pointer = consentKey(agent, caller);
    const open = await this.#state.get<string>(CONSENT_OF_CALLER_SPACE, pointer);
    if (open !== undefined) {
      const asked = await this.#state.get<ConsentAsked>(CONSENT_STARTS_SPACE, open);
      // Enough time left to sign in (a minute, or half a short link's life), or a fresh link.
      if (asked !== undefined && asked.expiresAt - now > Math.min(60_000, this.#ttlMs / 2)) return this.#promptOf(open, asked, now);
    }
    const id = randomBytes(32).toString('base64url');
    const asked: ConsentAsked = {
      agent, issuer: caller.issuer, subject: caller.subject, scopes: [...request.scopes], resource: request.resource ?? null, elicitationId: randomUUID(), expiresAt: now + this.#ttlMs,
    };
    await this.#state.set(CONSENT_STARTS_SPACE, id, asked, this.#ttlMs);
    await this.#state.set(CONSENT_OF_CALLER_SPACE, pointer, id, this.#ttlMs);
    return this.#promptOf(id, asked, now);
  }

  /**
   * Step 1, the link opened: takes it (once), binds the browser by a new cookie and sends it to the
   * SSO IdP. `sso` is toolgraph's own client there (OIDC_CLIENT_ID).
   */
  async start(startUrl: URL, sso: oidc.Configuration): Promise<ConsentStep> {
    const id = startUrl.searchParams.get('consent');
    const asked = id === null || id === '' ? undefined : await this.#state.take<ConsentAsked>(CONSENT_STARTS_SPACE, id);
    const left = asked === undefined ? 0 : asked.expiresAt - this.#now();
    if (asked === undefined || left <= 0) throw linkInvalid('start', this.#ttlMs);
    // The next tool call gets a new link: this one is spent.
    await this.#state.delete(CONSENT_OF_CALLER_SPACE, consentKey(asked.agent, { issuer: asked.issuer, subject: asked.subject }));
    const binding = newConsentBinding();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const signIn: PendingSignIn = { asked, binding: { name: binding.name, hash: binding.hash }, state: oidc.randomState(), codeVerifier, nonce: oidc.randomNonce() };
    await this.#state.set(CONSENT_SIGN_INS_SPACE, signIn.state, signIn, left);
    const location = oidc.buildAuthorizationUrl(sso, {
      redirect_uri: this.routes.signedInUrl,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state: signIn.state,
      nonce: signIn.nonce,
    }).href;
    return { agent: asked.agent, location, setCookie: setConsentCookie(binding, this.routes.cookie, left / 1000) };
  }

  /**
   * Step 2, the SSO IdP's redirect back: the browser must carry the cookie of step 1, and the user
   * signed in must be the caller the link was issued to (same issuer and subject). Then the browser
   * is sent to the agent's provider (`provider`: the agent's OAuth client there).
   */
  async signedIn(arrived: URL, cookieHeader: string | undefined, sso: oidc.Configuration, providerFor: (agent: string) => Promise<oidc.Configuration>): Promise<ConsentStep> {
    const state = arrived.searchParams.get('state');
    const signIn = state === null || state === '' ? undefined : await this.#state.take<PendingSignIn>(CONSENT_SIGN_INS_SPACE, state);
    const left = signIn === undefined ? 0 : signIn.asked.expiresAt - this.#now();
    if (signIn === undefined || left <= 0) throw linkInvalid('sign-in', this.#ttlMs);
    const { asked } = signIn;
    if (!carriesBinding(cookieHeader, signIn.binding)) throw bindingFailed(asked.agent, cookieHeader?.includes(signIn.binding.name) ?? false);
    const error = arrived.searchParams.get('error');
    if (error !== null) {
      throw new ToolgraphError('TG_AUTHORIZATION_FAILED', `the sign-in at the identity provider did not complete: ${scrubString(error).slice(0, 100)}. Call the tool again for a new link.`, { details: { agent: asked.agent, error } });
    }
    let claims: oidc.IDToken | undefined;
    try {
      const answer = await oidc.authorizationCodeGrant(sso, redirectedTo(this.routes.signedInUrl, arrived), {
        pkceCodeVerifier: signIn.codeVerifier, expectedState: signIn.state, expectedNonce: signIn.nonce, idTokenExpected: true,
      }, { redirect_uri: this.routes.signedInUrl });
      claims = answer.claims();
    } catch (cause) {
      const failure = describeOAuthFailure(cause);
      throw new ToolgraphError('TG_AUTHORIZATION_FAILED', `the identity provider refused the sign-in that proves who consents: ${failure.reason}. Call the tool again for a new link.`, { details: { agent: asked.agent, status: failure.status ?? null, error: failure.error ?? null }, cause });
    }
    if (claims === undefined || claims.iss !== asked.issuer || claims.sub !== asked.subject) {
      throw new ToolgraphError('TG_CONSENT_SUBJECT_MISMATCH', `You signed in as someone other than the caller this consent link was issued to, so it cannot be used here; nothing was stored. The caller who asked must open the link in their own browser, signed in as themselves.`, { details: { agent: asked.agent } });
    }
    const request = await buildAuthorizationRequest(await providerFor(asked.agent), { redirectUri: this.routes.callbackUrl, scopes: asked.scopes, resource: asked.resource ?? undefined });
    const pending: PendingConsent = { asked, binding: signIn.binding, state: request.state, codeVerifier: request.codeVerifier, redirectUri: request.redirectUri, url: request.url };
    await this.#state.set(CONSENT_REQUESTS_SPACE, pending.state, pending, left);
    return { agent: asked.agent, location: request.url };
  }

  /**
   * Step 3, the provider's redirect back: takes the request its `state` names (once), requires the
   * browser's binding cookie, and exchanges the code with that request's verifier. Refusals store
   * nothing; the caller the consent belongs to comes back with the token set.
   */
  async complete(arrived: URL, cookieHeader: string | undefined, configFor: (agent: string) => Promise<oidc.Configuration>): Promise<{ set: TokenSet; caller: Caller; clearCookie: string }> {
    const state = arrived.searchParams.get('state');
    const pending = state === null || state === '' ? undefined : await this.#state.take<PendingConsent>(CONSENT_REQUESTS_SPACE, state);
    if (pending === undefined || pending.asked.expiresAt <= this.#now()) throw linkInvalid('callback', this.#ttlMs);
    const { asked } = pending;
    if (!carriesBinding(cookieHeader, pending.binding)) throw bindingFailed(asked.agent, cookieHeader?.includes(pending.binding.name) ?? false);
    const set = await exchangeAuthorizationCode(await configFor(asked.agent), {
      url: pending.url, state: pending.state, codeVerifier: pending.codeVerifier, redirectUri: pending.redirectUri, resource: asked.resource ?? undefined,
    }, redirectedTo(pending.redirectUri, arrived), { agent: asked.agent, now: this.#now });
    return { set, caller: { issuer: asked.issuer, subject: asked.subject }, clearCookie: clearConsentCookie(pending.binding.name, this.routes.cookie) };
  }

  #promptOf(id: string, asked: ConsentAsked, now: number): ConsentPrompt {
    const url = new URL(this.routes.startUrl);
    url.searchParams.set('consent', id);
    return { agent: asked.agent, url: url.href, elicitationId: asked.elicitationId, expiresInSeconds: Math.max(0, Math.round((asked.expiresAt - now) / 1000)) };
  }
}

import { randomUUID } from 'node:crypto';
import type * as oidc from 'openid-client';
import { ToolgraphError } from '../errors/index.ts';
import type { StateStore } from '../state/index.ts';
import { consentKey, type Caller } from './caller-token-sets.ts';
import { buildAuthorizationRequest, exchangeAuthorizationCode } from './three-legged.ts';
import type { TokenSet } from './token-set.ts';

/** The state-store space of consents asked for and not yet given, by the authorization request's `state`. */
export const CONSENT_REQUESTS_SPACE = 'consent-requests';
/** Which consent request a caller was last given for an agent, so retries show the same URL. */
const CONSENT_OF_CALLER_SPACE = 'consent-of-caller';
/** How long an authorization URL handed to a caller stays good. */
export const CONSENT_REQUEST_TTL_MS = 10 * 60_000;

/** A consent asked for: everything the callback needs, on whichever replica it lands. Holds the PKCE verifier: never log it. */
interface PendingConsent {
  readonly agent: string;
  readonly issuer: string;
  readonly subject: string;
  readonly state: string;
  readonly codeVerifier: string;
  readonly redirectUri: string;
  readonly resource: string | null;
  readonly url: string;
  readonly elicitationId: string;
  /** Epoch ms. */
  readonly expiresAt: number;
}

/** What the caller is told: where to consent. */
export interface ConsentPrompt {
  readonly agent: string;
  readonly url: string;
  /** Identifies this consent in MCP URL-mode elicitation. */
  readonly elicitationId: string;
  readonly expiresInSeconds: number;
}

export interface ConsentRequestsOptions {
  readonly state: StateStore;
  /** This server's callback route as the provider redirects browsers to it (under TOOLGRAPH_PUBLIC_URL). */
  readonly callbackUrl: string;
  readonly now?: () => number;
}

/** The tool error of a call that needs the caller's consent first: the URL in the text, and in `details` for the MCP and REST layers. */
export function consentRequired(prompt: ConsentPrompt, provider: string): ToolgraphError {
  return new ToolgraphError('TG_CONSENT_REQUIRED', `Agent ${prompt.agent} needs your consent at ${provider}: open ${prompt.url} in a browser, sign in and allow access (within ${Math.round(prompt.expiresInSeconds / 60)} minutes), then call the tool again.`, {
    details: { agent: prompt.agent, authorizationUrl: prompt.url, elicitationId: prompt.elicitationId, expiresInSeconds: prompt.expiresInSeconds },
  });
}

/**
 * Three-legged consent per caller, served by this server's own callback route: the authorization URL
 * a caller without a consent is given (PKCE S256, a random `state`, prompt=consent with
 * offline_access), and the callback that completes it. The request is kept in the state store under
 * its `state`, bound to the caller who asked, so the callback completes it on any replica, once (the
 * entry is taken atomically), for that caller only: the code is exchanged with that request's PKCE
 * verifier, which never left the server.
 */
export class ConsentRequests {
  readonly #state: StateStore;
  readonly #now: () => number;
  readonly callbackUrl: string;

  constructor(options: ConsentRequestsOptions) {
    this.#state = options.state;
    this.#now = options.now ?? Date.now;
    this.callbackUrl = options.callbackUrl;
  }

  /** The consent prompt for `caller`: the one still open for this agent, or a new one. */
  async prompt(agent: string, caller: Caller, config: oidc.Configuration, request: { scopes: readonly string[]; resource: string | undefined }): Promise<ConsentPrompt> {
    const now = this.#now();
    const open = await this.#state.get<string>(CONSENT_OF_CALLER_SPACE, consentKey(agent, caller));
    if (open !== undefined) {
      const pending = await this.#state.get<PendingConsent>(CONSENT_REQUESTS_SPACE, open);
      // At least a minute left, or a fresh URL: the user needs time to sign in.
      if (pending !== undefined && pending.expiresAt - now > 60_000) return promptOf(pending, now);
    }
    const built = await buildAuthorizationRequest(config, { redirectUri: this.callbackUrl, scopes: request.scopes, resource: request.resource });
    const pending: PendingConsent = {
      agent, issuer: caller.issuer, subject: caller.subject, state: built.state, codeVerifier: built.codeVerifier,
      redirectUri: built.redirectUri, resource: built.resource ?? null, url: built.url, elicitationId: randomUUID(), expiresAt: now + CONSENT_REQUEST_TTL_MS,
    };
    await this.#state.set(CONSENT_REQUESTS_SPACE, pending.state, pending, CONSENT_REQUEST_TTL_MS);
    await this.#state.set(CONSENT_OF_CALLER_SPACE, consentKey(agent, caller), pending.state, CONSENT_REQUEST_TTL_MS);
    return promptOf(pending, now);
  }

  /**
   * The provider's redirect to the callback route: takes the request its `state` names (once), and
   * exchanges the code with that request's verifier. Refusals are TG_AUTHORIZATION_FAILED saying
   * what to do; the caller the consent belongs to comes back with the token set.
   */
  async complete(callbackUrl: URL, configFor: (agent: string) => Promise<oidc.Configuration>): Promise<{ set: TokenSet; caller: Caller }> {
    const state = callbackUrl.searchParams.get('state');
    const pending = state === null || state === '' ? undefined : await this.#state.take<PendingConsent>(CONSENT_REQUESTS_SPACE, state);
    if (pending === undefined) {
      throw new ToolgraphError('TG_AUTHORIZATION_FAILED', `This sign-in link was already used, has expired (links last ${CONSENT_REQUEST_TTL_MS / 60_000} minutes), or was not issued by this server. Call the tool again for a new one.`);
    }
    const caller = { issuer: pending.issuer, subject: pending.subject };
    await this.#state.delete(CONSENT_OF_CALLER_SPACE, consentKey(pending.agent, caller));
    // The redirect as the provider addressed it (behind a proxy the request URL may differ): openid-client
    // sends the redirect URI the callback URL names.
    const redirected = new URL(pending.redirectUri);
    redirected.search = callbackUrl.search;
    const set = await exchangeAuthorizationCode(await configFor(pending.agent), {
      url: pending.url, state: pending.state, codeVerifier: pending.codeVerifier, redirectUri: pending.redirectUri, resource: pending.resource ?? undefined,
    }, redirected, { agent: pending.agent, now: this.#now });
    return { set, caller };
  }
}

function promptOf(pending: PendingConsent, now: number): ConsentPrompt {
  return { agent: pending.agent, url: pending.url, elicitationId: pending.elicitationId, expiresInSeconds: Math.max(0, Math.round((pending.expiresAt - now) / 1000)) };
}

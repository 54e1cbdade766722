import type * as oidc from 'openid-client';
import { isToolgraphError, ToolgraphError } from '../../errors/index.ts';
import { silentLogger, type Logger } from '../../log/index.ts';
import type { StateStore } from '../../state/index.ts';
import type { RequestContext } from '../resource-server/index.ts';
import { tokenSetFromJson, tokenSetToJson } from './token-set-json.ts';
import { refreshTokenSet } from './token-set-refresh.ts';
import { tokenSetUsableUntil, type TokenSet } from './token-set.ts';

/** The state-store space of per-caller token sets. */
export const TOKEN_SETS_SPACE = 'token-sets';
/** Held by the replica refreshing one caller's token set, so a rotating refresh token is spent once. */
const REFRESH_LOCK_SPACE = 'token-set-refresh';
/** How long a refresh may hold its lock; another replica waits at most this long for the rotated set. */
const REFRESH_LOCK_MS = 30_000;
/**
 * How long a caller's token set is kept when the provider does not say how long its refresh token
 * lives (`refresh_expires_in`): 30 days, renewed by each refresh. A provider that has revoked it
 * sooner refuses the refresh, and the caller is asked to consent again.
 */
const DEFAULT_TOKEN_SET_TTL_MS = 30 * 24 * 3600_000;

/** Whose consent: the verified token's issuer and subject (a subject is unique only within its issuer). */
export interface Caller {
  readonly issuer: string;
  readonly subject: string;
}

export function callerOf(context: RequestContext): Caller {
  const issuer = context.principal.claims?.['iss'];
  return { issuer: typeof issuer === 'string' ? issuer : '', subject: context.principal.subject };
}

/** The state-store key of a caller's consent to an agent. */
export function consentKey(agent: string, caller: Caller): string {
  return JSON.stringify([agent, caller.issuer, caller.subject]);
}

export interface CallerTokenSetsOptions {
  readonly state: StateStore;
  readonly now?: () => number;
  readonly logger?: Logger;
  /** How often a replica waiting for another's refresh looks again (ms); default 100. */
  readonly pollMs?: number;
}

/**
 * Three-legged token sets per (agent, caller), in the configured state store (a file under the data
 * dir, or the PostgreSQL table every replica shares), so a consent belongs to the caller who gave it,
 * survives a restart and serves every replica. A set is refreshed when it expires, one refresh at a
 * time per set: in this process by sharing the refresh in flight, across replicas by a lock in the
 * store (the others wait for the rotated set), so a refresh token is never spent twice. A set whose
 * refresh is refused is removed: the caller is asked to consent again.
 */
export class CallerTokenSets {
  readonly #state: StateStore;
  readonly #now: () => number;
  readonly #logger: Logger;
  readonly #pollMs: number;
  readonly #refreshing = new Map<string, Promise<TokenSet | undefined>>();
  /** Refreshes this process completed (tests and diagnostics). */
  refreshes = 0;

  constructor(options: CallerTokenSetsOptions) {
    this.#state = options.state;
    this.#now = options.now ?? Date.now;
    this.#logger = (options.logger ?? silentLogger()).child({ component: 'token-sets' });
    this.#pollMs = options.pollMs ?? 100;
  }

  async load(agent: string, caller: Caller): Promise<TokenSet | undefined> {
    const raw = await this.#state.get<unknown>(TOKEN_SETS_SPACE, consentKey(agent, caller));
    if (raw === undefined) return undefined;
    try {
      return tokenSetFromJson(raw, `the stored consent to agent ${agent}`, 'the caller is asked to consent again');
    } catch (error) {
      // A damaged entry is worth nothing: drop it, and the caller consents again.
      this.#logger.warn({ agent, reason: isToolgraphError(error) ? error.message : 'unreadable' }, 'dropped a damaged per-caller token set');
      await this.remove(agent, caller);
      return undefined;
    }
  }

  async save(set: TokenSet, caller: Caller): Promise<void> {
    await this.#state.set(TOKEN_SETS_SPACE, consentKey(set.agent, caller), tokenSetToJson(set), this.#ttlOf(set));
  }

  async remove(agent: string, caller: Caller): Promise<void> {
    await this.#state.delete(TOKEN_SETS_SPACE, consentKey(agent, caller));
  }

  /** Kept as long as its refresh token lives; without one, as long as its access token. */
  #ttlOf(set: TokenSet): number {
    const now = this.#now();
    const until = set.refreshToken !== undefined ? set.refreshExpiresAt ?? now + DEFAULT_TOKEN_SET_TTL_MS : set.expiresAt ?? now + DEFAULT_TOKEN_SET_TTL_MS;
    return Math.max(60_000, until - now);
  }

  /**
   * The caller's usable token set for `agent`, refreshed when it is about to expire; undefined when
   * the caller never consented, or the consent is gone (refresh refused).
   */
  async current(agent: string, caller: Caller, client: () => Promise<oidc.Configuration>): Promise<TokenSet | undefined> {
    const key = consentKey(agent, caller);
    const inFlight = this.#refreshing.get(key);
    if (inFlight) return inFlight;
    const set = await this.load(agent, caller);
    if (set === undefined || this.#now() < tokenSetUsableUntil(set)) return set;
    const again = this.#refreshing.get(key);
    if (again) return again;
    const refreshing = this.#refresh(set, caller, key, client).finally(() => this.#refreshing.delete(key));
    this.#refreshing.set(key, refreshing);
    return refreshing;
  }

  async #refresh(set: TokenSet, caller: Caller, key: string, client: () => Promise<oidc.Configuration>): Promise<TokenSet | undefined> {
    const agent = set.agent;
    if (!(await this.#state.add(REFRESH_LOCK_SPACE, key, true, REFRESH_LOCK_MS))) return this.#awaitOtherRefresh(set, caller, key);
    try {
      // Another replica may have refreshed between our read and our lock.
      const latest = await this.load(agent, caller);
      if (latest === undefined) return undefined;
      if (this.#now() < tokenSetUsableUntil(latest)) return latest;
      let fresh: TokenSet;
      try {
        fresh = await refreshTokenSet(await client(), latest, { signInHint: 'call the tool again and consent at the URL it answers', now: this.#now });
      } catch (error) {
        if (!isToolgraphError(error) || error.code !== 'TG_AUTHORIZATION_FAILED') throw error;
        this.#logger.info({ agent, reason: error.message }, 'a caller\'s consent can no longer be refreshed: it is removed, and the caller is asked again');
        await this.remove(agent, caller);
        return undefined;
      }
      await this.save(fresh, caller);
      this.refreshes += 1;
      this.#logger.info({ agent, expiresInSeconds: fresh.expiresAt === undefined ? null : Math.round((fresh.expiresAt - this.#now()) / 1000) }, 'refreshed a caller\'s token set');
      return fresh;
    } finally {
      await this.#state.delete(REFRESH_LOCK_SPACE, key);
    }
  }

  /** Another replica holds the refresh: wait (in real time) for the set it stores. */
  async #awaitOtherRefresh(stale: TokenSet, caller: Caller, key: string): Promise<TokenSet | undefined> {
    const deadline = Date.now() + REFRESH_LOCK_MS;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, this.#pollMs));
      const seen = await this.load(stale.agent, caller);
      if (seen === undefined) return undefined;
      if (seen.accessToken !== stale.accessToken && this.#now() < tokenSetUsableUntil(seen)) return seen;
      if ((await this.#state.get(REFRESH_LOCK_SPACE, key)) === undefined) break;
    }
    const seen = await this.load(stale.agent, caller);
    if (seen !== undefined && this.#now() < tokenSetUsableUntil(seen)) return seen;
    throw new ToolgraphError('TG_DOWNSTREAM_FAILED', `the token of agent ${stale.agent} is being refreshed by another replica, which did not finish within ${REFRESH_LOCK_MS / 1000} s; call again`, { details: { agent: stale.agent } });
  }
}

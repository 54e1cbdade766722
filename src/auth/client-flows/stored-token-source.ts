import type * as oidc from 'openid-client';
import { ToolgraphError } from '../../errors/index.ts';
import { silentLogger, type Logger } from '../../log/index.ts';
import { refreshTokenSet } from './token-set-refresh.ts';
import { tokenSetUsableUntil, type TokenSet } from './token-set.ts';
import type { TokenSetStore } from './token-set-store.ts';

export interface StoredTokenSourceOptions {
  readonly store: TokenSetStore;
  readonly agent: string;
  /** The client allowed to refresh the set: built on first need (discovery may run then). */
  readonly client: () => Promise<oidc.Configuration>;
  /** How to sign in again, for messages (`toolgraph auth login jira`). */
  readonly signInHint: string;
  readonly now?: () => number;
  readonly logger?: Logger;
}

/**
 * The access token of a signed-in agent (three-legged or device flow): read from the token set store,
 * and refreshed through the token endpoint once it is about to expire. One refresh at a time: calls
 * arriving while a refresh is in flight wait for it, so a refresh token is never spent twice (a
 * server that rotates refresh tokens would revoke the whole grant on reuse). A token set written by
 * another process (`toolgraph auth login`) is picked up on the next call.
 */
export class StoredTokenSource {
  readonly #options: StoredTokenSourceOptions;
  readonly #now: () => number;
  readonly #logger: Logger;
  #loaded: { version: string; set: TokenSet } | undefined;
  #refreshing: Promise<TokenSet> | undefined;
  /** Refreshes completed, for tests and diagnostics. */
  refreshes = 0;

  constructor(options: StoredTokenSourceOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#logger = (options.logger ?? silentLogger()).child({ component: 'token-sets', agent: options.agent });
  }

  /** A usable token set, refreshed if needed; undefined when the agent has never been signed in. */
  async current(): Promise<TokenSet | undefined> {
    if (this.#refreshing) return this.#refreshing;
    const set = await this.#read();
    if (set === undefined) return undefined;
    if (this.#now() < tokenSetUsableUntil(set)) return set;
    if (this.#refreshing) return this.#refreshing;
    if (set.refreshToken === undefined) {
      throw new ToolgraphError('TG_AUTHORIZATION_FAILED', `the signed-in token of agent ${this.#options.agent} has expired and came without a refresh token: sign in again (${this.#options.signInHint})`, { details: { agent: this.#options.agent, fix: this.#options.signInHint } });
    }
    this.#refreshing = this.#refresh(set).finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #read(): Promise<TokenSet | undefined> {
    const { store, agent } = this.#options;
    const version = await store.version(agent);
    if (version === undefined) {
      this.#loaded = undefined;
      return undefined;
    }
    if (this.#loaded?.version === version) return this.#loaded.set;
    const set = await store.load(agent);
    this.#loaded = set === undefined ? undefined : { version, set };
    return set;
  }

  async #refresh(set: TokenSet): Promise<TokenSet> {
    const fresh = await refreshTokenSet(await this.#options.client(), set, { signInHint: this.#options.signInHint, now: this.#now });
    await this.#options.store.save(fresh);
    const version = await this.#options.store.version(this.#options.agent);
    this.#loaded = version === undefined ? undefined : { version, set: fresh };
    this.refreshes += 1;
    this.#logger.info({ flow: set.flow, expiresInSeconds: fresh.expiresAt === undefined ? null : Math.round((fresh.expiresAt - this.#now()) / 1000) }, 'refreshed a signed-in token set');
    return fresh;
  }
}

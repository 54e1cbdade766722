import type { LRUCache } from 'lru-cache';
import { expiringLru, ttlUntil } from '../../cache/index.ts';
import type { DelegatedToken } from './token-exchange.ts';

/** Whose token, for which API: the spec's cache key (subject, audience, scopes), plus the issuer. */
export interface DelegationKey {
  /** The caller token's `iss`: two IdPs may both have a user `alice`. */
  readonly issuer: string | undefined;
  readonly subject: string;
  readonly audience: string;
  /** Space-separated; order and repeats do not matter. */
  readonly scopes: string;
}

export interface DelegatedTokenCacheOptions {
  readonly now?: () => number;
  /** Default 10000; the least recently used entry goes first once full. */
  readonly maxEntries?: number;
}

export interface CachedDelegation {
  readonly token: DelegatedToken;
  /** `cache`: a stored token; `exchange`: this call's own exchange; `shared`: another call's exchange in flight. */
  readonly from: 'cache' | 'exchange' | 'shared';
}

/** At most 30 s, and at most a tenth of the token's lifetime, before `exp`. */
const MAX_EARLY_RENEWAL_MS = 30_000;

/**
 * The instant after which a delegated token is no longer handed out: shortly before its expiry, so
 * that a token is never sent downstream in its last seconds (clock skew, the request's own travel
 * time). Undefined `expiresAt`: not cached.
 */
export function delegatedTokenUsableUntil(token: DelegatedToken, obtainedAt: number): number | undefined {
  if (token.expiresAt === undefined) return undefined;
  const lifetime = Math.max(0, token.expiresAt - obtainedAt);
  return token.expiresAt - Math.min(MAX_EARLY_RENEWAL_MS, lifetime / 10);
}

/** Scope strings are few (one per agent), so their normal form is computed once each. */
const normalScopes = new Map<string, string>();

function cacheKey(key: DelegationKey): string {
  let scopes = normalScopes.get(key.scopes);
  if (scopes === undefined) {
    scopes = [...new Set(key.scopes.split(' ').filter(Boolean))].sort().join(' ');
    if (normalScopes.size < 1000) normalScopes.set(key.scopes, scopes);
  }
  return `${key.issuer ?? ''}\u0000${key.subject}\u0000${key.audience}\u0000${scopes}`;
}

/**
 * Delegated tokens per (issuer, subject, audience, scopes), reused until shortly before they expire.
 * Identical exchanges in flight at the same time share one request to the IdP, so a burst of calls
 * by one caller costs one exchange. Bounded and expiring through lru-cache (expiringLru).
 */
export class DelegatedTokenCache {
  readonly #entries: LRUCache<string, DelegatedToken>;
  readonly #inflight = new Map<string, Promise<DelegatedToken>>();
  readonly #now: () => number;

  constructor(options: DelegatedTokenCacheOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#entries = expiringLru({ max: options.maxEntries ?? 10_000, now: this.#now });
  }

  get size(): number {
    this.#entries.purgeStale();
    return this.#entries.size;
  }

  /** The cached token for `key`, or the result of `exchange` (shared with identical calls in flight). */
  async get(key: DelegationKey, exchange: () => Promise<DelegatedToken>): Promise<CachedDelegation> {
    const id = cacheKey(key);
    const cached = this.#entries.get(id);
    if (cached !== undefined) return { token: cached, from: 'cache' };
    const pending = this.#inflight.get(id);
    if (pending !== undefined) return { token: await pending, from: 'shared' };
    const started = this.#now();
    const request = exchange().then((token) => {
      this.#store(id, token, started);
      return token;
    }).finally(() => this.#inflight.delete(id));
    this.#inflight.set(id, request);
    return { token: await request, from: 'exchange' };
  }

  /** Drops every token of one caller (e.g. a downstream API refused one). */
  delete(key: DelegationKey): void {
    this.#entries.delete(cacheKey(key));
  }

  clear(): void {
    this.#entries.clear();
  }

  #store(id: string, token: DelegatedToken, obtainedAt: number): void {
    const usableUntil = delegatedTokenUsableUntil(token, obtainedAt);
    const ttl = usableUntil === undefined ? undefined : ttlUntil(usableUntil, this.#now());
    if (ttl === undefined) return;
    this.#entries.set(id, token, { ttl });
  }
}

import type { LRUCache } from 'lru-cache';
import { expiringLru, ttlUntil } from '../cache/index.ts';

export interface StoreTokenCacheOptions {
  now?: () => number;
  /** OIDC tokens are cached per caller token; the bound keeps memory flat under many callers. */
  maxEntries?: number;
}

/**
 * Store tokens by identity key (method + who). A token is reused until shortly before its lease
 * ends (10% of the lease, at most 30 s early) so a read never races the expiry. Bounded by
 * lru-cache: past `maxEntries` the least recently used token goes (an expired one is never returned).
 */
export class StoreTokenCache {
  readonly #entries: LRUCache<string, string>;
  readonly #now: () => number;

  constructor(options: StoreTokenCacheOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#entries = expiringLru({ max: options.maxEntries ?? 1000, now: this.#now });
  }

  get size(): number {
    this.#entries.purgeStale();
    return this.#entries.size;
  }

  get(key: string): string | undefined {
    return this.#entries.get(key);
  }

  /**
   * `leaseSeconds` is the store's `lease_duration` (0: no expiry). `notAfter` (epoch ms) caps the
   * entry, e.g. at the caller JWT's `exp`, so a store token never outlives the identity behind it.
   */
  set(key: string, token: string, leaseSeconds: number, notAfter = Infinity): void {
    const now = this.#now();
    const leaseMs = leaseSeconds > 0 ? leaseSeconds * 1000 : Infinity;
    const early = Number.isFinite(leaseMs) ? Math.min(30_000, leaseMs / 10) : 0;
    const ttl = ttlUntil(Math.min(now + leaseMs - early, notAfter), now);
    if (ttl === undefined) return;
    this.#entries.set(key, token, { ttl });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}

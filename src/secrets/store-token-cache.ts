/** A store token held for reuse, with the instant after which it must not be used. */
interface Entry {
  token: string;
  /** Epoch ms; Infinity for a token the store gave no TTL. */
  usableUntil: number;
}

export interface StoreTokenCacheOptions {
  now?: () => number;
  /** OIDC tokens are cached per caller token; the bound keeps memory flat under many callers. */
  maxEntries?: number;
}

/**
 * Store tokens by identity key (method + who). A token is reused until shortly before its lease
 * ends (10% of the lease, at most 30 s early) so a read never races the expiry.
 */
export class StoreTokenCache {
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;
  readonly #maxEntries: number;

  constructor(options: StoreTokenCacheOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#maxEntries = options.maxEntries ?? 1000;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): string | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (this.#now() >= entry.usableUntil) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.token;
  }

  /**
   * `leaseSeconds` is the store's `lease_duration` (0: no expiry). `notAfter` (epoch ms) caps the
   * entry, e.g. at the caller JWT's `exp`, so a store token never outlives the identity behind it.
   */
  set(key: string, token: string, leaseSeconds: number, notAfter = Infinity): void {
    const now = this.#now();
    const leaseMs = leaseSeconds > 0 ? leaseSeconds * 1000 : Infinity;
    const early = Number.isFinite(leaseMs) ? Math.min(30_000, leaseMs / 10) : 0;
    const usableUntil = Math.min(now + leaseMs - early, notAfter);
    if (usableUntil <= now) return;
    this.#entries.delete(key);
    this.#entries.set(key, { token, usableUntil });
    if (this.#entries.size > this.#maxEntries) this.#evict(now);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  // Expired entries go first; if still full, the oldest insertion goes.
  #evict(now: number): void {
    for (const [key, entry] of this.#entries) if (now >= entry.usableUntil) this.#entries.delete(key);
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }
}

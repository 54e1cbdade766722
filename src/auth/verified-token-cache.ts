import type { VerifiedAccessToken } from './verify-access-token.ts';

export interface VerifiedTokenCacheOptions {
  /** Most entries kept; the oldest go first. Default 10,000. */
  readonly maxEntries?: number;
  /** Longest an entry lives, whatever its exp (the key set refresh period). Default 10 min. */
  readonly maxAgeMs?: number;
  /** Clock in epoch ms (tests). Default Date.now. */
  readonly now?: () => number;
}

interface Entry {
  readonly verified: VerifiedAccessToken;
  readonly expiresAtMs: number;
}

/**
 * Verified tokens by the token itself, so a client that sends the same token on every request pays
 * for one signature check, not one per request (an RS256 verify costs about as much as a whole small
 * request). The key is the whole token string: two different tokens never share an entry, and a hit
 * is one map lookup on the request path (no digest per request). The cache holds tokens in memory
 * only, never logs or exposes them (like the request it came with). An entry ends at the token's
 * `exp` (no clock tolerance) or after `maxAgeMs`, whichever comes first: a key the IdP removed stops
 * vouching for cached tokens no later than the key set refresh notices it. Bounded: past
 * `maxEntries` the oldest entry is dropped. Only successes are kept.
 */
export class VerifiedTokenCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #maxAgeMs: number;
  readonly #now: () => number;

  constructor(options: VerifiedTokenCacheOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#maxAgeMs = options.maxAgeMs ?? 10 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The verified token for this exact token string, if cached and not past its end. */
  get(token: string): VerifiedAccessToken | undefined {
    const entry = this.#entries.get(token);
    if (entry === undefined) return undefined;
    if (this.#now() >= entry.expiresAtMs) {
      this.#entries.delete(token);
      return undefined;
    }
    return entry.verified;
  }

  set(token: string, verified: VerifiedAccessToken): void {
    const now = this.#now();
    const expiresAtMs = Math.min(verified.expiresAt * 1000, now + this.#maxAgeMs);
    if (expiresAtMs <= now) return;
    this.#entries.delete(token);
    this.#entries.set(token, { verified, expiresAtMs });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }
}

import { hash } from 'node:crypto';
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
 * Verified tokens by the SHA-256 of the token, so a client that sends the same token on every
 * request pays for one signature check, not one per request (an RS256 verify costs about as much as
 * a whole small request). An entry ends at the token's `exp` (no clock tolerance) or after `maxAgeMs`,
 * whichever comes first: a key the IdP removed stops vouching for cached tokens no later than the
 * key set refresh notices it. Bounded: past `maxEntries` the oldest entry is dropped. Only
 * successes are kept; the token itself is not stored.
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

  static keyOf(token: string): string {
    return hash('sha256', token, 'base64url');
  }

  get(key: string): VerifiedAccessToken | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#now() >= entry.expiresAtMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.verified;
  }

  set(key: string, verified: VerifiedAccessToken): void {
    const now = this.#now();
    const expiresAtMs = Math.min(verified.expiresAt * 1000, now + this.#maxAgeMs);
    if (expiresAtMs <= now) return;
    this.#entries.delete(key);
    this.#entries.set(key, { verified, expiresAtMs });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }
}

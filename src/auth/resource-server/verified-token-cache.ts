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
  /** The whole token: a hit needs it equal, character for character. */
  readonly token: string;
  readonly verified: VerifiedAccessToken;
  readonly expiresAtMs: number;
}

/**
 * Entries are found by the token's last characters (the end of its signature): hashing a short
 * string instead of a whole JWT (about 1 µs for 700 characters) on every request; the whole token
 * is then compared. Two tokens that share a tail just take turns in one slot, never one's answer.
 */
const TAIL_LENGTH = 24;
const slotOf = (token: string): string => (token.length <= TAIL_LENGTH ? token : token.slice(-TAIL_LENGTH));

/**
 * Verified tokens by the token itself, so a client that sends the same token on every request pays
 * for one signature check, not one per request (an RS256 verify costs about as much as a whole small
 * request). A hit needs the whole token string equal: two different tokens never share an entry,
 * and a hit costs a short map lookup and one string comparison (no digest per request). Tokens are
 * held in memory only (about 1 KiB an entry), never logged or exposed, like the requests that
 * carried them. An entry ends at the token's `exp` (no clock tolerance) or after `maxAgeMs`,
 * whichever comes first: a key the IdP removed stops vouching for cached tokens no later than the
 * key set refresh notices it. Bounded: past `maxEntries` the oldest entry is dropped. Only
 * successes are kept.
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
    const slot = slotOf(token);
    const entry = this.#entries.get(slot);
    if (entry === undefined || entry.token !== token) return undefined;
    if (this.#now() >= entry.expiresAtMs) {
      this.#entries.delete(slot);
      return undefined;
    }
    return entry.verified;
  }

  set(token: string, verified: VerifiedAccessToken): void {
    const now = this.#now();
    const expiresAtMs = Math.min(verified.expiresAt * 1000, now + this.#maxAgeMs);
    if (expiresAtMs <= now) return;
    const slot = slotOf(token);
    this.#entries.delete(slot);
    this.#entries.set(slot, { token, verified, expiresAtMs });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }
}

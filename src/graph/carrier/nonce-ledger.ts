import { CLOCK_TOLERANCE_SECS } from './envelope-format.ts';

export type NonceOutcome = 'fresh' | 'replayed' | 'full';

/** How many nonces the ledger remembers at most (about 10 MB of strings at worst). */
export const DEFAULT_NONCE_CAPACITY = 100_000;
const SWEEP_EVERY_SECS = 10;

/**
 * Remembers every consumed nonce until its envelope can no longer be accepted (expiry plus clock
 * tolerance), so a replay is refused and memory stays bounded: envelopes live at most five minutes,
 * and a full ledger refuses new handshakes (the caller answers 429) rather than forget a live nonce.
 */
export class NonceLedger {
  readonly capacity: number;
  readonly #until = new Map<string, number>();
  #lastSweep = 0;

  constructor(capacity = DEFAULT_NONCE_CAPACITY) {
    this.capacity = capacity;
  }

  get size(): number {
    return this.#until.size;
  }

  /** Marks `nonce` used until `expiresAt` (seconds since the epoch); answers whether it was fresh. */
  consume(nonce: string, expiresAt: number, nowSecs: number): NonceOutcome {
    if (nowSecs - this.#lastSweep >= SWEEP_EVERY_SECS || this.#until.size >= this.capacity) this.#sweep(nowSecs);
    const until = this.#until.get(nonce);
    if (until !== undefined && until >= nowSecs) return 'replayed';
    if (this.#until.size >= this.capacity) return 'full';
    this.#until.set(nonce, expiresAt + CLOCK_TOLERANCE_SECS);
    return 'fresh';
  }

  #sweep(nowSecs: number): void {
    this.#lastSweep = nowSecs;
    for (const [nonce, until] of this.#until) {
      if (until < nowSecs) this.#until.delete(nonce);
    }
  }
}

import { CLOCK_TOLERANCE_SECS } from './envelope-format.ts';

export type ReplayOutcome = 'fresh' | 'replayed' | 'full';

/**
 * One-time values of envelopes (nonces, request ids), each remembered until its envelope can no
 * longer be accepted. The carrier keeps one ledger per kind of value; a store shared by several
 * carriers implements the same method (it may answer with a promise).
 */
export interface ReplayLedger {
  /** Values remembered now (expired ones may linger until the next sweep). */
  readonly size: number;
  /** Marks `value` used until `expiresAt` (seconds since the epoch); answers whether it was fresh. */
  consume(value: string, expiresAt: number, nowSecs: number): ReplayOutcome | Promise<ReplayOutcome>;
}

/** How many values a ledger remembers at most (about 10 MB of strings at worst). */
export const DEFAULT_LEDGER_CAPACITY = 100_000;
const SWEEP_EVERY_SECS = 10;

/**
 * The in-process ledger: remembers every consumed value until its envelope can no longer be
 * accepted (expiry plus clock tolerance), so a replay is refused and memory stays bounded: envelopes
 * live at most five minutes, and a full ledger refuses new handshakes (the caller answers 429) rather
 * than forget a live value. Not an lru-cache: a cache may drop a live entry when full, and a ledger
 * that forgot one would accept its replay. Across replicas the StoreReplayLedger (StateStore) is used.
 */
export class MemoryReplayLedger implements ReplayLedger {
  readonly capacity: number;
  readonly #until = new Map<string, number>();
  #lastSweep = 0;

  constructor(capacity = DEFAULT_LEDGER_CAPACITY) {
    this.capacity = capacity;
  }

  get size(): number {
    return this.#until.size;
  }

  consume(value: string, expiresAt: number, nowSecs: number): ReplayOutcome {
    if (nowSecs - this.#lastSweep >= SWEEP_EVERY_SECS || this.#until.size >= this.capacity) this.#sweep(nowSecs);
    const until = this.#until.get(value);
    if (until !== undefined && until >= nowSecs) return 'replayed';
    if (this.#until.size >= this.capacity) return 'full';
    this.#until.set(value, expiresAt + CLOCK_TOLERANCE_SECS);
    return 'fresh';
  }

  #sweep(nowSecs: number): void {
    this.#lastSweep = nowSecs;
    for (const [value, until] of this.#until) {
      if (until < nowSecs) this.#until.delete(value);
    }
  }
}

import { createHash } from 'node:crypto';
import type { StateStore } from '../../state/index.ts';
import { CLOCK_TOLERANCE_SECS } from './envelope-format.ts';
import { DEFAULT_LEDGER_CAPACITY, MemoryReplayLedger, type ReplayLedger, type ReplayOutcome } from './replay-ledger.ts';

/** The store's spaces of the carrier's two ledgers. */
export const NONCE_SPACE = 'carrier-nonces';
export const REQUEST_ID_SPACE = 'carrier-request-ids';

/**
 * A ledger in the shared state store, so an envelope consumed on one carrier is refused on every
 * other carrier that shares the store (replicas over PostgreSQL) and after a restart (file). The
 * consumption is the store's atomic `add` (one unique insert in PostgreSQL): of replicas racing on
 * one envelope exactly one admits it. Each value is kept until its envelope can no longer be
 * accepted, then expires in the store.
 *
 * A local tally (the in-process ledger) answers a replay on this process without a round trip and
 * keeps the store's growth bounded per process: past its capacity new handshakes are refused with
 * `full`, as the in-process ledger does.
 */
export class StoreReplayLedger implements ReplayLedger {
  readonly #store: StateStore;
  readonly #space: string;
  readonly #local: MemoryReplayLedger;

  constructor(store: StateStore, space: string, capacity = DEFAULT_LEDGER_CAPACITY) {
    this.#store = store;
    this.#space = space;
    this.#local = new MemoryReplayLedger(capacity);
  }

  /** Values this process consumed that are still live. */
  get size(): number {
    return this.#local.size;
  }

  async consume(value: string, expiresAt: number, nowSecs: number): Promise<ReplayOutcome> {
    const local = this.#local.consume(value, expiresAt, nowSecs);
    if (local !== 'fresh') return local;
    const ttlMs = Math.max(1, expiresAt + CLOCK_TOLERANCE_SECS - nowSecs + 1) * 1000;
    // A digest keeps keys short whatever the value's length, and values never reach the store in clear.
    const key = createHash('sha256').update(value).digest('base64url');
    return (await this.#store.add(this.#space, key, 1, ttlMs)) ? 'fresh' : 'replayed';
  }
}

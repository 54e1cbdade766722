/**
 * Small pieces of state that must outlive a process or be shared by replicas: sign-in state of the
 * OAuth proxy, carrier nonces and request ids, per-caller token sets, MCP sessions. They live in the
 * configured store, as the graphs do (`file` by default, `postgres` when scaled out, `memory` for
 * tests and throwaway runs), never only in one process's memory.
 *
 * Every entry belongs to a `space` (one per kind of state), has a string key and a JSON value, and
 * expires: `ttlMs` is required, so nothing grows without bound; expired entries read as absent and
 * are swept by the store. `add` and `take` are atomic across every process sharing the store: of
 * racing callers, exactly one adds a key (a nonce is consumed once) and exactly one takes it (a code
 * is redeemed once), and `swap` replaces a value only when no one changed it since it was read.
 */
export interface StateStore {
  /** Which store this is, for logs and `/healthz`. */
  readonly kind: 'memory' | 'file' | 'postgres';
  /** The live value under (space, key); undefined when absent or expired. */
  get<T>(space: string, key: string): Promise<T | undefined>;
  /** Stores `value` (JSON without NUL characters, which PostgreSQL's jsonb refuses) under (space, key), replacing any value, until `ttlMs` from now. */
  set(space: string, key: string, value: unknown, ttlMs: number): Promise<void>;
  /** Stores `value` only when no live value is there; true when this call stored it. */
  add(space: string, key: string, value: unknown, ttlMs: number): Promise<boolean>;
  /**
   * Replaces the live value with `value` (until `ttlMs` from now) only when it still equals
   * `expected` as JSON; true when this call replaced it. With `add` this is a compare-and-set: of
   * racing read-modify-write callers exactly one wins each round, the others read again.
   */
  swap(space: string, key: string, expected: unknown, value: unknown, ttlMs: number): Promise<boolean>;
  /** Removes the live value and returns it; undefined when absent or expired (or another caller took it). */
  take<T>(space: string, key: string): Promise<T | undefined>;
  /** Removes the value, live or not. */
  delete(space: string, key: string): Promise<void>;
  /** How many live entries `space` holds (for caps on state that callers create: registrations). */
  count(space: string): Promise<number>;
  /** Removes every expired entry now (the store also does this periodically); returns how many. */
  sweep(): Promise<number>;
  /** Stops the periodic sweep and releases connections. */
  close(): Promise<void>;
}

/** Space names are part of file names and SQL values: short, lower-case, no separators. */
export const SPACE_NAME = /^[a-z][a-z0-9-]{0,39}$/;

/** The longest key: keys are hashed for file names, but a bound keeps rows and memory small. */
export const MAX_KEY_LENGTH = 1024;

/** How often a store sweeps expired entries by itself. */
export const SWEEP_INTERVAL_MS = 60_000;

import { LRUCache } from 'lru-cache';

export interface ExpiringLruOptions {
  /** Most entries kept; past it the least recently used goes. */
  readonly max: number;
  /** Clock in epoch ms (tests inject one). Default Date.now. */
  readonly now?: () => number;
}

/**
 * The one in-process bounded, expiring map: lru-cache (max + per-entry ttl) on the given clock,
 * read on every access (ttlResolution 0: no timer caches the time, so an injected clock is exact).
 * State that replicas share does not belong here: it lives in the StateStore (src/state).
 */
export function expiringLru<K extends {}, V extends {}>(options: ExpiringLruOptions): LRUCache<K, V> {
  const now = options.now ?? Date.now;
  return new LRUCache<K, V>({ max: options.max, perf: { now }, ttlResolution: 0 });
}

/**
 * The lru-cache ttl (ms, from `now`) of an entry usable while the clock is before `until` (epoch
 * ms; Infinity: no end, ttl 0), or undefined when it would not be usable for a whole millisecond.
 * lru-cache treats an entry as stale once `now - start > ttl`, hence the millisecond less.
 */
export function ttlUntil(until: number, now: number): number | undefined {
  if (until === Infinity) return 0;
  const ttl = Math.ceil(until - now) - 1;
  return ttl >= 1 ? ttl : undefined;
}

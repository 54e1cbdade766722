import type { ToolgraphMetrics } from './toolgraph-metrics.ts';

/** The verified-token cache's use (src/auth bearer authenticator). */
export interface VerifiedTokenReadings {
  readonly hits: number;
  readonly misses: number;
}

/** The delegation's counts (src/auth DownstreamCredentials.stats). */
export interface DelegationReadings {
  readonly cacheHits: number;
  readonly shared: number;
  readonly cacheMisses: number;
  readonly exchangeFailures: number;
  readonly fallbacks: number;
}

/** Verified-token cache hits and misses, read at scrape time. */
export function addVerifiedTokenCounters(metrics: ToolgraphMetrics, read: () => VerifiedTokenReadings): void {
  metrics.scraped({
    name: 'toolgraph_verified_token_cache_requests_total',
    help: 'Bearer tokens answered from the verified-token cache (hit) or verified (miss)',
    type: 'counter',
    labelNames: ['result'],
    read: () => {
      const stats = read();
      return [[{ result: 'hit' }, stats.hits], [{ result: 'miss' }, stats.misses]];
    },
  });
}

/** Delegated-token cache hits and misses, RFC 8693 exchanges and fallbacks to the agent's credentials. */
export function addDelegationCounters(metrics: ToolgraphMetrics, read: () => DelegationReadings): void {
  metrics.scraped({
    name: 'toolgraph_delegated_token_cache_requests_total',
    help: 'Delegated tokens from the cache (hit), from an identical exchange in flight (shared), or exchanged for the call (miss)',
    type: 'counter',
    labelNames: ['result'],
    read: () => {
      const stats = read();
      return [[{ result: 'hit' }, stats.cacheHits], [{ result: 'shared' }, stats.shared], [{ result: 'miss' }, stats.cacheMisses]];
    },
  });
  metrics.scraped({
    name: 'toolgraph_token_exchanges_total',
    help: 'RFC 8693 token exchanges by outcome',
    type: 'counter',
    labelNames: ['outcome'],
    read: () => {
      const stats = read();
      return [[{ outcome: 'ok' }, stats.cacheMisses], [{ outcome: 'failed' }, stats.exchangeFailures]];
    },
  });
  metrics.scraped({ name: 'toolgraph_delegation_fallbacks_total', help: 'Calls sent with the agent\'s own credentials because delegation failed (the spec\'s warning)', type: 'counter', read: () => [[{}, read().fallbacks]] });
}

export { expiringLru, ttlUntil } from './expiring-lru.ts';
export type { ExpiringLruOptions } from './expiring-lru.ts';

export { expiringLru, ttlUntil } from './expiring-lru.ts';

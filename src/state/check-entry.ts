import { ToolgraphError, describeValue } from '../errors/index.ts';
import { MAX_KEY_LENGTH, SPACE_NAME } from './state-store.ts';

/** A programming error, not user input: spaces and TTLs are chosen by our code, keys by it too. */
export function checkEntry(space: string, key: string, ttlMs?: number): void {
  if (!SPACE_NAME.test(space)) throw new ToolgraphError('TG_INTERNAL', `State space must match ${SPACE_NAME.source}; got ${describeValue(space)}.`);
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) throw new ToolgraphError('TG_INTERNAL', `State key must be 1 to ${MAX_KEY_LENGTH} characters; got ${key.length}.`);
  if (ttlMs !== undefined && !(Number.isFinite(ttlMs) && ttlMs > 0)) throw new ToolgraphError('TG_INTERNAL', `State TTL must be a positive number of milliseconds; got ${describeValue(ttlMs)}.`);
}

import { ToolgraphError } from '../errors/index.ts';
import { loginRejected, type StoreAuthMethod } from './store-auth-method.ts';

/**
 * A static store token (STORE_TOKEN). It is checked once with `GET /v1/auth/token/lookup-self`, which
 * also gives its remaining TTL, so a dead token fails like a refused login (and `auto` moves on).
 */
export function tokenStoreAuth(options: { token: string | undefined }): StoreAuthMethod {
  return {
    name: 'token',
    missing: () => (options.token ? undefined : 'STORE_TOKEN not set'),
    cacheKey: () => 'token',
    notAfter: () => Infinity,
    who: () => 'static token',
    async login(_context, http) {
      const token = options.token ?? '';
      const answer = await http.request('GET', 'auth/token/lookup-self', { token });
      if (answer.status !== 200) throw loginRejected('token', 'auth/token/lookup-self', answer);
      const ttl = (answer.body as { data?: { ttl?: unknown } } | undefined)?.data?.ttl;
      if (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl < 0) {
        throw new ToolgraphError('TG_SECRETS_STORE_AUTH_FAILED', `token lookup at auth/token/lookup-self: expected data.ttl as a number of seconds, got ${JSON.stringify(ttl) ?? 'nothing'}`, { details: { method: 'token' } });
      }
      return { token, leaseSeconds: ttl };
    },
  };
}

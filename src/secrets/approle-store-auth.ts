import { sha256Hex } from '../digest/index.ts';
import { parseLoginAnswer, type StoreAuthMethod } from './store-auth-method.ts';

export interface AppRoleStoreAuthOptions {
  roleId: string | undefined;
  secretId: string | undefined;
}

/** AppRole login: `POST /v1/auth/approle/login {role_id, secret_id}`; one service identity. */
export function appRoleStoreAuth(options: AppRoleStoreAuthOptions): StoreAuthMethod {
  const key = `approle\u0000${sha256Hex(options.roleId ?? '')}`;
  return {
    name: 'approle',
    missing: () => {
      const absent = [options.roleId ? '' : 'STORE_ROLE_ID', options.secretId ? '' : 'STORE_SECRET_ID'].filter(Boolean);
      return absent.length === 0 ? undefined : `${absent.join(' and ')} not set`;
    },
    cacheKey: () => key,
    notAfter: () => Infinity,
    who: () => 'approle',
    async login(_context, http) {
      const answer = await http.request('POST', 'auth/approle/login', { body: { role_id: options.roleId, secret_id: options.secretId } });
      return parseLoginAnswer('approle', 'auth/approle', answer);
    },
  };
}

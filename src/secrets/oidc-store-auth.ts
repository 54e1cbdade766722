import { decodeJwt } from 'jose';
import { ToolgraphError } from '../errors/index.ts';
import { sha256Hex } from '../digest/index.ts';
import { loginPath, parseLoginAnswer, type StoreAuthMethod } from './store-auth-method.ts';
import type { SecretsContext } from './secrets-backend.ts';

export interface OidcStoreAuthOptions {
  /** STORE_AUTH_MOUNT, split into segments. */
  mount: readonly string[];
  /** STORE_ROLE. */
  role: string;
}

function claimsOf(token: string): { iss?: string; sub?: string; exp?: number } {
  try {
    const claims = decodeJwt(token);
    return { iss: claims.iss, sub: claims.sub, exp: claims.exp };
  } catch {
    return {};
  }
}

/**
 * OIDC/JWT login with the caller's IdP token: `POST /v1/auth/{mount}/login {role, jwt}`.
 * The store token it yields carries that user's policies, so it is cached per caller token (its
 * hash, never the token) rather than per claimed `sub`: an unverified `sub` could be forged to hit
 * another user's cached store token.
 */
export function oidcStoreAuth(options: OidcStoreAuthOptions): StoreAuthMethod {
  const where = `auth/${options.mount.join('/')}`;
  return {
    name: 'oidc',
    missing: (context) => (context.userToken ? undefined : 'no user token in the request context'),
    cacheKey: (context) => `oidc\u0000${where}\u0000${options.role}\u0000${sha256Hex(requireToken(context))}`,
    notAfter: (context) => {
      const exp = claimsOf(requireToken(context)).exp;
      return typeof exp === 'number' ? exp * 1000 : Infinity;
    },
    who: (context) => {
      const { iss, sub } = claimsOf(requireToken(context));
      return `user ${sha256Hex(`${iss ?? ''}\u0000${sub ?? ''}`).slice(0, 12)}`;
    },
    async login(context, http) {
      const answer = await http.request('POST', loginPath(options.mount), { body: { role: options.role, jwt: requireToken(context) } });
      return parseLoginAnswer('oidc', where, answer);
    },
  };
}

function requireToken(context: SecretsContext): string {
  if (!context.userToken) throw new ToolgraphError('TG_NO_USER_TOKEN', 'No user token available for delegation');
  return context.userToken;
}

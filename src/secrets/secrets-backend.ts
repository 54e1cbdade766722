/**
 * A secret as the backends return it. The store's KV v2 engine keeps an object per key (`data.data`),
 * so store values are objects; the in-memory backend may also hold a bare string.
 */
export type SecretValue = string | Record<string, unknown>;

/** What a backend may need from the request on whose behalf it reads. */
export interface SecretsContext {
  /** The caller's IdP token (JWT), for OIDC/JWT login at the store. Never logged. */
  userToken?: string;
}

export interface SecretsBackend {
  readonly kind: 'inmemory' | 'store';
  /** Reads one secret. Throws TG_SECRET_NOT_FOUND, TG_BAD_REQUEST (bad key) or a store error. */
  get(key: string, context?: SecretsContext): Promise<SecretValue>;
}

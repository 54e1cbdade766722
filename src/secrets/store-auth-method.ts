import { ToolgraphError } from '../errors/index.ts';
import { storeErrorsSuffix, type StoreAnswer, type StoreHttp } from './store-http.ts';
import type { SecretsContext } from './secrets-backend.ts';

export type StoreAuthMethodName = 'oidc' | 'approle' | 'token' | 'orchestrator';

/** A store token as a login (or lookup) returned it. */
export interface StoreLogin {
  token: string;
  /** `auth.lease_duration` in seconds; 0 means the token does not expire. */
  leaseSeconds: number;
}

export interface StoreAuthMethod {
  readonly name: StoreAuthMethodName;
  /** Why this method cannot run for this context (a missing input), or undefined when it can. */
  missing(context: SecretsContext): string | undefined;
  /** Which store token this context maps to: equal keys may share a cached token. Never a raw credential. */
  cacheKey(context: SecretsContext): string;
  /** Epoch ms after which a token got for this context must not be used (e.g. the caller JWT's exp). */
  notAfter(context: SecretsContext): number;
  /** A short, non-secret description of who logs in, for logs (e.g. a hash of the JWT's iss+sub). */
  who(context: SecretsContext): string;
  login(context: SecretsContext, http: StoreHttp): Promise<StoreLogin>;
}

/** A login the store refused; `auto` moves on to the next method after one of these. */
export function loginRejected(method: StoreAuthMethodName, where: string, answer: StoreAnswer): ToolgraphError {
  return new ToolgraphError('TG_SECRETS_STORE_AUTH_FAILED', `${method} login at ${where} was refused: expected HTTP 200 with auth.client_token, got HTTP ${answer.status}${storeErrorsSuffix(answer.body)}`, { details: { method, status: answer.status } });
}

/** Reads `auth.client_token` and `auth.lease_duration` from a Vault login answer. */
export function parseLoginAnswer(method: StoreAuthMethodName, where: string, answer: StoreAnswer): StoreLogin {
  if (answer.status !== 200) throw loginRejected(method, where, answer);
  const auth = (answer.body as { auth?: { client_token?: unknown; lease_duration?: unknown } } | undefined)?.auth;
  if (!auth || typeof auth.client_token !== 'string' || auth.client_token === '') {
    const got = answer.body && typeof answer.body === 'object' ? `an object with keys ${Object.keys(answer.body).join(', ') || '(none)'}` : 'no JSON body';
    throw new ToolgraphError('TG_SECRETS_STORE_AUTH_FAILED', `${method} login at ${where}: expected auth.client_token in the answer, got ${got}`, { details: { method } });
  }
  const lease = typeof auth.lease_duration === 'number' && Number.isFinite(auth.lease_duration) && auth.lease_duration > 0 ? auth.lease_duration : 0;
  return { token: auth.client_token, leaseSeconds: lease };
}

/** `auth/{mount}/login`, each mount segment encoded (custom mounts may be nested). */
export function loginPath(mountSegments: readonly string[]): string {
  return ['auth', ...mountSegments, 'login'].map(encodeURIComponent).join('/');
}

import { ToolgraphError, isToolgraphError } from '../errors/index.ts';
import { rememberSecret, silentLogger, type Logger } from '../log/index.ts';
import { appRoleStoreAuth } from './approle-store-auth.ts';
import { oidcStoreAuth } from './oidc-store-auth.ts';
import { orchestratorStoreAuth } from './orchestrator-store-auth.ts';
import { configuredPathSegments, kvDataPath, secretKeySegments } from './secret-key.ts';
import type { SecretValue, SecretsBackend, SecretsContext } from './secrets-backend.ts';
import type { StoreAuthMethod, StoreAuthMethodName, StoreLogin } from './store-auth-method.ts';
import { StoreHttp, storeErrorsSuffix } from './store-http.ts';
import { StoreTokenCache } from './store-token-cache.ts';
import { tokenStoreAuth } from './token-store-auth.ts';

export type StoreAuthSetting = 'auto' | StoreAuthMethodName;

/** The spec's priority order for `STORE_AUTH_METHOD=auto`. */
const AUTO_AUTH_ORDER: readonly StoreAuthMethodName[] = ['oidc', 'approle', 'token', 'orchestrator'];

export interface StoreSecretsBackendOptions {
  /** SECRETS_STORE_URL. */
  url: string;
  /** SECRETS_STORE_MOUNT (KV v2). */
  mount: string;
  /** STORE_PATH_PREFIX; optional. */
  pathPrefix?: string | undefined;
  /** STORE_AUTH_METHOD. */
  authMethod: StoreAuthSetting;
  /** STORE_AUTH_MOUNT (OIDC/JWT). */
  authMount: string;
  /** STORE_ROLE (OIDC and orchestrator). */
  role: string;
  token?: string | undefined;
  roleId?: string | undefined;
  secretId?: string | undefined;
  /** STORE_ORCH_SA_TOKEN_PATH. */
  saTokenPath: string;
  logger?: Logger;
  fetch?: typeof fetch;
  /** Clock for the token cache (tests). */
  now?: () => number;
  timeoutMs?: number;
  maxCachedTokens?: number;
}

interface Session {
  method: StoreAuthMethod;
  key: string;
  token: string;
  fresh: boolean;
}

/**
 * Reads KV v2 secrets from a Vault-compatible store: `GET /v1/{mount}/data/{prefix}/{key}`.
 * Authenticates with one method or, for `auto`, the first of oidc → approle → token → orchestrator
 * whose inputs are present and whose login succeeds. Store tokens are cached per identity with
 * their TTL; a 403 with a cached token drops it and logs in once more.
 */
export class StoreSecretsBackend implements SecretsBackend {
  readonly kind = 'store';
  readonly #http: StoreHttp;
  readonly #mount: string[];
  readonly #prefix: string[];
  readonly #setting: StoreAuthSetting;
  readonly #methods: StoreAuthMethod[];
  readonly #cache: StoreTokenCache;
  readonly #inflight = new Map<string, Promise<StoreLogin>>();
  readonly #logger: Logger;

  constructor(options: StoreSecretsBackendOptions) {
    this.#http = new StoreHttp({ url: options.url, fetch: options.fetch, timeoutMs: options.timeoutMs });
    this.#mount = configuredPathSegments(options.mount, 'SECRETS_STORE_MOUNT');
    if (this.#mount.length === 0) throw new ToolgraphError('TG_CONFIG_INVALID', 'SECRETS_STORE_MOUNT: expected a mount path, got an empty value', { details: { setting: 'storeMount' } });
    this.#prefix = configuredPathSegments(options.pathPrefix, 'STORE_PATH_PREFIX');
    const authMount = configuredPathSegments(options.authMount, 'STORE_AUTH_MOUNT');
    if (authMount.length === 0) throw new ToolgraphError('TG_CONFIG_INVALID', 'STORE_AUTH_MOUNT: expected a mount path, got an empty value', { details: { setting: 'storeAuthMount' } });
    const all: Record<StoreAuthMethodName, StoreAuthMethod> = {
      oidc: oidcStoreAuth({ mount: authMount, role: options.role }),
      approle: appRoleStoreAuth({ roleId: options.roleId, secretId: options.secretId }),
      token: tokenStoreAuth({ token: options.token }),
      orchestrator: orchestratorStoreAuth({ role: options.role, saTokenPath: options.saTokenPath }),
    };
    this.#setting = options.authMethod;
    this.#methods = options.authMethod === 'auto' ? AUTO_AUTH_ORDER.map((name) => all[name]) : [all[options.authMethod]];
    this.#cache = new StoreTokenCache({ now: options.now, maxEntries: options.maxCachedTokens });
    this.#logger = (options.logger ?? silentLogger()).child({ component: 'secrets' });
    for (const secret of [options.token, options.secretId]) rememberSecret(secret);
  }

  /** Cached store tokens (tests and diagnostics); never the tokens themselves. */
  get cachedTokenCount(): number {
    return this.#cache.size;
  }

  async get(key: string, context: SecretsContext = {}): Promise<SecretValue> {
    rememberSecret(context.userToken);
    const path = kvDataPath(this.#mount, this.#prefix, secretKeySegments(key));
    let session = await this.#authenticate(context);
    let answer = await this.#http.request('GET', path, { token: session.token });
    if (answer.status === 403 && !session.fresh) {
      // The store may have revoked the token or cut its TTL: one fresh login, then the verdict stands.
      this.#cache.delete(session.key);
      this.#logger.info({ method: session.method.name }, 'secrets store refused a cached token; logging in again');
      session = await this.#loginWith(session.method, context, session.key);
      answer = await this.#http.request('GET', path, { token: session.token });
    }
    const where = `${this.#mount.join('/')}/data/${[...this.#prefix, key].join('/')}`;
    if (answer.status === 404) {
      throw new ToolgraphError('TG_SECRET_NOT_FOUND', `no secret under key ${JSON.stringify(key)} (store path ${where})`, { details: { key } });
    }
    if (answer.status === 403) {
      throw new ToolgraphError('TG_FORBIDDEN', `secrets store refused to read key ${JSON.stringify(key)}: expected the ${session.method.name} token's policies to grant read on ${where}, got HTTP 403${storeErrorsSuffix(answer.body)}`, { details: { key, method: session.method.name } });
    }
    if (answer.status !== 200) {
      throw new ToolgraphError('TG_DOWNSTREAM_FAILED', `secrets store read of key ${JSON.stringify(key)}: expected HTTP 200, 403 or 404, got HTTP ${answer.status}${storeErrorsSuffix(answer.body)}`, { details: { key, status: answer.status } });
    }
    const data = (answer.body as { data?: { data?: unknown } } | undefined)?.data;
    if (data && data.data === null) {
      // KV v2 answers 200 with data.data null for a deleted or destroyed latest version.
      throw new ToolgraphError('TG_SECRET_NOT_FOUND', `no secret under key ${JSON.stringify(key)}: its latest version at ${where} is deleted`, { details: { key } });
    }
    const value = data?.data;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new ToolgraphError('TG_DOWNSTREAM_FAILED', `secrets store read of key ${JSON.stringify(key)}: expected a KV v2 answer with data.data an object, got ${value === undefined ? 'no data.data' : Array.isArray(value) ? 'an array' : typeof value}`, { details: { key } });
    }
    this.#logger.debug({ method: session.method.name, key }, 'secret read');
    return value as Record<string, unknown>;
  }

  async #authenticate(context: SecretsContext): Promise<Session> {
    const attempts: string[] = [];
    for (const method of this.#methods) {
      const missing = method.missing(context);
      if (missing) {
        if (this.#setting !== 'auto') throw missingInput(method, missing);
        attempts.push(`${method.name}: skipped (${missing})`);
        continue;
      }
      const key = method.cacheKey(context);
      const cached = this.#cache.get(key);
      if (cached !== undefined) return { method, key, token: cached, fresh: false };
      try {
        return await this.#loginWith(method, context, key);
      } catch (error) {
        if (this.#setting !== 'auto' || !isToolgraphError(error) || error.code !== 'TG_SECRETS_STORE_AUTH_FAILED') throw error;
        attempts.push(`${method.name}: ${error.message}`);
        this.#logger.warn({ method: method.name, reason: error.message }, 'secrets store login failed; trying the next auth method');
      }
    }
    throw new ToolgraphError('TG_SECRETS_STORE_AUTH_FAILED', `no secrets-store auth method succeeded (STORE_AUTH_METHOD=auto tries ${AUTO_AUTH_ORDER.join(', ')}): ${attempts.join('; ')}`, { details: { attempts } });
  }

  async #loginWith(method: StoreAuthMethod, context: SecretsContext, key: string): Promise<Session> {
    // Concurrent reads for one identity share one login.
    let pending = this.#inflight.get(key);
    if (!pending) {
      pending = method.login(context, this.#http).finally(() => this.#inflight.delete(key));
      this.#inflight.set(key, pending);
    }
    const login = await pending;
    // A store token is a credential like any other: no log line may carry it, whatever its shape.
    rememberSecret(login.token);
    this.#cache.set(key, login.token, login.leaseSeconds, method.notAfter(context));
    this.#logger.info({ method: method.name, who: method.who(context), leaseSeconds: login.leaseSeconds }, 'secrets store login');
    return { method, key, token: login.token, fresh: true };
  }
}

function missingInput(method: StoreAuthMethod, missing: string): ToolgraphError {
  if (method.name === 'oidc') return new ToolgraphError('TG_NO_USER_TOKEN', 'No user token available for delegation', { details: { method: 'oidc' } });
  return new ToolgraphError('TG_SECRETS_STORE_AUTH_FAILED', `${method.name} auth cannot run: ${missing}`, { details: { method: method.name } });
}

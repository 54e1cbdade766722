import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify, type CryptoKey, type JWTPayload, type KeyObject } from 'jose';

/**
 * A test double of a Vault-compatible secrets store, implementing the documented HTTP API subset
 * toolgraph uses (it is the one peer we cannot run here):
 * - `POST /v1/auth/{mount}/login {role, jwt}`: JWT auth; the JWT is verified with jose against the
 *   configured IdP's JWKS (issuer, `bound_audiences`, exp), the user is `user_claim`, and groups from
 *   `groups_claim` add policies;
 * - `POST /v1/auth/approle/login {role_id, secret_id}`;
 * - `POST /v1/auth/kubernetes/login {role, jwt}`: the service-account JWT is verified against a key
 *   the test supplies;
 * - `GET /v1/auth/token/lookup-self`;
 * - `GET /v1/{mount}/data/{path}` (KV v2) → `{data: {data, metadata: {version, ...}}}`.
 * Tokens expire after their TTL on the double's clock; a missing, unknown or expired token and a
 * policy that does not grant `read` all answer 403 `permission denied`, as Vault does. A policy is a
 * list of path patterns granting read (a trailing `*` matches any suffix); `{{user}}` in a pattern is
 * replaced by the logged-in user's name (Vault's templated policies, simplified).
 */
export interface JwtRole {
  boundAudiences: readonly string[];
  /** Claim naming the user; Vault's `user_claim`. Default `sub`. */
  userClaim?: string;
  /** Claim holding group names; Vault's `groups_claim`. Default `groups`. */
  groupsClaim?: string;
  policies: readonly string[];
  /** Extra policies per group (Vault maps groups to policies through identity groups). */
  groupPolicies?: Readonly<Record<string, readonly string[]>>;
  ttlSeconds?: number;
}

export interface KubernetesRole {
  serviceAccountNames: readonly string[];
  policies: readonly string[];
  ttlSeconds?: number;
}

export interface AppRole {
  roleId: string;
  secretId: string;
  policies: readonly string[];
  ttlSeconds?: number;
}

export interface VaultDoubleOptions {
  /** Clock in epoch ms; tests advance it to expire tokens. Default Date.now. */
  now?: () => number;
  /** KV v2 mounts. Default ['secret']. */
  kvMounts?: readonly string[];
  /** TTL of login tokens when a role gives none. Default 3600 s. */
  defaultTtlSeconds?: number;
}

export interface VaultCall {
  method: string;
  path: string;
  status: number;
}

interface TokenEntry {
  fromLogin: boolean;
  policies: string[];
  user: string;
  /** Epoch ms; Infinity for a token without TTL. */
  expiresAt: number;
  ttlSeconds: number;
}

type VerifyKey = CryptoKey | KeyObject | Uint8Array;

export interface VaultDouble {
  url: string;
  /** Every request seen, without bodies or tokens: assert how many logins or reads happened. */
  calls: VaultCall[];
  putSecret(mount: string, path: string, data: Record<string, unknown>): number;
  deleteSecret(mount: string, path: string): void;
  setPolicy(name: string, readPaths: readonly string[]): void;
  enableJwtAuth(mount: string, config: { issuer: string; jwksUri: string }): void;
  setJwtRole(mount: string, role: string, config: JwtRole): void;
  setAppRole(name: string, config: AppRole): void;
  enableKubernetesAuth(config: { key: VerifyKey; issuer?: string }): void;
  setKubernetesRole(role: string, config: KubernetesRole): void;
  /** A token as `vault token create` would make it (ttl 0: never expires). */
  createToken(policies: readonly string[], ttlSeconds?: number): string;
  /** Revokes every token a login issued; createToken's stay (a test of "403 with a cached token"). */
  revokeLoginTokens(): void;
  /** While sealed, every request answers 503, as a sealed Vault does. */
  setSealed(sealed: boolean): void;
  logins(): VaultCall[];
  close(): Promise<void>;
}

interface KvVersion {
  data: Record<string, unknown> | null;
  created: string;
  deleted: string;
}

export async function startVaultDouble(options: VaultDoubleOptions = {}): Promise<VaultDouble> {
  const now = options.now ?? Date.now;
  const defaultTtl = options.defaultTtlSeconds ?? 3600;
  const kv = new Map<string, Map<string, KvVersion[]>>((options.kvMounts ?? ['secret']).map((m) => [m, new Map()]));
  const policies = new Map<string, string[]>();
  const tokens = new Map<string, TokenEntry>();
  const jwtMounts = new Map<string, { issuer: string; jwks: ReturnType<typeof createRemoteJWKSet>; roles: Map<string, JwtRole> }>();
  const appRoles = new Map<string, AppRole>();
  let kubernetes: { key: VerifyKey; issuer: string; roles: Map<string, KubernetesRole> } | undefined;
  let sealed = false;
  const calls: VaultCall[] = [];

  function issue(policyNames: readonly string[], user: string, ttlSeconds: number, fromLogin = true): { token: string; entry: TokenEntry } {
    const token = `hvs.${randomBytes(18).toString('base64url')}`;
    const entry = { fromLogin, policies: ['default', ...policyNames], user, ttlSeconds, expiresAt: ttlSeconds > 0 ? now() + ttlSeconds * 1000 : Infinity };
    tokens.set(token, entry);
    return { token, entry };
  }

  function loginAnswer(token: string, entry: TokenEntry, metadata: Record<string, string>) {
    return {
      request_id: crypto.randomUUID(), lease_id: '', renewable: false, lease_duration: 0, data: null, warnings: null,
      auth: { client_token: token, accessor: randomBytes(8).toString('hex'), policies: entry.policies, token_policies: entry.policies, metadata, lease_duration: entry.ttlSeconds, renewable: true, entity_id: '', token_type: 'service', orphan: true },
    };
  }

  function tokenOf(req: IncomingMessage): TokenEntry | undefined {
    const token = req.headers['x-vault-token'];
    if (typeof token !== 'string') return undefined;
    const entry = tokens.get(token);
    if (!entry) return undefined;
    if (now() >= entry.expiresAt) {
      tokens.delete(token);
      return undefined;
    }
    return entry;
  }

  function canRead(entry: TokenEntry, path: string): boolean {
    return entry.policies.some((name) => (policies.get(name) ?? []).some((pattern) => {
      const p = pattern.replaceAll('{{user}}', entry.user);
      return p.endsWith('*') ? path.startsWith(p.slice(0, -1)) : path === p;
    }));
  }

  async function route(req: IncomingMessage, body: Record<string, unknown>): Promise<[number, unknown]> {
    if (sealed) return [503, { errors: ['Vault is sealed'] }];
    const url = new URL(req.url ?? '/', 'http://vault');
    const segments = url.pathname.split('/').slice(1).map((s) => decodeURIComponent(s));
    if (segments[0] !== 'v1') return [404, { errors: [] }];
    const rest = segments.slice(1);
    const path = rest.join('/');

    if (req.method === 'POST' && rest[0] === 'auth' && rest.at(-1) === 'login') {
      const mount = rest.slice(1, -1).join('/');
      if (mount === 'approle') {
        const role = [...appRoles.values()].find((r) => r.roleId === body['role_id']);
        if (!role || role.secretId !== body['secret_id']) return [400, { errors: ['invalid role or secret ID'] }];
        const { token, entry } = issue(role.policies, `approle-${role.roleId}`, role.ttlSeconds ?? defaultTtl);
        return [200, loginAnswer(token, entry, { role_name: 'approle' })];
      }
      if (mount === 'kubernetes' && kubernetes) {
        const role = kubernetes.roles.get(String(body['role']));
        if (!role) return [400, { errors: [`invalid role name "${String(body['role'])}"`] }];
        let claims: JWTPayload;
        try {
          ({ payload: claims } = await jwtVerify(String(body['jwt']), kubernetes.key, { issuer: kubernetes.issuer, currentDate: new Date(now()) }));
        } catch {
          return [403, { errors: ['permission denied'] }];
        }
        const account = String(claims['kubernetes.io/serviceaccount/service-account.name'] ?? claims.sub ?? '');
        if (!role.serviceAccountNames.includes(account)) return [403, { errors: ['service account name not authorized'] }];
        const { token, entry } = issue(role.policies, account, role.ttlSeconds ?? defaultTtl);
        return [200, loginAnswer(token, entry, { role: String(body['role']), service_account_name: account })];
      }
      const jwtMount = jwtMounts.get(mount);
      if (!jwtMount) return [400, { errors: [`no handler for route "${path}". route entry not found.`] }];
      const role = jwtMount.roles.get(String(body['role']));
      if (!role) return [400, { errors: [`role "${String(body['role'])}" could not be found`] }];
      if (typeof body['jwt'] !== 'string' || body['jwt'] === '') return [400, { errors: ['missing token'] }];
      let claims: JWTPayload;
      try {
        ({ payload: claims } = await jwtVerify(body['jwt'], jwtMount.jwks, { issuer: jwtMount.issuer, audience: [...role.boundAudiences], currentDate: new Date(now()) }));
      } catch (error) {
        return [400, { errors: [`error validating token: ${(error as { code?: string }).code ?? 'invalid'}`] }];
      }
      const userClaim = role.userClaim ?? 'sub';
      const user = claims[userClaim];
      if (typeof user !== 'string' || user === '') return [400, { errors: [`claim "${userClaim}" not found in token`] }];
      const groupsValue = claims[role.groupsClaim ?? 'groups'];
      const groups = Array.isArray(groupsValue) ? groupsValue.filter((g): g is string => typeof g === 'string') : [];
      const extra = groups.flatMap((g) => role.groupPolicies?.[g] ?? []);
      const { token, entry } = issue([...role.policies, ...extra], user, role.ttlSeconds ?? defaultTtl);
      return [200, loginAnswer(token, entry, { role: String(body['role']) })];
    }

    const entry = tokenOf(req);
    if (req.method === 'GET' && path === 'auth/token/lookup-self') {
      if (!entry) return [403, { errors: ['permission denied'] }];
      const ttl = Number.isFinite(entry.expiresAt) ? Math.max(0, Math.floor((entry.expiresAt - now()) / 1000)) : 0;
      return [200, { data: { policies: entry.policies, ttl, display_name: entry.user } }];
    }

    if (req.method === 'GET' && rest[1] === 'data' && kv.has(rest[0] ?? '')) {
      if (!entry || !canRead(entry, path)) return [403, { errors: ['permission denied'] }];
      const versions = kv.get(rest[0] ?? '')?.get(rest.slice(2).join('/'));
      if (!versions || versions.length === 0) return [404, { errors: [] }];
      const latest = versions.at(-1) as KvVersion;
      const metadata = { created_time: latest.created, custom_metadata: null, deletion_time: latest.deleted, destroyed: false, version: versions.length };
      if (latest.data === null) return [404, { data: { data: null, metadata } }];
      return [200, { request_id: crypto.randomUUID(), lease_id: '', renewable: false, lease_duration: 0, data: { data: latest.data, metadata }, warnings: null }];
    }
    if (!entry) return [403, { errors: ['permission denied'] }];
    return [404, { errors: [] }];
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: Record<string, unknown> = {};
    if (chunks.length > 0) {
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        body = {};
      }
    }
    const [status, payload] = await route(req, body);
    calls.push({ method: req.method ?? '', path: new URL(req.url ?? '/', 'http://vault').pathname, status });
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => res.writeHead(500).end(JSON.stringify({ errors: [String(error)] })));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  function kvMount(mount: string): Map<string, KvVersion[]> {
    const store = kv.get(mount);
    if (!store) throw new Error(`vault double: no KV v2 mount ${mount}`);
    return store;
  }

  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    putSecret(mount, path, data) {
      const store = kvMount(mount);
      const versions = store.get(path) ?? [];
      versions.push({ data: structuredClone(data), created: new Date(now()).toISOString(), deleted: '' });
      store.set(path, versions);
      return versions.length;
    },
    deleteSecret(mount, path) {
      const latest = kvMount(mount).get(path)?.at(-1);
      if (latest) {
        latest.data = null;
        latest.deleted = new Date(now()).toISOString();
      }
    },
    setPolicy: (name, readPaths) => void policies.set(name, [...readPaths]),
    enableJwtAuth: (mount, config) => void jwtMounts.set(mount, { issuer: config.issuer, jwks: createRemoteJWKSet(new URL(config.jwksUri)), roles: new Map() }),
    setJwtRole(mount, role, config) {
      const jwtMount = jwtMounts.get(mount);
      if (!jwtMount) throw new Error(`vault double: JWT auth not enabled at ${mount}`);
      jwtMount.roles.set(role, config);
    },
    setAppRole: (name, config) => void appRoles.set(name, config),
    enableKubernetesAuth: (config) => void (kubernetes = { key: config.key, issuer: config.issuer ?? 'kubernetes/serviceaccount', roles: kubernetes?.roles ?? new Map() }),
    setKubernetesRole(role, config) {
      if (!kubernetes) throw new Error('vault double: Kubernetes auth not enabled');
      kubernetes.roles.set(role, config);
    },
    createToken: (policyNames, ttlSeconds = 0) => issue(policyNames, 'token', ttlSeconds, false).token,
    revokeLoginTokens() {
      for (const [token, entry] of tokens) if (entry.fromLogin) tokens.delete(token);
    },
    setSealed: (value) => void (sealed = value),
    logins: () => calls.filter((c) => c.method === 'POST' && c.path.endsWith('/login')),
    close: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    }),
  };
}

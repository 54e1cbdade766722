import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, type JWTPayload, type SignOptions } from 'jose';
import Provider, { errors, type OidcContext } from 'oidc-provider';

/**
 * A real OpenID provider (oidc-provider 9) on 127.0.0.1, for integration tests. One confidential
 * client gets JWT access tokens for any resource indicator (the audience):
 * - `client_credentials` with `resource` (sub = the client id; `groups` from `clientGroups`), and
 * - a test-only grant, MINT_GRANT, that issues a JWT access token for a named user (sub, groups),
 *   signed with the provider's keys exactly like its other access tokens. It stands in for an
 *   interactive login, which tests cannot drive.
 * `signToken` signs arbitrary claims with the provider's own key, for refusal tests that need a
 * correctly signed token with one thing wrong (another issuer, a future nbf, no exp).
 *
 * For delegation, device and three-legged tests the same client also has:
 * - RFC 8693 token exchange (`TOKEN_EXCHANGE_GRANT`), which oidc-provider does not ship: the subject
 *   token is verified with jose against the provider's own keys and issuer, the `audience` must be a
 *   registered service (`registeredAudiences`), and the answer is a JWT access token for that
 *   audience carrying the subject's `sub` and `email` and `act: {sub: <client id>}`;
 * - the device flow (RFC 8628) and authorization code + refresh token. A user's browser steps
 *   (the device page, login, consent) are answered by `browser.ts`'s fake browser; login and consent
 *   happen at `/interaction/:uid`, served here, which signs in `interactiveUser` and grants what the
 *   client asked for (consent automated). `denyNextInteraction()` makes the next one refuse.
 * A second client, `threeLeggedClient`, is a native app with a loopback redirect URI (any port, RFC
 * 8252 §7.3): the "vendor" a three-legged agent signs in to.
 */
export const MINT_GRANT = 'urn:toolgraph:test:mint-user-token';
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';

export interface MintTokenOptions {
  /** The user; omitted: a client-credentials token whose sub is the client id. */
  sub?: string;
  /** Space-separated scopes; default `openid`. */
  scope?: string;
  /** The resource indicator, which becomes `aud`; default the IdP's `defaultAudience`. */
  audience?: string;
  /** A `groups` claim (user tokens only). */
  groups?: readonly string[];
  /** An `email` claim (user tokens only). */
  email?: string;
}

/** The account the automated login signs in (interactive flows: device, authorization code). */
export interface InteractiveUser {
  sub: string;
  email?: string;
}

export interface StartIdpOptions {
  /** Audience used when mintToken is not given one. Default `https://secrets.toolgraph.test`. */
  defaultAudience?: string;
  /** Access-token lifetime in seconds. Default 600. */
  accessTokenTtl?: number;
  /** Access-token lifetime in seconds for tokens of one resource (audience), e.g. a short-lived vendor API's. */
  accessTokenTtlFor?: Readonly<Record<string, number>>;
  /** Scopes the client may ask for, beyond `openid`. */
  scopes?: readonly string[];
  /** Hook to register more grants (e.g. token exchange) before the provider serves. */
  configure?: (provider: Provider) => void;
  /** A `groups` claim on the client's client-credentials tokens (a service account in IdP groups). */
  clientGroups?: readonly string[];
  /** Audiences (services registered at the IdP) a token exchange may target; default: any. */
  registeredAudiences?: readonly string[];
  /** Refresh-token lifetime in seconds. Default 86400. */
  refreshTokenTtl?: number;
  /**
   * `offline_access` (default): oidc-provider's own policy, a refresh token only for grants with
   * offline_access, kept at the authorization endpoint only with prompt=consent. `always`: every
   * client allowed the refresh_token grant gets one.
   */
  refreshTokens?: 'offline_access' | 'always';
}

export interface IdpRequest {
  method: string;
  path: string;
}

export interface TestIdp {
  issuer: string;
  discoveryUrl: string;
  jwksUri: string;
  tokenEndpoint: string;
  clientId: string;
  clientSecret: string;
  /** A native client with a loopback redirect URI for the authorization code flow (any port). */
  threeLeggedClient: { clientId: string; clientSecret: string; redirectPath: string };
  provider: Provider;
  /** The key id of the provider's signing key. */
  kid: string;
  /** Every request the provider received, in order (method and path only). */
  requests: IdpRequest[];
  /** How many times the JWKS was fetched. */
  jwksFetches(): number;
  /** The grant_type of every token request that reached a grant handler, with its outcome. */
  grants: { grantType: string; ok: boolean }[];
  /** Token exchanges the IdP answered (successful ones). */
  tokenExchanges(): number;
  /** What each successful token exchange issued: the subject, the audience and the scopes. */
  exchanges: { sub: string; audience: string; scope: string }[];
  /** Registers or replaces a client (oidc-provider's dynamic clients are re-read on change): add one, or take grants away from one. */
  upsertClient(metadata: Record<string, unknown>): Promise<void>;
  /** Who the automated login signs in from now on. Default `{sub: 'interactive-user', email: 'interactive-user@example.test'}`. */
  setInteractiveUser(user: InteractiveUser): void;
  /** The next interaction answers access_denied (the user clicked "deny"). */
  denyNextInteraction(): void;
  mintToken(options?: MintTokenOptions): Promise<string>;
  /**
   * Signs `claims` as given (no defaults added) with the provider's RS256 key; header defaults to {alg: RS256, typ: at+jwt, kid}.
   * `options.crit` lets the signer write crit extensions a verifier may not understand.
   */
  signToken(claims: JWTPayload, header?: Record<string, unknown>, options?: SignOptions): Promise<string>;
  /** An outage (true): every connection is cut before it is answered, as a crashed IdP's would be; false ends it. */
  setDown(down: boolean): void;
  close(): Promise<void>;
}

const DEFAULT_SCOPES = ['openid', 'email', 'offline_access', 'api', 'secrets:read', 'kg:read', 'kg:write', 'kg:admin', 'query:graphql'];
/** The three-legged client's registered redirect path (on 127.0.0.1, any port). */
export const THREE_LEGGED_REDIRECT_PATH = '/callback';

function grantTypeOf(ctx: unknown): string {
  const value = (ctx as OidcContext).oidc?.params?.['grant_type'];
  return typeof value === 'string' ? value : '';
}

export async function startIdp(options: StartIdpOptions = {}): Promise<TestIdp> {
  const defaultAudience = options.defaultAudience ?? 'https://secrets.toolgraph.test';
  const ttl = options.accessTokenTtl ?? 600;
  const scopes = [...new Set([...DEFAULT_SCOPES, ...(options.scopes ?? [])])];
  const clientId = 'toolgraph-test-client';
  const clientSecret = `test-secret-${crypto.randomUUID()}`;
  const threeLeggedClientId = 'toolgraph-test-vendor-app';
  const threeLeggedClientSecret = `test-vendor-secret-${crypto.randomUUID()}`;
  let interactiveUser: InteractiveUser = { sub: 'interactive-user', email: 'interactive-user@example.test' };
  let denyNext = false;
  const emails = new Map<string, string>();
  const grants: { grantType: string; ok: boolean }[] = [];
  const exchanges: { sub: string; audience: string; scope: string }[] = [];
  /** Claims of the verified subject token of the exchange being answered, for extraTokenClaims. */
  const exchangeSubjects = new WeakMap<object, JWTPayload>();

  let handler: Parameters<typeof createServer>[1] = (_req, res) => res.writeHead(503).end();
  const requests: IdpRequest[] = [];
  let down = false;
  const server: Server = createServer((req, res) => {
    if (down) {
      req.socket.destroy();
      return;
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push({ method: req.method ?? '', path });
    if (path.startsWith('/interaction/')) {
      interact(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(error));
      });
      return;
    }
    handler?.(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'test-rs256', alg: 'RS256', use: 'sig' };
  const ownKeys = createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid: signingKey.kid, alg: 'RS256', use: 'sig' }] });

  const resourceServerInfo = (resource: string) => ({ audience: resource, scope: scopes.join(' '), accessTokenFormat: 'jwt', accessTokenTTL: options.accessTokenTtlFor?.[resource] ?? ttl });

  const provider = new Provider(issuer, {
    clients: [{
      client_id: clientId,
      client_secret: clientSecret,
      grant_types: ['client_credentials', MINT_GRANT, TOKEN_EXCHANGE_GRANT, DEVICE_CODE_GRANT, 'refresh_token'],
      response_types: [],
      redirect_uris: [],
      scope: scopes.join(' '),
    }, {
      client_id: threeLeggedClientId,
      client_secret: threeLeggedClientSecret,
      application_type: 'native',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: [`http://127.0.0.1${THREE_LEGGED_REDIRECT_PATH}`],
      scope: scopes.join(' '),
    }],
    jwks: { keys: [signingKey] },
    scopes,
    cookies: { keys: ['toolgraph-test-cookie-key'] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // Plain pages (the defaults print a notice on every use): the device code form, its confirmation, success.
      deviceFlow: {
        enabled: true,
        userCodeInputSource: async (ctx: { body: unknown }, form: string) => void (ctx.body = `<!DOCTYPE html><html><body>${form}</body></html>`),
        userCodeConfirmSource: async (ctx: { body: unknown }, form: string) => void (ctx.body = `<!DOCTYPE html><html><body>${form}</body></html>`),
        successSource: async (ctx: { body: unknown }) => void (ctx.body = '<!DOCTYPE html><html><body><p>Signed in. You can close this page.</p></body></html>'),
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => defaultAudience,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, resource: string) => resourceServerInfo(resource),
      },
    },
    // An access token lives as long as its resource server says (accessTokenTtlFor), else `ttl`.
    ttl: { AccessToken: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) => token.resourceServer?.accessTokenTTL ?? ttl, ClientCredentials: ttl, IdToken: 3600, RefreshToken: options.refreshTokenTtl ?? 86400, DeviceCode: 600, Interaction: 600, Session: 3600, Grant: 86400 },
    // oidc-provider's default refresh-token policy, as a standard IdP has it: a refresh token only for
    // a grant with offline_access, which an authorization request keeps only with prompt=consent
    // (OpenID Connect Core §11). `refreshTokens: 'always'` restores the lenient policy.
    ...(options.refreshTokens === 'always' ? { issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token') } : {}),
    // The interactive user's claims, for ID tokens of the interactive flows.
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub, ...(emails.has(sub) ? { email: emails.get(sub) } : {}) }) }),
    claims: { openid: ['sub'], email: ['email'] },
    // The provider computes extra claims as it saves a token; the mint grant's `groups` travel in its params.
    extraTokenClaims: async (ctx: OidcContext | undefined, token: { gty?: string; kind?: string; accountId?: string }) => {
      if (token.kind === 'ClientCredentials') return options.clientGroups ? { groups: [...options.clientGroups] } : undefined;
      if (token.gty === TOKEN_EXCHANGE_GRANT) {
        // RFC 8693 §4.1: the acting party is the client that asked; the subject stays the user.
        const subject = ctx ? exchangeSubjects.get(ctx) : undefined;
        return { act: { sub: (ctx?.oidc.client as { clientId?: string } | undefined)?.clientId ?? clientId }, ...(typeof subject?.['email'] === 'string' ? { email: subject['email'] } : {}) };
      }
      if (token.gty !== MINT_GRANT) {
        const email = token.accountId === undefined ? undefined : emails.get(token.accountId);
        return email === undefined ? undefined : { email };
      }
      const groups = ctx?.oidc.params['groups'];
      const email = ctx?.oidc.params['email'];
      const extra: Record<string, unknown> = {};
      if (typeof groups === 'string') extra['groups'] = groups.split(' ').filter(Boolean);
      if (typeof email === 'string') extra['email'] = email;
      return Object.keys(extra).length > 0 ? extra : undefined;
    },
  });

  provider.registerGrantType(MINT_GRANT, async (ctx: OidcContext) => {
    const { sub, scope, resource } = ctx.oidc.params as Record<string, string | undefined>;
    if (!sub) throw new errors.InvalidRequest('sub is required');
    const audience = resource ?? defaultAudience;
    const at = new ctx.oidc.provider.AccessToken({ accountId: sub, client: ctx.oidc.client, gty: MINT_GRANT, scope: scope ?? 'openid' });
    at.resourceServer = new ctx.oidc.provider.ResourceServer(audience, resourceServerInfo(audience));
    const value = await at.save();
    ctx.body = { access_token: value, token_type: 'Bearer', expires_in: at.expiration, scope: scope ?? 'openid' };
  }, ['sub', 'scope', 'resource', 'groups', 'email']);

  provider.registerGrantType(TOKEN_EXCHANGE_GRANT, async (ctx: OidcContext) => {
    const params = ctx.oidc.params as Record<string, string | undefined>;
    const subjectToken = params['subject_token'];
    const subjectTokenType = params['subject_token_type'];
    const audience = params['audience'] ?? params['resource'];
    if (!subjectToken) throw new errors.InvalidRequest('subject_token is required');
    if (subjectTokenType !== ACCESS_TOKEN_TYPE && subjectTokenType !== JWT_TOKEN_TYPE) throw new errors.InvalidRequest('unsupported subject_token_type');
    if (!audience) throw new errors.InvalidTarget('audience is required');
    if (options.registeredAudiences && !options.registeredAudiences.includes(audience)) throw new errors.InvalidTarget('audience is not a service registered at this IdP');
    let subject: JWTPayload;
    try {
      ({ payload: subject } = await jwtVerify(subjectToken, ownKeys, { issuer, algorithms: ['RS256'] }));
    } catch {
      throw new errors.InvalidGrant('subject_token is invalid or expired');
    }
    if (typeof subject.sub !== 'string') throw new errors.InvalidGrant('subject_token has no sub');
    const requested = (params['scope'] ?? '').split(' ').filter(Boolean);
    const refused = requested.filter((scope) => !scopes.includes(scope));
    if (refused.length > 0) throw new errors.InvalidScope('requested scope is not allowed', refused.join(' '));
    exchangeSubjects.set(ctx, subject);
    const scope = requested.join(' ');
    const at = new ctx.oidc.provider.AccessToken({ accountId: subject.sub, client: ctx.oidc.client, gty: TOKEN_EXCHANGE_GRANT, scope });
    at.resourceServer = new ctx.oidc.provider.ResourceServer(audience, resourceServerInfo(audience));
    const value = await at.save();
    exchanges.push({ sub: subject.sub, audience, scope });
    ctx.body = { access_token: value, issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer', expires_in: at.expiration, ...(scope ? { scope } : {}) };
  }, ['subject_token', 'subject_token_type', 'audience', 'resource', 'scope', 'requested_token_type', 'actor_token', 'actor_token_type']);

  provider.on('grant.success', (ctx: unknown) => grants.push({ grantType: grantTypeOf(ctx), ok: true }));
  provider.on('grant.error', (ctx: unknown) => grants.push({ grantType: grantTypeOf(ctx), ok: false }));

  /** The browser's login and consent pages, answered at once for `interactiveUser` (consent automated). */
  async function interact(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (denyNext) {
      denyNext = false;
      await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'the user denied the request' }, { mergeWithLastSubmission: false });
      return;
    }
    if (details.prompt.name === 'login') {
      if (interactiveUser.email !== undefined) emails.set(interactiveUser.sub, interactiveUser.email);
      await provider.interactionFinished(req, res, { login: { accountId: interactiveUser.sub } }, { mergeWithLastSubmission: false });
      return;
    }
    const accountId = details.session?.accountId ?? interactiveUser.sub;
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId, clientId: String(details.params['client_id']) });
    if (!grant) throw new Error('the interaction names a grant the IdP does not have');
    const missing = details.prompt.details;
    if (Array.isArray(missing['missingOIDCScope'])) grant.addOIDCScope((missing['missingOIDCScope'] as string[]).join(' '));
    if (Array.isArray(missing['missingOIDCClaims'])) grant.addOIDCClaims(missing['missingOIDCClaims'] as string[]);
    const resourceScopes = missing['missingResourceScopes'];
    if (resourceScopes && typeof resourceScopes === 'object') {
      for (const [indicator, scope] of Object.entries(resourceScopes as Record<string, string[]>)) grant.addResourceScope(indicator, scope.join(' '));
    }
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  options.configure?.(provider);
  handler = provider.callback();

  const tokenEndpoint = `${issuer}/token`;
  return {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    jwksUri: `${issuer}/jwks`,
    tokenEndpoint,
    clientId,
    clientSecret,
    threeLeggedClient: { clientId: threeLeggedClientId, clientSecret: threeLeggedClientSecret, redirectPath: THREE_LEGGED_REDIRECT_PATH },
    provider,
    kid: signingKey.kid,
    requests,
    jwksFetches: () => requests.filter((r) => r.path === '/jwks').length,
    grants,
    tokenExchanges: () => grants.filter((g) => g.grantType === TOKEN_EXCHANGE_GRANT && g.ok).length,
    exchanges,
    upsertClient: (metadata) => (provider as unknown as { Client: { adapter: { upsert(id: string, payload: Record<string, unknown>): Promise<void> } } }).Client.adapter.upsert(String(metadata['client_id']), metadata),
    setInteractiveUser: (user) => void (interactiveUser = user),
    denyNextInteraction: () => void (denyNext = true),
    signToken: (claims, header = {}, options) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: signingKey.kid, ...header } as { alg: string }).sign(privateKey, options),
    async mintToken(mint = {}) {
      const form = new URLSearchParams({ scope: mint.scope ?? 'openid', resource: mint.audience ?? defaultAudience });
      if (mint.sub === undefined) form.set('grant_type', 'client_credentials');
      else {
        form.set('grant_type', MINT_GRANT);
        form.set('sub', mint.sub);
        if (mint.groups) form.set('groups', mint.groups.join(' '));
        if (mint.email) form.set('email', mint.email);
      }
      const response = await fetch(tokenEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
        body: form,
      });
      const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!response.ok || !body.access_token) throw new Error(`test IdP refused to mint a token: HTTP ${response.status} ${body.error ?? ''} ${body.error_description ?? ''}`);
      return body.access_token;
    },
    setDown(value) {
      down = value;
    },
    close: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    }),
  };
}

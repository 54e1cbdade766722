import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { errors, type OidcContext } from 'oidc-provider';

/**
 * A real OpenID provider (oidc-provider 9) on 127.0.0.1, for integration tests. One confidential
 * client gets JWT access tokens for any resource indicator (the audience):
 * - `client_credentials` with `resource` (sub = the client id), and
 * - a test-only grant, MINT_GRANT, that issues a JWT access token for a named user (sub, groups),
 *   signed with the provider's keys exactly like its other access tokens. It stands in for an
 *   interactive login, which tests cannot drive.
 */
export const MINT_GRANT = 'urn:toolgraph:test:mint-user-token';

export interface MintTokenOptions {
  /** The user; omitted: a client-credentials token whose sub is the client id. */
  sub?: string;
  /** Space-separated scopes; default `openid`. */
  scope?: string;
  /** The resource indicator, which becomes `aud`; default the IdP's `defaultAudience`. */
  audience?: string;
  /** A `groups` claim (user tokens only). */
  groups?: readonly string[];
}

export interface StartIdpOptions {
  /** Audience used when mintToken is not given one. Default `https://secrets.toolgraph.test`. */
  defaultAudience?: string;
  /** Access-token lifetime in seconds. Default 600. */
  accessTokenTtl?: number;
  /** Scopes the client may ask for, beyond `openid`. */
  scopes?: readonly string[];
  /** Hook to register more grants (e.g. token exchange) before the provider serves. */
  configure?: (provider: Provider) => void;
}

export interface TestIdp {
  issuer: string;
  discoveryUrl: string;
  jwksUri: string;
  tokenEndpoint: string;
  clientId: string;
  clientSecret: string;
  provider: Provider;
  mintToken(options?: MintTokenOptions): Promise<string>;
  close(): Promise<void>;
}

const DEFAULT_SCOPES = ['openid', 'api', 'secrets:read', 'kg:read', 'kg:write', 'kg:admin', 'query:graphql'];

export async function startIdp(options: StartIdpOptions = {}): Promise<TestIdp> {
  const defaultAudience = options.defaultAudience ?? 'https://secrets.toolgraph.test';
  const ttl = options.accessTokenTtl ?? 600;
  const scopes = [...new Set([...DEFAULT_SCOPES, ...(options.scopes ?? [])])];
  const clientId = 'toolgraph-test-client';
  const clientSecret = `test-secret-${crypto.randomUUID()}`;

  let handler: Parameters<typeof createServer>[1] = (_req, res) => res.writeHead(503).end();
  const server: Server = createServer((req, res) => handler?.(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'test-rs256', alg: 'RS256', use: 'sig' };

  const resourceServerInfo = (resource: string) => ({ audience: resource, scope: scopes.join(' '), accessTokenFormat: 'jwt', accessTokenTTL: ttl });

  const provider = new Provider(issuer, {
    clients: [{
      client_id: clientId,
      client_secret: clientSecret,
      grant_types: ['client_credentials', MINT_GRANT],
      response_types: [],
      redirect_uris: [],
      scope: scopes.join(' '),
    }],
    jwks: { keys: [signingKey] },
    scopes,
    cookies: { keys: ['toolgraph-test-cookie-key'] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => defaultAudience,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, resource: string) => resourceServerInfo(resource),
      },
    },
    ttl: { AccessToken: ttl, ClientCredentials: ttl },
    // The provider computes extra claims as it saves a token; the mint grant's `groups` travel in its params.
    extraTokenClaims: async (ctx: OidcContext | undefined, token: { gty?: string }) => {
      const groups = ctx?.oidc.params['groups'];
      if (token.gty !== MINT_GRANT || typeof groups !== 'string') return undefined;
      return { groups: groups.split(' ').filter(Boolean) };
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
  }, ['sub', 'scope', 'resource', 'groups']);
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
    provider,
    async mintToken(mint = {}) {
      const form = new URLSearchParams({ scope: mint.scope ?? 'openid', resource: mint.audience ?? defaultAudience });
      if (mint.sub === undefined) form.set('grant_type', 'client_credentials');
      else {
        form.set('grant_type', MINT_GRANT);
        form.set('sub', mint.sub);
        if (mint.groups) form.set('groups', mint.groups.join(' '));
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
    close: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    }),
  };
}

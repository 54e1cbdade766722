import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet } from 'jose';
import type * as oidc from 'openid-client';
import {
  createAccessTokenVerifier, oauthConfiguration, openDownstreamCredentials, providerServer, type DelegationSettings, type DownstreamCredentials,
  type OpenDownstreamCredentialsOptions, type RequestContext,
} from '../../src/auth/index.ts';
import { startDownstreamApi, type DownstreamApi } from '../support/downstream-api.ts';
import { startIdp, type StartIdpOptions, type TestIdp } from '../support/idp.ts';

/** The audience of callers' tokens: toolgraph's own (TOKEN_AUDIENCE). */
export const TOOLGRAPH = 'https://toolgraph.test';
/** The downstream API, a service registered at the IdP. */
export const API = 'https://api.downstream.test';
/** An audience the IdP does not know. */
export const UNREGISTERED = 'https://unregistered.test';

export interface FakeClock {
  now: () => number;
  advance(ms: number): void;
}

export function fakeClock(): FakeClock {
  let t = Date.now();
  return { now: () => t, advance: (ms) => void (t += ms) };
}

export interface DelegationFixture {
  idp: TestIdp;
  api: DownstreamApi;
  /** A fresh state dir (token sets, audit log). */
  dir: string;
  apiKey: { publicKey: string; secretKey: string };
  /** A caller token for `sub`, audience toolgraph unless said otherwise. */
  callerToken(sub: string, options?: { email?: string; audience?: string; scope?: string }): Promise<string>;
  /** The request context the tool server's auth layer builds for `token` (verified, audience `audience`). */
  contextFor(token: string, audience?: string): Promise<RequestContext>;
  settings(overrides?: Partial<DelegationSettings>): DelegationSettings;
  open(overrides?: Partial<DelegationSettings>, options?: OpenDownstreamCredentialsOptions): Promise<DownstreamCredentials>;
  close(): Promise<void>;
}

export async function startDelegationFixture(idpOptions: StartIdpOptions = {}): Promise<DelegationFixture> {
  const idp = await startIdp({ defaultAudience: TOOLGRAPH, registeredAudiences: [API, TOOLGRAPH], ...idpOptions });
  const apiKey = { publicKey: `pk-${crypto.randomUUID()}`, secretKey: `sk-${crypto.randomUUID()}` };
  const api = await startDownstreamApi({ audience: API, issuer: idp.issuer, jwksUri: idp.jwksUri, apiKey });
  const dir = mkdtempSync(join(tmpdir(), 'toolgraph-delegation-'));
  const getKey = createRemoteJWKSet(new URL(idp.jwksUri));
  const verifiers = new Map<string, ReturnType<typeof createAccessTokenVerifier>>();
  const opened: DownstreamCredentials[] = [];
  const settings = (overrides: Partial<DelegationSettings> = {}): DelegationSettings => ({
    enableDelegation: true,
    audience: API,
    delegatedScopes: 'api',
    oidcConfigUrl: idp.discoveryUrl,
    oidcClientId: idp.clientId,
    oidcClientSecret: idp.clientSecret,
    stateDir: dir,
    auditLog: join(dir, 'audit.jsonl'),
    ...overrides,
  });
  return {
    idp, api, dir, apiKey,
    callerToken: (sub, options = {}) => idp.mintToken({ sub, audience: options.audience ?? TOOLGRAPH, scope: options.scope ?? 'openid kg:read', ...(options.email ? { email: options.email } : {}) }),
    async contextFor(token, audience = TOOLGRAPH) {
      let verify = verifiers.get(audience);
      if (!verify) {
        verify = createAccessTokenVerifier({ issuer: idp.issuer, audience, getKey });
        verifiers.set(audience, verify);
      }
      const { principal } = await verify(token);
      return { principal, token, resourceMetadataUrl: `${TOOLGRAPH}/.well-known/oauth-protected-resource` };
    },
    settings,
    async open(overrides = {}, options = {}) {
      const credentials = await openDownstreamCredentials(settings(overrides), options);
      opened.push(credentials);
      return credentials;
    },
    async close() {
      await Promise.all(opened.map((c) => c.close()));
      await Promise.all([idp.close(), api.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** openid-client configurations for the fixture IdP: its main client (OIDC_CLIENT_ID) and the vendor app (three-legged). */
export async function clientConfigurations(f: DelegationFixture): Promise<{ idp: oidc.Configuration; vendor: oidc.Configuration }> {
  const server = await providerServer({ configUrl: f.idp.discoveryUrl });
  return {
    idp: oauthConfiguration(server, { clientId: f.idp.clientId, clientSecret: f.idp.clientSecret }),
    vendor: oauthConfiguration(server, { clientId: f.idp.threeLeggedClient.clientId, clientSecret: f.idp.threeLeggedClient.clientSecret }),
  };
}

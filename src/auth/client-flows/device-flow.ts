import * as oidc from 'openid-client';
import { ToolgraphError } from '../../errors/index.ts';
import { describeOAuthFailure } from './oauth-failure.ts';
import { tokenSetFromResponse, type TokenSet } from './token-set.ts';

/** What the user must be told: where to go and which code to confirm there. */
export interface DevicePrompt {
  readonly userCode: string;
  readonly verificationUri: string;
  /** The same page with the code filled in, when the IdP gives one. */
  readonly verificationUriComplete: string | undefined;
  readonly expiresInSeconds: number;
}

export interface DeviceSignInOptions {
  /** The agent (or `secret-manager`) the token set is for. */
  readonly agent: string;
  readonly scopes: readonly string[];
  /** RFC 8707 resource indicator: the API the access token is for. */
  readonly resource?: string | undefined;
  readonly onPrompt: (prompt: DevicePrompt) => void | Promise<void>;
  /** Overrides the IdP's polling interval (tests); the IdP's `interval`, else 5 s, otherwise. */
  readonly pollIntervalSeconds?: number;
  readonly signal?: AbortSignal;
  readonly now?: () => number;
}

/**
 * The device authorization grant (RFC 8628) through openid-client: ask the IdP for a user code,
 * show it, and poll the token endpoint until the user has confirmed it in a browser elsewhere. For
 * machines without a browser (a server over ssh): nothing listens locally.
 */
export async function signInWithDeviceFlow(config: oidc.Configuration, options: DeviceSignInOptions): Promise<TokenSet> {
  const server = config.serverMetadata();
  if (!server.device_authorization_endpoint) {
    throw new ToolgraphError('TG_CONFIG_INVALID', `the IdP ${server.issuer} publishes no device_authorization_endpoint: enable the device flow for this client there, or sign in with the loopback flow`, { details: { issuer: server.issuer } });
  }
  const parameters: Record<string, string> = { scope: options.scopes.join(' ') };
  if (options.resource !== undefined) parameters['resource'] = options.resource;
  let started: oidc.DeviceAuthorizationResponse;
  try {
    started = await oidc.initiateDeviceAuthorization(config, parameters);
  } catch (cause) {
    const failure = describeOAuthFailure(cause);
    throw new ToolgraphError('TG_AUTHORIZATION_FAILED', `the IdP refused to start a device sign-in for ${options.agent}: ${failure.reason}`, { details: { agent: options.agent, status: failure.status ?? null, error: failure.error ?? null }, cause });
  }
  await options.onPrompt(Object.freeze({
    userCode: started.user_code,
    verificationUri: started.verification_uri,
    verificationUriComplete: started.verification_uri_complete,
    expiresInSeconds: started.expires_in,
  }));
  const now = options.now ?? Date.now;
  const polled = options.pollIntervalSeconds === undefined ? started : { ...started, interval: options.pollIntervalSeconds };
  let answer: Awaited<ReturnType<typeof oidc.pollDeviceAuthorizationGrant>>;
  try {
    answer = await oidc.pollDeviceAuthorizationGrant(config, polled, options.resource === undefined ? undefined : { resource: options.resource }, options.signal ? { signal: options.signal } : undefined);
  } catch (cause) {
    const failure = describeOAuthFailure(cause);
    const why = failure.error === 'access_denied' ? 'the user denied it'
      : failure.error === 'expired_token' ? `the code was not confirmed within ${started.expires_in} s`
        : failure.reason;
    throw new ToolgraphError('TG_AUTHORIZATION_FAILED', `the device sign-in for ${options.agent} did not complete: ${why}`, { details: { agent: options.agent, error: failure.error ?? null }, cause });
  }
  // expires_in counts from the last poll, sent one round trip ago: the early-refresh margin covers that.
  return tokenSetFromResponse(answer, { agent: options.agent, flow: 'device_code', issuer: server.issuer, clientId: config.clientMetadata().client_id, resource: options.resource, sentAt: now() });
}

import * as oidc from 'openid-client';
import { ToolgraphError } from '../../errors/index.ts';
import { describeOAuthFailure } from './oauth-failure.ts';
import { tokenSetFromResponse, type TokenSet } from './token-set.ts';

export interface RefreshOptions {
  /** How to sign in again, for messages (`toolgraph auth login jira`). */
  readonly signInHint: string;
  readonly now: () => number;
}

/**
 * The spec's 3LO refresh (token_endpoint, client_id, client_secret, refresh_token): a new token set
 * for `set`, keeping its refresh token when the answer brings none. The set must have been issued to
 * the configured client. A refused refresh token is TG_AUTHORIZATION_FAILED saying to sign in again
 * (`details.status` 400/401); a provider out of reach is TG_DOWNSTREAM_FAILED.
 */
export async function refreshTokenSet(config: oidc.Configuration, set: TokenSet, options: RefreshOptions): Promise<TokenSet> {
  const { agent } = set;
  const { signInHint } = options;
  const clientId = config.clientMetadata().client_id;
  if (clientId !== set.clientId) {
    throw new ToolgraphError('TG_AUTHORIZATION_FAILED', `the token set of agent ${agent} was issued to client ${JSON.stringify(set.clientId)}, but the agent is configured with client ${JSON.stringify(clientId)}: sign in again (${signInHint})`, { details: { agent, fix: signInHint } });
  }
  if (set.refreshToken === undefined) {
    throw new ToolgraphError('TG_AUTHORIZATION_FAILED', `the signed-in token of agent ${agent} has expired and came without a refresh token: sign in again (${signInHint})`, { details: { agent, fix: signInHint } });
  }
  const sentAt = options.now();
  let answer: Awaited<ReturnType<typeof oidc.refreshTokenGrant>>;
  try {
    answer = await oidc.refreshTokenGrant(config, set.refreshToken, set.resource === undefined ? undefined : { resource: set.resource });
  } catch (error) {
    const failure = describeOAuthFailure(error);
    if (failure.status === 400 || failure.status === 401) {
      throw new ToolgraphError('TG_AUTHORIZATION_FAILED', `the refresh token of agent ${agent} was refused: ${failure.reason}. Sign in again (${signInHint}).`, { details: { agent, status: failure.status, error: failure.error ?? null, fix: signInHint }, cause: error });
    }
    throw new ToolgraphError('TG_DOWNSTREAM_FAILED', `the token of agent ${agent} could not be refreshed at ${set.issuer}: ${failure.reason}`, { details: { agent }, cause: error });
  }
  return tokenSetFromResponse(answer, { agent, flow: set.flow, issuer: set.issuer, clientId: set.clientId, resource: set.resource, sentAt }, set);
}

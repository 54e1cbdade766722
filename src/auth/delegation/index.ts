export { createTokenExchanger } from './token-exchange.ts';
export type { DelegatedToken } from './token-exchange.ts';
export { DelegatedTokenCache, delegatedTokenUsableUntil } from './delegated-token-cache.ts';
export { DEFAULT_SIGN_IN_SCOPES } from './downstream-agent.ts';
export type { DownstreamAgent, StaticCredentials, OAuthProvider } from './downstream-agent.ts';
export { DownstreamCredentials, DELEGATION_FALLBACK_WARNING, HYBRID_VENDOR_TOKEN_INFO, describeCredential } from './downstream-credentials.ts';
export type { AgentCredentials } from './downstream-credentials.ts';
export { openDownstreamCredentials, providerServer } from './open-downstream-credentials.ts';
export type { DelegationSettings, OpenDownstreamCredentialsOptions } from './open-downstream-credentials.ts';

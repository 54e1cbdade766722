// The resource server: bearer tokens verified against trusted issuers (discovery, keys, cache), the
// request context, protected resource metadata and WWW-Authenticate challenges.
export {
  discoverIssuer, issuerUrlProblem, openIssuerKeySet, openTrustedIssuer, loadInBackground,
  createAccessTokenVerifier, CLOCK_TOLERANCE_SECONDS, VerifiedTokenCache, bearerTokenOf, bearerChallenge,
  challengeHeaderFor, protectedResourceMetadata, resourceMetadataUrl, createResourceMetadataService,
  PROTECTED_RESOURCE_METADATA_PATH, requestPrincipal, requestContextOf, createBearerAuthenticator,
  requireBearer,
} from './resource-server/index.ts';
export type {
  Pending, TrustedIssuer, AccessTokenVerifier, VerifiedAccessToken, RequestContext, BearerAuthenticator,
  VerifiedTokenCacheStats,
} from './resource-server/index.ts';
// OAuth client flows: sign-in (device flow, three-legged with the loopback callback), token sets,
// their refresh and storage, and per-caller consent.
export {
  explicitAuthorizationServer, oauthConfiguration, TokenSetStore, StoredTokenSource, signInWithDeviceFlow,
  buildAuthorizationRequest, signInWithLoopback, DEFAULT_CALLBACK_PORT, callerOf, consentKey, TOKEN_SETS_SPACE,
} from './client-flows/index.ts';
export type {
  AuthorizationServer, OAuthClientIdentity, TokenSet, DevicePrompt, ConsentRoutes, ConsentStep,
} from './client-flows/index.ts';
// Downstream delegation: RFC 8693 token exchange and its cache, downstream agents and the
// credentials each tool call sends, and the passthrough audit log.
export {
  createTokenExchanger, DelegatedTokenCache, delegatedTokenUsableUntil, DEFAULT_SIGN_IN_SCOPES,
  DownstreamCredentials, DELEGATION_FALLBACK_WARNING, HYBRID_VENDOR_TOKEN_INFO, describeCredential,
  openDownstreamCredentials, providerServer,
} from './delegation/index.ts';
export type {
  DelegatedToken, DownstreamAgent, StaticCredentials, OAuthProvider, AgentCredentials, DelegationSettings,
  OpenDownstreamCredentialsOptions,
} from './delegation/index.ts';

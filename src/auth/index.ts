// The resource server: bearer tokens verified against trusted issuers (discovery, keys, cache), the
// request context, protected resource metadata and WWW-Authenticate challenges.
export {
  discoverIssuer, isLoopbackHost, issuerUrlProblem, openIssuerKeySet, DEFAULT_JWKS_COOLDOWN_MS,
  DEFAULT_JWKS_REFRESH_MS, openTrustedIssuer, loadInBackground, DEFAULT_RETRY_INITIAL_MS, DEFAULT_RETRY_MAX_MS,
  createAccessTokenVerifier, ACCEPTED_ALGORITHMS, CLOCK_TOLERANCE_SECONDS, VerifiedTokenCache, bearerTokenOf,
  unauthenticated, bearerChallenge, challengeHeaderFor, protectedResourceMetadata, resourceMetadataUrl,
  createResourceMetadataService, PROTECTED_RESOURCE_METADATA_PATH, requestPrincipal, requestContextOf,
  bindRequestContext, createBearerAuthenticator, requireBearer,
} from './resource-server/index.ts';
export type {
  DiscoverOptions, IssuerMetadata, IssuerKeySet, IssuerKeySetOptions, BackgroundRetryOptions, Pending, TrustedIssuer,
  TrustedIssuerOptions, AccessTokenVerifier, AccessTokenVerifierOptions, VerifiedAccessToken,
  VerifiedTokenCacheOptions, RefusalReason, BearerChallenge, ProtectedResourceMetadata, RequestContext,
  BearerAuthenticator, BearerAuthenticatorOptions, VerifiedTokenCacheStats,
} from './resource-server/index.ts';
// OAuth client flows: sign-in (device flow, three-legged with the loopback callback), token sets,
// their refresh and storage, and per-caller consent.
export {
  authorizationServerOf, explicitAuthorizationServer, oauthConfiguration, tokenSetFromResponse, tokenSetUsableUntil,
  TokenSetStore, AGENT_NAME, checkAgentName, StoredTokenSource, signInWithDeviceFlow, buildAuthorizationRequest,
  exchangeAuthorizationCode, signInWithLoopback, LoopbackCallbackServer, DEFAULT_CALLBACK_PORT, CALLBACK_PATH,
  CallerTokenSets, callerOf, consentKey, TOKEN_SETS_SPACE, DEFAULT_TOKEN_SET_TTL_MS, ConsentRequests, consentRequired,
  CONSENT_REQUESTS_SPACE, CONSENT_REQUEST_TTL_MS, refreshTokenSet, tokenSetFromJson, tokenSetToJson,
} from './client-flows/index.ts';
export type {
  AuthorizationServer, OAuthClientIdentity, OAuthClientOptions, TokenSet, SignInFlow, TokenSetOrigin,
  StoredTokenSourceOptions, DevicePrompt, DeviceSignInOptions, AuthorizationRequest, AuthorizationRequestOptions,
  CodeExchangeOptions, LoopbackSignInOptions, LoopbackCallbackOptions, CallbackRequest, Caller, CallerTokenSetsOptions,
  ConsentPrompt, ConsentRequestsOptions, ConsentRoutes, ConsentStep, ConsentCookieScope, TokenSetJson,
} from './client-flows/index.ts';
// Downstream delegation: RFC 8693 token exchange and its cache, downstream agents and the
// credentials each tool call sends, and the passthrough audit log.
export {
  createTokenExchanger, TOKEN_EXCHANGE_GRANT_TYPE, ACCESS_TOKEN_TYPE, DELEGATION_FIXES, DelegatedTokenCache,
  delegatedTokenUsableUntil, MAX_EARLY_RENEWAL_MS, AuditLog, auditUserOf, checkAgent, credentialHeaders,
  normaliseScopes, DOWNSTREAM_PATTERNS, CONSENT_OWNERS, DEFAULT_SIGN_IN_SCOPES, DownstreamCredentials,
  DELEGATION_FALLBACK_WARNING, HYBRID_VENDOR_TOKEN_INFO, audienceIncludes, describeCredential,
  openDownstreamCredentials, providerServer,
} from './delegation/index.ts';
export type {
  TokenExchanger, TokenExchangerOptions, ExchangeRequest, DelegatedToken, DelegationKey, DelegatedTokenCacheOptions,
  CachedDelegation, AuditUser, PassthroughAuditRecord, AuditLogOptions, DownstreamAgent, DownstreamPattern,
  ConsentOwner, StaticCredentials, OAuthProvider, AgentDefaults, CheckedAgent, DownstreamCredential, CredentialSource,
  ResolveOptions, AgentCredentials, ConsentsOptions, DownstreamCredentialsOptions, RefreshClientFactory,
  DelegationStats, DelegationSettings, OpenDownstreamCredentialsOptions,
} from './delegation/index.ts';

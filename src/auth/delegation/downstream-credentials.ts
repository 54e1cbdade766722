import type * as oidc from 'openid-client';
import { ToolgraphError, isToolgraphError } from '../../errors/index.ts';
import { silentLogger, type Logger } from '../../log/index.ts';
import { auditUserOf, type AuditLog } from './audit-log.ts';
import { DelegatedTokenCache, type CachedDelegation, type DelegationKey } from './delegated-token-cache.ts';
import { checkAgent, DEFAULT_SIGN_IN_SCOPES, normaliseScopes, type AgentDefaults, type CheckedAgent, type DownstreamAgent } from './downstream-agent.ts';
import type { RequestContext } from '../resource-server/index.ts';
import { StoredTokenSource, type TokenSetStore, CallerTokenSets, callerOf, ConsentRequests, consentRequired, type ConsentRoutes, type ConsentStep } from '../client-flows/index.ts';
import { DELEGATION_FIXES, type DelegatedToken, type TokenExchanger } from './token-exchange.ts';
import type { StateStore } from '../../state/index.ts';

/** Where the credential sent downstream came from. */
type CredentialSource =
  /** A token from the RFC 8693 exchange of the caller's token (fresh or cached). */
  | 'delegation'
  /** The hybrid agent's vendor device flow's cached token. */
  | 'device-flow'
  /** The caller's own token, passed on because its audience includes the API (full delegation without delegation, hybrid). */
  | 'caller-token'
  /** The token set a user consented to (three-legged). */
  | 'three-legged'
  /** The agent's own credentials (env-var credentials, API keys). */
  | 'credentials';

/** What to send downstream. Holds a secret: never log it. */
export interface DownstreamCredential {
  /** Lower-case header names: `authorization`, or API-key headers; empty for `credentials: {kind: 'none'}`. */
  readonly headers: Readonly<Record<string, string>>;
  readonly source: CredentialSource;
  /** True when the agent's credentials stand in for a delegation that failed. */
  readonly fallback: boolean;
  /** For `delegation`: true when no exchange was made for this call (cached, or shared with a call in flight). */
  readonly cached: boolean;
}

export interface ResolveOptions {
  /**
   * The caller, as the auth layer verified it (the tool run's request context); absent or `null`:
   * there is none (AUTH_TYPE=none, stdio: the local operator).
   */
  readonly context?: RequestContext | null | undefined;
  /** What the tool does downstream (e.g. `traces.list`), for the passthrough audit record. */
  readonly operation?: string | undefined;
  /**
   * Scopes of the delegated token for this call, instead of the agent's: a tool whose actions need
   * different scopes (the graph tool: a read scope to query, a write scope to mutate) asks for each.
   */
  readonly scopes?: string | undefined;
}

/** One registered agent: resolve its credential for the current caller. */
export interface AgentCredentials {
  readonly name: string;
  resolve(options?: ResolveOptions): Promise<DownstreamCredential>;
  /**
   * Drops the caller's cached delegated token for this agent, e.g. after the API answered 401 to it
   * (revoked before it expired); the next `resolve` exchanges again.
   */
  forget(options?: Pick<ResolveOptions, 'context' | 'scopes'>): void;
}

/** Per-caller consent: the store, the routes, the SSO client and how long a consent link lasts. */
interface ConsentsOptions {
  readonly state: StateStore;
  readonly routes: ConsentRoutes;
  /** toolgraph's OIDC client at the SSO IdP (discovery at OIDC_CONFIG_URL, OIDC_CLIENT_ID). */
  readonly signIn: () => Promise<oidc.Configuration>;
  /** TOOLGRAPH_CONSENT_LINK_TTL_SECS in ms; default 10 minutes. */
  readonly linkTtlMs?: number;
}

/** How to build the OAuth client that refreshes an agent's signed-in token set. */
type RefreshClientFactory = (agent: DownstreamAgent) => Promise<oidc.Configuration>;

export interface DownstreamCredentialsOptions {
  /** ENABLE_DELEGATION, AUDIENCE and DELEGATED_SCOPES. */
  readonly defaults: AgentDefaults;
  readonly exchanger: TokenExchanger;
  readonly tokenSets: TokenSetStore;
  /** Builds the refresh client of `hybrid` (device flow) and `three-legged` agents. */
  readonly refreshClient: RefreshClientFactory;
  /** Required when delegation is enabled and an `identity-passthrough` agent is registered. */
  readonly auditLog?: AuditLog;
  /**
   * Per-caller three-legged consent: where token sets and open consent requests are kept (the
   * configured state store), this server's consent routes, and toolgraph's own client at the SSO IdP
   * (OIDC_CLIENT_ID), which signs the consenting browser in to prove it is the caller's. Without it, a
   * three-legged agent with `consent: 'caller'` serves only requests without a caller (the operator's sign-in).
   */
  readonly consents?: ConsentsOptions;
  readonly logger?: Logger;
  readonly now?: () => number;
  readonly cacheMaxEntries?: number;
}

/** What the delegation did since the process started (metrics read these; never a subject or a token). */
export interface DelegationStats {
  /** Delegated tokens served from the cache. */
  cacheHits: number;
  /** Served by an identical exchange already in flight. */
  shared: number;
  /** Not cached: an exchange was made (the cache's misses). */
  cacheMisses: number;
  /** RFC 8693 exchanges that failed. */
  exchangeFailures: number;
  /** Calls that went out with the agent's own credentials because delegation failed (the spec's warning). */
  fallbacks: number;
}

/** The spec's warning, verbatim: a delegation failed and the agent's (env-var) credentials are used. */
export const DELEGATION_FALLBACK_WARNING = 'OIDC delegation failed, falling back to credentials';

/** The info line of a hybrid agent calling with its vendor flow's cached token (step 2). */
export const HYBRID_VENDOR_TOKEN_INFO = 'hybrid agent calls with the vendor flow\'s cached token';

const DELEGATION_FAILURES: ReadonlySet<string> = new Set(['TG_NO_USER_TOKEN', 'TG_NO_TOKEN_ENDPOINT', 'TG_TOKEN_EXCHANGE_FAILED']);

function isDelegationFailure(error: unknown): error is ToolgraphError {
  return isToolgraphError(error) && DELEGATION_FAILURES.has(error.code);
}

function bearer(tokenType: string, token: string): Readonly<Record<string, string>> {
  return Object.freeze({ authorization: `${tokenType} ${token}` });
}

/** One frozen headers object per delegated token, so a cache hit allocates nothing for them. */
const delegatedHeaders = new WeakMap<DelegatedToken, Readonly<Record<string, string>>>();

function headersOf(token: DelegatedToken): Readonly<Record<string, string>> {
  let headers = delegatedHeaders.get(token);
  if (headers === undefined) {
    headers = bearer(token.tokenType, token.accessToken);
    delegatedHeaders.set(token, headers);
  }
  return headers;
}

/** How a credential is named in logs: the scheme it is sent with and where it came from, never its value (`bearer:delegation`, `basic:credentials`). */
export function describeCredential(credential: DownstreamCredential): string {
  const authorization = credential.headers['authorization'];
  const kind = authorization !== undefined ? authorization.slice(0, authorization.indexOf(' ')).toLowerCase() : Object.keys(credential.headers).length > 0 ? 'headers' : 'none';
  return `${kind}:${credential.source}`;
}

/** Whether a verified `aud` claim (a string or a list) names `audience` exactly. */
function audienceIncludes(aud: unknown, audience: string): boolean {
  if (typeof aud === 'string') return aud === audience;
  return Array.isArray(aud) && aud.includes(audience);
}

function describeAudience(aud: unknown): string {
  if (typeof aud === 'string') return JSON.stringify(aud);
  if (Array.isArray(aud)) return `[${aud.map((a) => JSON.stringify(a)).join(', ')}]`;
  return 'absent';
}

/**
 * Resolves what a tool sends to a downstream API, for the caller of the request being served,
 * following the agent's pattern and the spec's rules and priority order (docs/delegation.md).
 */
export class DownstreamCredentials {
  readonly #options: DownstreamCredentialsOptions;
  readonly #cache: DelegatedTokenCache;
  readonly #logger: Logger;
  readonly #agents = new Map<string, AgentCredentials>();
  readonly #checked = new Map<string, CheckedAgent>();
  readonly #callerSets: CallerTokenSets | undefined;
  readonly #consentRequests: ConsentRequests | undefined;
  readonly #stats: DelegationStats = { cacheHits: 0, shared: 0, cacheMisses: 0, exchangeFailures: 0, fallbacks: 0 };

  constructor(options: DownstreamCredentialsOptions) {
    this.#options = options;
    this.#cache = new DelegatedTokenCache({ now: options.now, maxEntries: options.cacheMaxEntries });
    this.#logger = (options.logger ?? silentLogger()).child({ component: 'delegation' });
    if (options.consents) {
      this.#callerSets = new CallerTokenSets({ state: options.consents.state, now: options.now, logger: options.logger });
      this.#consentRequests = new ConsentRequests({ state: options.consents.state, routes: options.consents.routes, ttlMs: options.consents.linkTtlMs, now: options.now });
    }
  }

  /** Per-caller token sets (tests and diagnostics: `refreshes`); undefined without `consents`. */
  get callerTokenSets(): CallerTokenSets | undefined {
    return this.#callerSets;
  }

  get delegationEnabled(): boolean {
    return this.#options.defaults.delegationEnabled;
  }

  /** Delegated-token cache hits and misses, exchange failures and fallbacks so far (read by the metrics). */
  get stats(): Readonly<DelegationStats> {
    return this.#stats;
  }

  /** Delegated tokens held (diagnostics and tests). */
  get cachedDelegations(): number {
    return this.#cache.size;
  }

  /**
   * Registers an agent (checking its description: TG_CONFIG_INVALID names what is missing) and
   * returns its resolver. Registering a name again replaces the earlier description.
   */
  agent(description: DownstreamAgent): AgentCredentials {
    const checked = checkAgent(description, this.#options.defaults);
    if (checked.agent.pattern === 'identity-passthrough' && this.delegationEnabled && this.#options.auditLog === undefined) {
      throw new ToolgraphError('TG_CONFIG_INVALID', `agent ${description.name}: identity passthrough with delegation enabled writes an audit log, and none is configured`, { details: { agent: description.name } });
    }
    const tokens = checked.agent.pattern === 'hybrid' || checked.agent.pattern === 'three-legged'
      ? new StoredTokenSource({
        store: this.#options.tokenSets,
        agent: description.name,
        client: () => this.#options.refreshClient(checked.agent),
        signInHint: `toolgraph auth login ${description.name}${checked.agent.pattern === 'hybrid' ? ' --device' : ''}`,
        now: this.#options.now,
        logger: this.#options.logger,
      })
      : undefined;
    const handle: AgentCredentials = {
      name: description.name,
      resolve: (options = {}) => this.#resolve(checked, tokens, options.context ?? undefined, options),
      forget: (options = {}) => {
        const context = options.context ?? undefined;
        if (context === undefined || checked.audience === undefined) return;
        this.#cache.delete(this.#delegationKey(checked, context, options.scopes));
      },
    };
    this.#agents.set(description.name, handle);
    this.#checked.set(description.name, checked);
    return handle;
  }

  #consentFlow(): { requests: ConsentRequests; sets: CallerTokenSets; signIn: () => Promise<oidc.Configuration> } {
    if (this.#consentRequests === undefined || this.#callerSets === undefined || this.#options.consents === undefined) throw new ToolgraphError('TG_NOT_FOUND', 'This server asks for no per-caller consent.');
    return { requests: this.#consentRequests, sets: this.#callerSets, signIn: this.#options.consents.signIn };
  }

  /** The OAuth client of a three-legged agent a consent flow names (it may be gone since the link was issued). */
  async #providerOf(name: string): Promise<oidc.Configuration> {
    const checked = this.#checked.get(name);
    if (checked === undefined || checked.agent.pattern !== 'three-legged') throw new ToolgraphError('TG_AUTHORIZATION_FAILED', `This sign-in was for agent ${name}, which this server no longer has.`, { details: { agent: name } });
    return this.#options.refreshClient(checked.agent);
  }

  /**
   * Step 1 of a caller's consent: the link the tool answered, opened in a browser. Takes the link
   * (once), and answers where the browser goes to sign in at the SSO IdP and the binding cookie to set.
   */
  async startConsent(startUrl: URL): Promise<ConsentStep> {
    const flow = this.#consentFlow();
    return flow.requests.start(startUrl, await flow.signIn());
  }

  /**
   * Step 2: the SSO IdP's redirect back. Only the browser that opened the link (its binding cookie),
   * signed in as the caller the link was issued to, is sent on to the agent's provider.
   */
  async consentSignedIn(arrived: URL, cookieHeader: string | undefined): Promise<ConsentStep> {
    const flow = this.#consentFlow();
    return flow.requests.signedIn(arrived, cookieHeader, await flow.signIn(), (name) => this.#providerOf(name));
  }

  /**
   * Step 3: the provider's redirect to this server's callback route (code and state), on whichever
   * replica it lands, from the browser holding the flow's binding cookie. The code is exchanged with
   * the PKCE verifier of the request its state names, and the token set stored for the caller the
   * link was issued to. Answers the agent's name and the Set-Cookie header that clears the binding.
   */
  async completeConsent(arrived: URL, cookieHeader: string | undefined): Promise<{ agent: string; clearCookie: string }> {
    const flow = this.#consentFlow();
    const { set, caller, clearCookie } = await flow.requests.complete(arrived, cookieHeader, (name) => this.#providerOf(name));
    await flow.sets.save(set, caller);
    this.#logger.info({ agent: set.agent, refreshable: set.refreshToken !== undefined }, 'a caller consented: token set stored');
    return { agent: set.agent, clearCookie };
  }

  /** Flushes and closes the audit log. */
  async close(): Promise<void> {
    await this.#options.auditLog?.close();
  }

  /** The resolver of an agent registered earlier, by name. */
  registered(name: string): AgentCredentials | undefined {
    return this.#agents.get(name);
  }

  /** Registers the agent if needed and resolves its credential. */
  resolve(agent: DownstreamAgent, options: ResolveOptions = {}): Promise<DownstreamCredential> {
    return this.agent(agent).resolve(options);
  }

  async #resolve(checked: CheckedAgent, tokens: StoredTokenSource | undefined, context: RequestContext | undefined, options: ResolveOptions): Promise<DownstreamCredential> {
    switch (checked.agent.pattern) {
      case 'identity-passthrough':
        if (this.delegationEnabled) await this.#options.auditLog!.record({ agent: checked.agent.name, ...(options.operation === undefined ? {} : { operation: options.operation }), user: auditUserOf(context?.principal) });
        return this.#credentials(checked, false);
      case 'full-delegation':
        if (!this.delegationEnabled) return this.#callerToken(checked, context) ?? this.#credentials(checked, false);
        try {
          return await this.#delegate(checked, context, options.scopes);
        } catch (error) {
          if (!checked.hasFallback || !isDelegationFailure(error)) throw error;
          this.#warnFallback(checked, error);
          return this.#credentials(checked, true);
        }
      case 'hybrid':
        return this.#hybrid(checked, tokens!, context, options.scopes);
      case 'three-legged': {
        // A request without a caller is the local operator: the operator's sign-in serves it.
        if (checked.consent === 'caller' && context !== undefined) return this.#callerConsent(checked, context);
        const set = await tokens!.current();
        if (set !== undefined) return { headers: bearer(set.tokenType, set.accessToken), source: 'three-legged', fallback: false, cached: false };
        if (checked.hasFallback) return this.#credentials(checked, true);
        throw new ToolgraphError('TG_NO_DOWNSTREAM_CREDENTIAL', `No credential for agent ${checked.agent.name}: it uses three-legged OAuth and no user has signed it in. Run \`toolgraph auth login ${checked.agent.name}\` on the server (see docs/delegation.md).`, { details: { agent: checked.agent.name, fix: `toolgraph auth login ${checked.agent.name}` } });
      }
    }
  }

  /** The caller's own consent: their token set, refreshed; else the URL to consent at, as the call's answer. */
  async #callerConsent(checked: CheckedAgent, context: RequestContext): Promise<DownstreamCredential> {
    const name = checked.agent.name;
    if (this.#callerSets === undefined || this.#consentRequests === undefined) {
      throw new ToolgraphError('TG_CONFIG_INVALID', `agent ${name}: per-caller consent needs the state store and callback route toolgraph serve provides; use consent operator for the token set of \`toolgraph auth login ${name}\``, { details: { agent: name } });
    }
    const caller = callerOf(context);
    const client = () => this.#options.refreshClient(checked.agent);
    const set = await this.#callerSets.current(name, caller, client);
    if (set !== undefined) return { headers: bearer(set.tokenType, set.accessToken), source: 'three-legged', fallback: false, cached: false };
    const provider = checked.agent.provider!;
    const config = await client();
    const prompt = await this.#consentRequests.prompt(name, caller, { scopes: provider.scopes ?? DEFAULT_SIGN_IN_SCOPES, resource: provider.resource ?? checked.agent.audience });
    throw consentRequired(prompt, config.serverMetadata().issuer);
  }

  /**
   * The caller's own token when its verified audience names the agent's API: it was issued for that
   * API. Any other token stays here (MCP authorization: no token passthrough).
   */
  #callerToken(checked: CheckedAgent, context: RequestContext | undefined): DownstreamCredential | undefined {
    if (!context?.token || checked.audience === undefined) return undefined;
    if (!audienceIncludes(context.principal.claims?.['aud'], checked.audience)) return undefined;
    return { headers: bearer('Bearer', context.token), source: 'caller-token', fallback: false, cached: false };
  }

  #credentials(checked: CheckedAgent, fallback: boolean): DownstreamCredential {
    return { headers: checked.credentialHeaders ?? {}, source: 'credentials', fallback, cached: false };
  }

  #warnFallback(checked: CheckedAgent, error: ToolgraphError): void {
    this.#stats.fallbacks++;
    this.#logger.warn({ agent: checked.agent.name, pattern: checked.agent.pattern, code: error.code, reason: error.message }, DELEGATION_FALLBACK_WARNING);
  }

  async #delegate(checked: CheckedAgent, context: RequestContext | undefined, scopes: string | undefined): Promise<DownstreamCredential> {
    const subjectToken = context?.token;
    if (!subjectToken) {
      throw new ToolgraphError('TG_NO_USER_TOKEN', 'No user token available for delegation', { details: { agent: checked.agent.name, fix: DELEGATION_FIXES.TG_NO_USER_TOKEN } });
    }
    const audience = checked.audience as string;
    const key = this.#delegationKey(checked, context!, scopes);
    const exchanger = this.#options.exchanger;
    let exchanged = false;
    let found: CachedDelegation;
    try {
      found = await this.#cache.get(key, () => {
        exchanged = true;
        return exchanger.exchange({ subjectToken, audience, scopes: key.scopes });
      });
    } catch (error) {
      if (exchanged) this.#stats.exchangeFailures++;
      throw error;
    }
    const { token, from } = found;
    if (from === 'cache') this.#stats.cacheHits++;
    else if (from === 'shared') this.#stats.shared++;
    else this.#stats.cacheMisses++;
    if (from === 'exchange') this.#logger.debug({ agent: checked.agent.name, audience, scopes: key.scopes }, 'exchanged the caller\'s token for a delegated token');
    return { headers: headersOf(token), source: 'delegation', fallback: false, cached: from !== 'exchange' };
  }

  #delegationKey(checked: CheckedAgent, context: RequestContext, scopes: string | undefined): DelegationKey {
    const issuer = context.principal.claims?.['iss'];
    return { issuer: typeof issuer === 'string' ? issuer : undefined, subject: context.principal.subject, audience: checked.audience as string, scopes: scopes === undefined ? checked.scopes : normaliseScopes(scopes) };
  }

  /**
   * The spec's hybrid priority order: (1) delegation, (2) the vendor device flow's cached token, (3)
   * the caller's token, only when issued for the API; the agent's credentials last. The spec's
   * warning belongs to falling back to those credentials; steps 2 and 3 are the pattern working as
   * designed, so using the vendor token is an info line (agent and why, never a token or a subject).
   */
  async #hybrid(checked: CheckedAgent, tokens: StoredTokenSource, context: RequestContext | undefined, scopes: string | undefined): Promise<DownstreamCredential> {
    const name = checked.agent.name;
    const audience = checked.audience as string;
    const steps: string[] = [];
    let delegationFailure: ToolgraphError | undefined;
    if (this.delegationEnabled) {
      try {
        return await this.#delegate(checked, context, scopes);
      } catch (error) {
        if (!isDelegationFailure(error)) throw error;
        delegationFailure = error;
        steps.push(`1. OIDC delegation failed: ${error.code}: ${error.message.replace(/\.$/, '')}`);
      }
    } else {
      steps.push('1. OIDC delegation is disabled (ENABLE_DELEGATION=false)');
    }
    try {
      const set = await tokens.current();
      if (set !== undefined) {
        this.#logger.info({ agent: name, pattern: 'hybrid', step: 2, delegation: delegationFailure?.code ?? 'disabled' }, HYBRID_VENDOR_TOKEN_INFO);
        return { headers: bearer(set.tokenType, set.accessToken), source: 'device-flow', fallback: false, cached: false };
      }
      steps.push(`2. the device flow has no cached token (run \`toolgraph auth login ${name} --device\`)`);
    } catch (error) {
      if (!isToolgraphError(error)) throw error;
      steps.push(`2. the device flow's cached token is unusable: ${error.code}: ${error.message}`);
    }
    if (context?.token) {
      const aud = context.principal.claims?.['aud'];
      // Only a token issued for this API may go to it (MCP authorization: no token passthrough).
      if (audienceIncludes(aud, audience)) return { headers: bearer('Bearer', context.token), source: 'caller-token', fallback: false, cached: false };
      steps.push(`3. the caller's token is not passed on: its audience ${describeAudience(aud)} does not include ${JSON.stringify(audience)}, and a token may only go to an API it was issued for`);
    } else {
      steps.push('3. there is no caller token to pass on');
    }
    if (checked.hasFallback) {
      if (delegationFailure !== undefined) this.#warnFallback(checked, delegationFailure);
      return this.#credentials(checked, true);
    }
    throw new ToolgraphError('TG_NO_DOWNSTREAM_CREDENTIAL', `No credential for agent ${name} (hybrid: OIDC delegation, then the device flow's cached token, then the caller's token): ${steps.join('; ')}.`, { details: { agent: name, steps } });
  }
}

import { openDownstreamCredentials, type DownstreamCredentials } from '../auth/index.ts';
import type { ResolvedValues } from '../config/index.ts';
import type { HttpService } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { buildCatalogueEntriesStrict, type Catalogue, type CatalogueVisibility } from '../manifest/index.ts';
import { createSecretsBackend, type SecretValue } from '../secrets/index.ts';
import { openStateStore, type StateStore } from '../state/index.ts';
import { asksCallerConsent, consentRoutesOf, createConsentService, createToolServer, readClientSecrets, startOperationToolSet, TOOLS_CATALOGUE_SOURCE, type GraphExplainer, type ToolRegistry } from '../tools/index.ts';
import { DEMO_GRAPH } from './constants.ts';
import { tokenAudienceOf } from './bearer-auth.ts';
import { isUnspecifiedAddress } from './exposure.ts';

export interface ToolServiceOptions {
  readonly values: ResolvedValues;
  readonly logger: Logger;
  /** The catalogue the `schemas` tool reads and the tool actions are published in. */
  readonly catalogue: Catalogue;
  /** Which catalogue entries a caller of the `schemas` tool may see: the decision GET /schemas/* asks. Absent: every entry is public. */
  readonly catalogueVisibility?: CatalogueVisibility;
  /** `http://host:port` as bound. */
  readonly origin: string;
  /** Whether this process runs the graph service (the graph agent's default). */
  readonly localGraph: boolean;
  /** TOOLGRAPH_PUBLIC_URL or the bound origin. */
  readonly publicBase: string;
  /** Initial contents of the in-memory secrets backend (TOOLGRAPH_SECRETS_FILE). */
  readonly secretsSeed?: Readonly<Record<string, SecretValue>>;
  /**
   * The downstream-credentials model (tests). Default: `openDownstreamCredentials` on the settings
   * (RFC 8693 exchange with ENABLE_DELEGATION, cache, fallback, audit log, signed-in token sets).
   */
  readonly credentials?: DownstreamCredentials;
  /** `graph.explain` for the local graph service (given when this process runs it). */
  readonly explain?: GraphExplainer;
  /**
   * The demo graph's SDL now (given when this process runs the graph service): the trusted GraphQL
   * documents become operation tools (TOOLGRAPH_MCP_OPERATION_TOOLS) when they validate against it.
   */
  readonly graphSdl?: () => string | undefined;
  /** The trusted documents the graph service runs (sha256 → text); none: no persisted-document tools. */
  readonly trustedDocuments?: ReadonlyMap<string, string>;
  /**
   * Where MCP sessions and per-caller consents live: the state store of `serve`. Without it, sessions
   * stay in this process and, when an agent asks for consent, the configured store is opened
   * (`openStateStore`: file under the data dir, or PostgreSQL, as the graphs).
   */
  readonly state?: StateStore;
}

/** The tool server's services: `/mcp` behind bearer authentication, and the open routes beside it. */
export interface ToolService {
  readonly service: HttpService;
  /** Routes a browser reaches without a bearer token: the consent callback, when an agent asks for consent. */
  readonly openServices: readonly HttpService[];
  /** The tool registry (the metrics observe its calls) and the downstream credentials (their delegation stats). */
  readonly registry: ToolRegistry;
  readonly credentials: DownstreamCredentials;
  close(): Promise<void>;
}

/** This process's own origin as a client on this machine reaches it (0.0.0.0 and :: are not addresses to call). */
function localOrigin(origin: string): string {
  const url = new URL(origin);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!isUnspecifiedAddress(host)) return origin;
  url.hostname = host.includes(':') ? '[::1]' : '127.0.0.1';
  return url.origin;
}


/**
 * The MCP tool server of `toolgraph serve` (service name `tools`): its agents from the config, the
 * `graph` agent calling this process's graph service unless configured otherwise, the `schemas`
 * agent on the shared catalogue, the `secrets` agent on the configured backend. Its actions join
 * the catalogue as the source `tools`.
 */
export async function openToolService(options: ToolServiceOptions): Promise<ToolService> {
  const { values, logger } = options;
  // Per-caller consent: token sets and open consent requests in the state store every replica shares,
  // completed through this server's own consent routes under TOOLGRAPH_PUBLIC_URL. Without token
  // authentication there is no caller (every call is the operator's), so there is nothing to consent per caller.
  const consentAgents = values.authType === 'none' ? [] : Object.values(values.agents).filter(asksCallerConsent).map((a) => a.name);
  const ownState = consentAgents.length > 0 && options.state === undefined;
  const state = options.state ?? (consentAgents.length === 0 ? undefined : openStateStore({
    kind: values.persistence, dataDir: values.dataDir, schema: values.databaseSchema, ...(values.databaseUrl === undefined ? {} : { databaseUrl: values.databaseUrl }),
  }));
  const routes = consentRoutesOf(options.publicBase);
  if (consentAgents.length > 0) {
    logger.info({ agents: consentAgents, callbackUrl: routes.callbackUrl, signedInUrl: routes.signedInUrl, store: state?.kind }, 'per-caller consent on: register the callback URL as a redirect URI at each agent\'s provider, and the signed-in URL for OIDC_CLIENT_ID at the IdP');
  }
  let credentials: DownstreamCredentials;
  try {
    // With delegation, the IdP's token endpoint is discovered now and, while the IdP is down, in the background.
    credentials = options.credentials ?? await openDownstreamCredentials(values, { logger, ...(state === undefined || consentAgents.length === 0 ? {} : { consents: { state, routes, linkTtlMs: values.consentLinkTtlSecs * 1000 } }) });
  } catch (error) {
    if (ownState) await state?.close();
    throw error;
  }
  const secrets = createSecretsBackend(values, {
    logger,
    ...(options.secretsSeed ? { seed: options.secretsSeed } : {}),
    seedHint: 'it starts empty in every process; seed it with TOOLGRAPH_SECRETS_FILE, or use SECRETS_BACKEND=store',
  });
  let server: ReturnType<typeof createToolServer>;
  try {
    const clientSecrets = await readClientSecrets(values.agents, secrets);
    server = createToolServer({
      agents: values.agents,
      clientSecrets,
      localGraphUrl: options.localGraph ? localOrigin(options.origin) : undefined,
      tokenAudience: values.authType === 'none' ? undefined : tokenAudienceOf(values, options.publicBase),
      catalogue: options.catalogue,
      ...(options.catalogueVisibility ? { catalogueVisibility: options.catalogueVisibility } : {}),
      secrets,
      logger,
      maxSessions: values.mcpMaxSessions,
      maxSessionsPerSubject: values.mcpMaxSessionsPerSubject,
      maxSubscriptions: values.mcpMaxSubscriptions,
      credentials,
      ...(state ? { state } : {}),
      ...(options.explain ? { explain: options.explain } : {}),
    });
  } catch (error) {
    await credentials.close();
    if (ownState) await state?.close();
    throw error;
  }
  options.catalogue.putSource(TOOLS_CATALOGUE_SOURCE, buildCatalogueEntriesStrict(server.registry.catalogueSource()));
  const operations = startOperationToolSet({
    mode: values.mcpOperationTools,
    mutations: values.mcpOperationMutations,
    catalogue: options.catalogue,
    registry: server.registry,
    graph: server.graph,
    graphName: DEMO_GRAPH,
    documents: options.trustedDocuments ?? new Map(),
    sdl: options.graphSdl ?? (() => undefined),
    ...(options.catalogueVisibility ? { visibility: options.catalogueVisibility } : {}),
    logger,
  });
  return {
    service: server.service,
    openServices: consentAgents.length === 0 ? [] : [createConsentService(credentials, logger)],
    registry: server.registry,
    credentials,
    async close() {
      operations.close();
      await server.close();
      if (ownState) await state?.close();
    },
  };
}

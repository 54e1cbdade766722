import { openDownstreamCredentials, type DownstreamCredentials } from '../auth/index.ts';
import type { ResolvedValues } from '../config/index.ts';
import type { HttpService } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { buildCatalogueEntriesStrict, type Catalogue } from '../manifest/index.ts';
import { createSecretsBackend, type SecretValue } from '../secrets/index.ts';
import { createToolServer, readClientSecrets, TOOLS_CATALOGUE_SOURCE, type GraphExplainer } from '../tools/index.ts';
import { tokenAudienceOf } from './bearer-auth.ts';
import { isUnspecifiedAddress } from './exposure.ts';

export interface ToolServiceOptions {
  readonly values: ResolvedValues;
  readonly logger: Logger;
  /** The catalogue the `schemas` tool reads and the tool actions are published in. */
  readonly catalogue: Catalogue;
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
}

/** This process's own origin as a client on this machine reaches it (0.0.0.0 and :: are not addresses to call). */
export function localOrigin(origin: string): string {
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
export async function openToolService(options: ToolServiceOptions): Promise<{ service: HttpService; close(): Promise<void> }> {
  const { values, logger } = options;
  // With delegation, the IdP's token endpoint is discovered now: an unreachable IdP stops start-up.
  const credentials = options.credentials ?? await openDownstreamCredentials(values, { logger });
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
      secrets,
      logger,
      maxSessions: values.mcpMaxSessions,
      maxSessionsPerSubject: values.mcpMaxSessionsPerSubject,
      credentials,
      ...(options.explain ? { explain: options.explain } : {}),
    });
  } catch (error) {
    await credentials.close();
    throw error;
  }
  options.catalogue.putSource(TOOLS_CATALOGUE_SOURCE, buildCatalogueEntriesStrict(server.registry.catalogueSource()));
  return { service: server.service, close: () => server.close() };
}

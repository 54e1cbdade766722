import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { openDownstreamCredentials } from '../auth/index.ts';
import type { ResolvedConfig } from '../config/index.ts';
import { ToolgraphError } from '../errors/index.ts';
import type { Logger } from '../log/index.ts';
import { buildCatalogueEntriesStrict, createStaticCatalogue } from '../manifest/index.ts';
import { createSecretsBackend, type SecretValue } from '../secrets/index.ts';
import { createMcpServer, createToolAgents, readClientSecrets, ToolRegistry, TOOLS_CATALOGUE_SOURCE } from '../tools/index.ts';
import { refuseSettingsOfMissingFeatures, UNSERVED_OPERATIONS } from './features-not-in-build.ts';

export interface StdioToolServerOptions {
  readonly config: ResolvedConfig;
  /** Writes to stderr: stdout carries the protocol. */
  readonly logger: Logger;
  readonly secretsSeed?: Readonly<Record<string, SecretValue>>;
  readonly stdin?: Readable;
  readonly stdout?: Writable;
}

export interface RunningStdioToolServer {
  /** Settles when the client closes stdin (or close() is called). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * The tool server alone on stdio (`toolgraph tools serve --transport stdio`), for an MCP client that
 * starts it as a subprocess. There is no HTTP layer, so no bearer token: the caller is the local
 * operator who started the process, like AUTH_TYPE=none, and AUTH_TYPE must be none. The graph
 * agent calls the graph service of `toolgraph serve` at HOST:PORT unless configured otherwise.
 */
export async function startStdioToolServer(options: StdioToolServerOptions): Promise<RunningStdioToolServer> {
  const { config, logger } = options;
  const values = config.values;
  refuseSettingsOfMissingFeatures(config);
  if (values.authType !== 'none') {
    throw new ToolgraphError('TG_CONFIG_INVALID', `AUTH_TYPE ${values.authType} with MCP_TRANSPORT stdio: a stdio server has no HTTP request to carry a bearer token, so its caller is the local operator; unset AUTH_TYPE (none), or serve over streamable-http to require tokens.`, {
      details: { setting: 'authType' },
    });
  }
  const origin = `http://${values.host.includes(':') ? `[${values.host}]` : values.host}:${values.port}`;
  const publicBase = values.publicUrl ?? origin;
  const catalogue = createStaticCatalogue({ publicBaseUrl: publicBase, withoutOperations: UNSERVED_OPERATIONS });
  const secrets = createSecretsBackend(values, {
    logger,
    ...(options.secretsSeed ? { seed: options.secretsSeed } : {}),
    seedHint: 'it starts empty in every process; seed it with TOOLGRAPH_SECRETS_FILE, or use SECRETS_BACKEND=store',
  });
  const clientSecrets = await readClientSecrets(values.agents, secrets);
  // No bearer token reaches a stdio server, so there is no caller token to exchange: delegation is off.
  const credentials = await openDownstreamCredentials({ ...values, enableDelegation: false }, { logger });
  const { agents, clients } = createToolAgents({
    clientSecrets,
    agents: values.agents,
    localGraphUrl: values.port === 0 ? undefined : origin,
    tokenAudience: undefined,
    catalogue,
    secrets,
    credentials,
    logger,
  });
  const registry = new ToolRegistry(agents);
  catalogue.putSource(TOOLS_CATALOGUE_SOURCE, buildCatalogueEntriesStrict(registry.catalogueSource()));
  const server = createMcpServer(registry, logger);
  const transport = new StdioServerTransport(options.stdin, options.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => {
      for (const client of clients) client.close();
      void credentials.close().finally(resolve);
    };
  });
  await server.connect(transport);
  // The SDK's stdio transport does not notice the end of stdin by itself.
  (options.stdin ?? process.stdin).once('end', () => void server.close());
  logger.info({ tools: registry.names }, 'MCP tool server on stdio');
  return { closed, close: () => server.close() };
}

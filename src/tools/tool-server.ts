import type { DownstreamCredentials } from '../auth/index.ts';
import { unconfiguredAgent, type AgentSettings, type AgentsSettings } from '../config/index.ts';
import type { HttpService } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import type { Catalogue, CatalogueVisibility } from '../manifest/index.ts';
import type { SecretsBackend } from '../secrets/index.ts';
import type { StateStore } from '../state/index.ts';
import { downstreamAgentOf } from './agent-description.ts';
import { createDownstreamHttp, type DownstreamHttp } from './downstream-http.ts';
import { createGraphAgent, type GraphExplainer } from './graph/graph-agent.ts';
import { createGraphServiceClient, type GraphServiceClient } from './graph/graph-service-client.ts';
import { asksCallerConsent, createHttpAgent } from './http-agent.ts';
import { createSchemasAgent } from './schemas-agent.ts';
import { createSecretsAgent } from './secrets-agent.ts';
import { createToolHttpService } from './tool-http-service.ts';
import type { ToolAgent } from './tool-agent.ts';
import { ToolRegistry } from './tool-registry.ts';

export interface ToolServerOptions {
  /** The configured downstream agents (config.json `agents`, TOOLGRAPH_AGENT_*, --agent). */
  readonly agents: AgentsSettings;
  /**
   * The graph service a graph agent without url calls (this process's own, e.g.
   * `http://127.0.0.1:4000`); undefined when there is none, and such an agent is left out.
   */
  readonly localGraphUrl: string | undefined;
  /** This process's TOKEN_AUDIENCE: the audience of the local graph service, whose tokens it accepts. */
  readonly tokenAudience: string | undefined;
  readonly catalogue: Catalogue;
  /** Which entries the `schemas` tool shows a caller (the catalogue routes' decision); absent: every entry. */
  readonly catalogueVisibility?: CatalogueVisibility;
  readonly secrets: SecretsBackend;
  /**
   * The one downstream-credentials model (src/auth, `openDownstreamCredentials`): every agent is
   * registered with it when the server is built (a bad description stops start-up), and each call
   * resolves its credential for the caller. The tool server closes it.
   */
  readonly credentials: DownstreamCredentials;
  /** Client secrets read from the secrets backend (`client_secret_ref`), by agent name. */
  readonly clientSecrets?: Readonly<Record<string, string>>;
  /**
   * The query planner of the local graph service (the process's own engine); graph.explain is listed
   * only with one, and only on the graph agent that calls the local service (an agent with a url
   * reaches another graph service, whose schema this planner does not know).
   */
  readonly explain?: GraphExplainer;
  readonly logger: Logger;
  /** TOOLGRAPH_MCP_MAX_SESSIONS and TOOLGRAPH_MCP_MAX_SESSIONS_PER_SUBJECT (defaults 1000 and 16). */
  readonly maxSessions?: number;
  readonly maxSessionsPerSubject?: number;
  /** Most 2026-07-28 `subscriptions/listen` streams open at once (TOOLGRAPH_MCP_MAX_SUBSCRIPTIONS). */
  readonly maxSubscriptions?: number;
  /** Where MCP sessions live (the state store of `serve`); in-process when omitted. */
  readonly state?: StateStore;
}

export interface ToolServer {
  readonly registry: ToolRegistry;
  /** The `graph` agent's route to its graph service, when there is a graph agent. */
  readonly graph?: GraphAgentRoute;
  /** The `/mcp` HttpService (Streamable HTTP and the REST call). */
  readonly service: HttpService;
  close(): Promise<void>;
}

/**
 * The agents of the tool server: the built-in `graph`, `schemas` and `secrets`, plus every
 * configured agent (graph agents for other graph services, http agents for REST APIs with API keys).
 */
/** The `graph` agent's way to the graph service, which operation tools (operation-tools.ts) run their documents through. */
export interface GraphAgentRoute {
  readonly client: GraphServiceClient;
  readonly scopesPerAction: boolean;
  readonly asksConsent: boolean;
}

export function createToolAgents(options: ToolServerOptions): { agents: ToolAgent[]; clients: DownstreamHttp[]; graph?: GraphAgentRoute } {
  const { credentials } = options;
  const clients: DownstreamHttp[] = [];
  const httpFor = (settings: AgentSettings) => {
    const client = createDownstreamHttp({ name: settings.name, sslVerify: settings.sslVerify, timeoutMs: settings.timeoutSecs * 1000 });
    clients.push(client);
    return client;
  };
  const configured = { graph: unconfiguredAgent('graph'), ...options.agents };
  const agents: ToolAgent[] = [];
  let graph: GraphAgentRoute | undefined;
  for (const settings of Object.values(configured)) {
    if (settings.kind === 'graph') {
      const local = settings.url === undefined;
      if (local && options.localGraphUrl === undefined) {
        options.logger.info({ agent: settings.name }, 'graph tool off: no graph service in this process and no url configured for the agent');
        continue;
      }
      const audience = local ? options.tokenAudience : undefined;
      const client = createGraphServiceClient({
        baseUrl: settings.url ?? (options.localGraphUrl as string),
        credentials: credentials.agent(downstreamAgentOf(settings, { audience, clientSecret: options.clientSecrets?.[settings.name] })),
        http: httpFor(settings),
      });
      // Without configured scopes, each action's delegated token asks for what the action needs.
      const route = { client, scopesPerAction: settings.scopes === undefined, asksConsent: asksCallerConsent(settings) };
      if (settings.name === 'graph') graph = route;
      agents.push(createGraphAgent({
        name: settings.name,
        ...route,
        ...(options.explain && local ? { explain: options.explain } : {}),
      }));
    } else {
      agents.push(createHttpAgent({ settings, credentials: credentials.agent(downstreamAgentOf(settings, { clientSecret: options.clientSecrets?.[settings.name] })), http: httpFor(settings) }));
    }
  }
  agents.push(createSchemasAgent(options.catalogue, options.catalogueVisibility), createSecretsAgent(options.secrets));
  return { agents, clients, ...(graph ? { graph } : {}) };
}

/** The tool registry and its HTTP service; the registry's actions are published in the catalogue. */
export function createToolServer(options: ToolServerOptions): ToolServer {
  const { agents, clients, graph } = createToolAgents(options);
  const registry = new ToolRegistry(agents);
  const service = createToolHttpService({
    registry,
    logger: options.logger,
    ...(options.maxSessions === undefined ? {} : { maxSessions: options.maxSessions }),
    ...(options.maxSessionsPerSubject === undefined ? {} : { maxSessionsPerSubject: options.maxSessionsPerSubject }),
    ...(options.maxSubscriptions === undefined ? {} : { maxSubscriptions: options.maxSubscriptions }),
    ...(options.state === undefined ? {} : { state: options.state }),
  });
  return {
    registry,
    ...(graph ? { graph } : {}),
    service: {
      ...service,
      async close() {
        await service.close?.();
        for (const client of clients) client.close();
        await options.credentials.close();
      },
    },
    async close() {
      await this.service.close?.();
    },
  };
}

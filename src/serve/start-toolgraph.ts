import { ToolgraphError } from '../errors/index.ts';
import type { ResolvedConfig } from '../config/index.ts';
import type { GraphEngine } from '../graph/engine/index.ts';
import { budgetMeters, createGraphqlSurface } from '../graph/graphql/index.ts';
import { createGraphService } from '../graph/service/index.ts';
import { processBodies, startHost, type HttpService } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { startOverloadMonitor, type LoadSource } from '../overload/index.ts';
import { catalogueVisibility } from './catalogue-visibility.ts';
import { createCatalogueService, createStaticCatalogue, watchGraphCatalogues, type GraphCatalogueWatch } from '../manifest/index.ts';
import { openServeBearerAuth } from './bearer-auth.ts';
import { graphEntriesSteps } from './graph-entries-steps.ts';
import { allowedHostsOf, publicBaseUrl, refuseUnsafeExposure } from './exposure.ts';
import { productCarrierPorts, type CarrierPorts } from './carrier-ports.ts';
import { refuseSettingsOfMissingFeatures, UNSERVED_OPERATIONS } from './features-not-in-build.ts';
import { budgetLimitsOf, writeLimitsOf } from './budget-limits.ts';
import { bodyLimitsOf } from './body-limits.ts';
import { connectionLimitsOf } from './connection-limits.ts';
import { overloadThresholdsOf } from './overload-thresholds.ts';
import { principalResolverFor } from './local-principal.ts';
import { requireCarrierSettings, startSubscriptionCarrier } from './start-carrier.ts';
import { DEMO_GRAPH, openGraphEngine } from './open-graph-engine.ts';
import { SERVICE_NAMES, type ServiceName } from './service-names.ts';
import { graphExplainerFor } from './graph-explainer.ts';
import { openToolService } from './tool-service.ts';
import { demoGraphSdl } from './demo-graph-sdl.ts';
import { openServeState } from './open-serve-state.ts';
import { openServeMetrics } from './serve-metrics.ts';
import type { SecretValue } from '../secrets/index.ts';

export interface StartOptions {
  config: ResolvedConfig;
  logger: Logger;
  /** Run only these services (all when omitted). */
  only?: readonly ServiceName[];
  /**
   * Called once the port is bound, before the engine recovers (the services are not mounted yet:
   * /healthz says `starting`). Start-up waits for it.
   */
  onListening?: (origin: string) => void | Promise<void>;
  /** Initial contents of the in-memory secrets backend the `secrets` tool reads (TOOLGRAPH_SECRETS_FILE). */
  secretsSeed?: Readonly<Record<string, SecretValue>>;
  /**
   * The subscription carrier's executor and access ports (test doubles); the product's own
   * (`productCarrierPorts`: the GraphQL executor and the access module) when omitted.
   */
  carrierPorts?: CarrierPorts;
  /** Where the overload monitor reads the heap and event-loop delay (a test double); the process itself when omitted. */
  loadSource?: LoadSource;
}

export interface RunningToolgraph {
  origin: string;
  /** One entry per started service: its name and the URL of its entry point. */
  services: { name: string; url: string }[];
  /** The engine, when this process runs the graph service. */
  engine: GraphEngine | undefined;
  /** Resolves once the schema catalogue shows every graph change committed so far (it rebuilds off the commit path). */
  settled(): Promise<void>;
  /**
   * Stops accepting requests, lets in-flight ones finish (within `graceMs`, by default
   * TOOLGRAPH_SHUTDOWN_GRACE_SECS), then closes the engine.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** Starts the requested services on one host:port, each under its own paths. */
export async function startToolgraph(options: StartOptions): Promise<RunningToolgraph> {
  const { config, logger } = options;
  const wanted = new Set<ServiceName>(options.only ?? SERVICE_NAMES);
  const resolvePrincipal = principalResolverFor(config.values);
  if (config.values.transport === 'stdio') {
    throw new ToolgraphError('TG_CONFIG_INVALID', 'MCP_TRANSPORT stdio: serve runs every service over HTTP (the tool server over Streamable HTTP at /mcp); run the tool server alone on stdio with toolgraph tools serve --transport stdio.', { details: { setting: 'transport' } });
  }
  refuseSettingsOfMissingFeatures(config);
  requireCarrierSettings(config.values, wanted.has('graph'));
  await refuseUnsafeExposure(config.values);
  // Request bodies are held to one allowance for the whole process, whichever listener or route reads them.
  processBodies.configure(bodyLimitsOf(config.values));
  // Bound before the engine recovers, so manifests know their origin; readiness waits for the mounts.
  const host = await startHost({ services: [], pending: [...wanted], logger, host: config.values.host, port: config.values.port, connections: connectionLimitsOf(config.values) }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    throw new ToolgraphError('TG_CONFIG_INVALID', `${config.values.host}:${config.values.port} is already in use; choose another --port / PORT.`, { cause: error });
  });
  // The last line of defence: past a threshold, the host sheds new work and running queries stop.
  const monitor = startOverloadMonitor({ thresholds: overloadThresholdsOf(config.values), logger, ...(options.loadSource ? { source: options.loadSource } : {}) });
  const cleanups: (() => Promise<void> | void)[] = [() => monitor.stop()];
  // Prometheus metrics (README "Metrics"): one registry per server, hooks on what starts below.
  const metrics = openServeMetrics(config.values);
  if (metrics) cleanups.push(() => metrics.close());
  let engine: GraphEngine | undefined;
  let trustedDocuments: ReadonlyMap<string, string> | undefined;
  let watch: GraphCatalogueWatch | undefined;
  try {
    const publicBase = publicBaseUrl(host.origin, config.values.publicUrl);
    host.restrictHosts(allowedHostsOf(host.origin, publicBase));
    await options.onListening?.(host.origin);
    const services: HttpService[] = [];
    // Sign-in state, MCP sessions and carrier nonces: beside the graphs, shared by every replica of a PostgreSQL deployment.
    const state = openServeState(config.values);
    cleanups.push(() => state.close());
    // A store that cannot write takes the process out of rotation (/healthz `failing`) until it can again.
    host.watchHealth('state', () => state.failure());
    // Discovery and the IdP's keys are tried once; while they do not load, /healthz says what it waits for and token requests get 503.
    const auth = await openServeBearerAuth(config.values, logger, { state });
    if (auth) {
      cleanups.push(() => auth.close());
      metrics?.watchAuth(auth);
      if (auth.waiting() !== undefined) void auth.ready.then(host.hold('idp', () => auth.waiting()));
    }
    if (wanted.has('graph')) {
      engine = await openGraphEngine(config.values, logger, { seed: true });
      const opened = engine;
      cleanups.push(() => opened.close());
      host.watchHealth('graphs', () => opened.storageFailure());
      metrics?.watchEngine(engine);
      // /graphql/{graph} and the GraphQl method of /dispatch share one GraphQL pipeline.
      const graphql = createGraphqlSurface({ engine, logger, values: config.values, resolvePrincipal, meter: budgetMeters(budgetLimitsOf(config.values)) });
      trustedDocuments = graphql.trustedDocuments;
      services.push(createGraphService({ engine, logger, resolvePrincipal, graphql: graphql.dispatch, cypher: { limits: budgetLimitsOf(config.values), writeLimits: writeLimitsOf(config.values) } }), graphql.service);
    }
    // The tool server's `schemas` tool reads the same catalogue its routes serve.
    const catalogue = wanted.has('catalogue') || wanted.has('tools') ? createStaticCatalogue({ publicBaseUrl: publicBase, withoutOperations: UNSERVED_OPERATIONS }) : undefined;
    if (catalogue && engine) {
      // The demo graph replaces the static `graph` source (built from the same fixtures), so the
      // catalogue never lists the same operations twice.
      const watching = watchGraphCatalogues(catalogue, engine, { stepsFor: graphEntriesSteps, logger, sourceNameOf: (graph) => (graph === DEMO_GRAPH ? 'graph' : undefined) });
      watch = watching;
      cleanups.push(() => watching.close());
    }
    // With real tokens, a graph's operations are listed only to principals that may read the graph:
    // one decision for the catalogue's routes and the `schemas` tool alike.
    const visibility = config.values.authType !== 'none' && engine !== undefined && watch !== undefined ? catalogueVisibility(engine, watch) : undefined;
    if (catalogue && wanted.has('catalogue')) {
      services.push(createCatalogueService({ catalogue, logger, ...(visibility ? { access: { visibility, principalOf: resolvePrincipal } } : {}) }));
    }
    // Routes a browser reaches without a bearer token (the consent callback of three-legged agents).
    const open: HttpService[] = [];
    if (catalogue && wanted.has('tools')) {
      const graphSdl = engine === undefined ? undefined : demoGraphSdl(engine);
      const tools = await openToolService({ values: config.values, logger, catalogue, origin: host.origin, publicBase, localGraph: wanted.has('graph'), state, ...(graphSdl ? { graphSdl } : {}), ...(trustedDocuments ? { trustedDocuments } : {}), ...(visibility ? { catalogueVisibility: visibility } : {}), ...(engine ? { explain: graphExplainerFor(engine, config.values.graphqlIntrospection) } : {}), ...(options.secretsSeed ? { secretsSeed: options.secretsSeed } : {}) });
      cleanups.push(() => tools.close());
      metrics?.watchTools(tools);
      services.push(tools.service);
      open.push(...tools.openServices);
    }
    if (metrics) services.push(metrics.service(resolvePrincipal));
    const mounted = [...(auth ? auth.protect(services, publicBase) : services), ...open];
    host.mount(metrics ? metrics.instrument(mounted) : mounted);
    const listed = mounted.map((s) => ({ name: s.name, url: `${host.origin}${s.entryPath}` }));
    if (config.values.graphqlAddr !== undefined) {
      const ports = options.carrierPorts ?? (engine ? productCarrierPorts(engine, config.values) : undefined);
      const carrier = await startSubscriptionCarrier(config.values, engine, ports, logger, state, metrics?.carrierHandshake);
      if (carrier) {
        cleanups.push(() => carrier.close());
        metrics?.watchCarrier(carrier);
        listed.push({ name: 'carrier', url: `${carrier.origin}/graphql/subscribe` });
      }
    }
    const metricsOrigin = await metrics?.listen(logger);
    if (metricsOrigin !== undefined) listed.push({ name: 'metrics', url: `${metricsOrigin}/metrics` });
    const defaultGraceMs = config.values.shutdownGraceSecs * 1000;
    return {
      origin: host.origin,
      services: listed,
      engine,
      settled: () => watch?.settled() ?? Promise.resolve(),
      async close(closeOptions = {}) {
        // In-flight requests finish (their commits may be durable already) before the engine closes.
        await host.close({ graceMs: closeOptions.graceMs ?? defaultGraceMs });
        for (const cleanup of cleanups.reverse()) await cleanup();
      },
    };
  } catch (error) {
    await host.close({ graceMs: 0 });
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
    throw error;
  }
}

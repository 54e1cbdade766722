import { ToolgraphError } from '../errors/index.ts';
import type { ResolvedConfig } from '../config/index.ts';
import type { GraphEngine } from '../graph/engine/index.ts';
import { sdlFromCatalogue } from '../graph/schema/index.ts';
import { createGraphService } from '../graph/service/index.ts';
import { startHost, type HttpService } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { createCatalogueService, createStaticCatalogue, watchGraphCatalogue, type Catalogue, type GraphCatalogueWatch } from '../manifest/index.ts';
import { principalResolverFor } from './local-principal.ts';
import { DEMO_GRAPH, openGraphEngine } from './open-graph-engine.ts';
import { SERVICE_NAMES, type ServiceName } from './service-names.ts';

export interface StartOptions {
  config: ResolvedConfig;
  logger: Logger;
  /** Run only these services (all when omitted). */
  only?: readonly ServiceName[];
}

export interface RunningToolgraph {
  origin: string;
  /** One entry per started service: its name and the URL of its entry point. */
  services: { name: string; url: string }[];
  /** The engine, when this process runs the graph service. */
  engine: GraphEngine | undefined;
  close(): Promise<void>;
}

/**
 * Keeps the catalogue's graph sources current: one watch per graph, added when a graph is created
 * and dropped with it. The demo graph replaces the static `graph` source (built from the same
 * fixtures), so the catalogue never lists the same operations twice.
 */
function watchAllGraphs(catalogue: Catalogue, engine: GraphEngine, logger: Logger): () => void {
  const watches = new Map<string, GraphCatalogueWatch>();
  const watch = (graph: string) => {
    if (watches.has(graph)) return;
    watches.set(graph, watchGraphCatalogue(catalogue, engine, graph, {
      sdlOf: sdlFromCatalogue,
      logger,
      ...(graph === DEMO_GRAPH ? { sourceName: 'graph' } : {}),
    }));
  };
  for (const { name } of engine.listGraphs()) watch(name);
  const unsubscribe = engine.subscribe((event) => {
    if (event.kind === 'createGraph') watch(event.graph);
    if (event.kind === 'dropGraph') {
      watches.get(event.graph)?.close();
      watches.delete(event.graph);
    }
  });
  return () => {
    unsubscribe();
    for (const w of watches.values()) w.close();
  };
}

/** Starts the requested services on one host:port, each under its own paths. */
export async function startToolgraph(options: StartOptions): Promise<RunningToolgraph> {
  const { config, logger } = options;
  const wanted = new Set<ServiceName>(options.only ?? SERVICE_NAMES);
  const resolvePrincipal = principalResolverFor(config.values);
  const host = await startHost({ services: [], logger, host: config.values.host, port: config.values.port }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    throw new ToolgraphError('TG_CONFIG_INVALID', `${config.values.host}:${config.values.port} is already in use; choose another --port / PORT.`, { cause: error });
  });
  const cleanups: (() => Promise<void> | void)[] = [];
  let engine: GraphEngine | undefined;
  try {
    const services: HttpService[] = [];
    if (wanted.has('graph')) {
      engine = await openGraphEngine(config.values, logger);
      const opened = engine;
      cleanups.push(() => opened.close());
      services.push(createGraphService({ engine, logger, resolvePrincipal }));
    }
    if (wanted.has('catalogue')) {
      const catalogue = createStaticCatalogue({ publicBaseUrl: config.values.publicUrl ?? host.origin });
      if (engine) cleanups.push(watchAllGraphs(catalogue, engine, logger));
      services.push(createCatalogueService({ catalogue, logger }));
    }
    host.mount(services);
    return {
      origin: host.origin,
      services: services.map((s) => ({ name: s.name, url: `${host.origin}${s.entryPath}` })),
      engine,
      async close() {
        await host.close();
        for (const cleanup of cleanups.reverse()) await cleanup();
      },
    };
  } catch (error) {
    await host.close();
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
    throw error;
  }
}

import type { Logger } from '../log/index.ts';
import { buildCatalogueEntries, persistedDocumentSource, type Catalogue, type CatalogueEntry, type CatalogueVisibility } from '../manifest/index.ts';
import { createSearchToolsAgent } from './search-tools-agent.ts';
import { actionOperationTools, persistedOperationTools, type OperationToolsMode } from './operation-tools.ts';
import type { ToolAgent } from './tool-agent.ts';
import { TOOLS_CATALOGUE_SOURCE, type ToolRegistry } from './tool-registry.ts';
import type { GraphAgentRoute } from './tool-server.ts';

/** The catalogue source of the trusted GraphQL documents (aliases `persisted-<operation>`). */
const PERSISTED_CATALOGUE_SOURCE = 'persisted';

/** The catalogue source whose change may change which trusted documents validate: the demo graph's. */
const GRAPH_CATALOGUE_SOURCE = 'graph';

export interface OperationToolSetOptions {
  readonly mode: OperationToolsMode;
  readonly mutations: boolean;
  readonly catalogue: Catalogue;
  readonly registry: ToolRegistry;
  /** The `graph` agent's route; without one there are no persisted-document tools. */
  readonly graph: GraphAgentRoute | undefined;
  /** The graph the trusted documents are written for (the demo graph). */
  readonly graphName: string;
  /** The trusted documents (sha256 → text) the graph service trusts too. */
  readonly documents: ReadonlyMap<string, string>;
  /** The graph's SDL now, or undefined while it has none (dropped, not loaded). */
  readonly sdl: () => string | undefined;
  /** Which catalogue entries a caller may see (the catalogue routes' decision); search_tools answers only those. */
  readonly visibility?: CatalogueVisibility;
  readonly logger: Logger;
}

export interface OperationToolSet {
  /** Builds the tools again now (also done on every change of the graph's catalogue source). */
  refresh(): void;
  close(): void;
}

/**
 * Keeps the registry's operation tools equal to the catalogue: the trusted documents that validate
 * against the graph's schema (published as the `persisted` source, so every tool's digest resolves
 * at GET /schemas/{digest}) and, in mode `catalogue`, every action of the built-in tools (the
 * `tools` source). When the graph's schema changes, the documents are checked again, and the
 * registry tells MCP clients if the tool list changed.
 */
export function startOperationToolSet(options: OperationToolSetOptions): OperationToolSet {
  const { catalogue, registry, logger } = options;
  const manifestUri = (entry: CatalogueEntry): string => catalogue.manifestOf(entry).manifest_uri;
  const reported = new Set<string>();
  const builtIn = registry.names.flatMap((name) => registry.agent(name) ?? []);
  const search = createSearchToolsAgent(catalogue, registry, options.visibility);

  const persistedTools = (): ToolAgent[] => {
    const sdl = options.graph === undefined || options.documents.size === 0 ? undefined : options.sdl();
    if (sdl === undefined || options.graph === undefined) {
      catalogue.removeSource(PERSISTED_CATALOGUE_SOURCE);
      return [];
    }
    const built = persistedDocumentSource(PERSISTED_CATALOGUE_SOURCE, sdl, options.documents);
    for (const problem of built.problems) {
      if (reported.has(`${problem.id}:${problem.reason}`)) continue;
      reported.add(`${problem.id}:${problem.reason}`);
      logger.warn({ document: problem.id, reason: problem.reason }, 'trusted document not published as an operation tool');
    }
    const { entries, problems } = buildCatalogueEntries(built.source);
    for (const problem of problems) logger.warn({ operation: problem.operation, reason: problem.reason }, 'trusted document not published as an operation tool');
    catalogue.putSource(PERSISTED_CATALOGUE_SOURCE, entries);
    return persistedOperationTools({
      entries,
      operations: new Map(built.operations.map((o) => [o.operation, o])),
      manifestUri,
      client: options.graph.client,
      graph: options.graphName,
      mutations: options.mutations,
      scopesPerAction: options.graph.scopesPerAction,
      asksConsent: options.graph.asksConsent,
    });
  };

  const refresh = (): void => {
    if (options.mode === 'off') return;
    const tools = persistedTools();
    if (options.mode === 'catalogue') {
      const entries = catalogue.entries().filter((e) => e.source === TOOLS_CATALOGUE_SOURCE);
      tools.push(...actionOperationTools(entries, builtIn, manifestUri));
    }
    // search_tools is listed only when there is something to find.
    registry.setOperations(tools.length === 0 ? [] : [search, ...tools]);
  };

  let pending: NodeJS.Immediate | undefined;
  const unsubscribe = catalogue.onSourceChange((source) => {
    if (source !== GRAPH_CATALOGUE_SOURCE || pending !== undefined) return;
    pending = setImmediate(() => {
      pending = undefined;
      try {
        refresh();
      } catch (error) {
        logger.error({ err: error }, 'operation tools not rebuilt after a schema change');
      }
    });
  });
  refresh();
  return {
    refresh,
    close() {
      unsubscribe();
      if (pending !== undefined) clearImmediate(pending);
    },
  };
}

import type { Logger } from '../log/index.ts';
import type { Catalogue } from './catalogue.ts';
import { buildCatalogueEntries } from './catalogue-entry.ts';
import { graphqlSource } from './sources/index.ts';

/** The part of a change-feed event this module reads (the graph engine's ChangeEvent fits it). */
export interface CatalogueChangeEvent {
  readonly graph: string;
  readonly catalogueChanged: boolean;
  readonly epoch: string;
  readonly kind?: string;
}

/** The part of the graph engine this module reads: its change feed and a graph's catalogue. */
export interface GraphCatalogueFeed<C extends { readonly epoch: string }> {
  readonly feed: { subscribe(listener: (event: CatalogueChangeEvent) => void): () => void };
  /** The graph's live view; may throw (or return undefined) when the graph does not exist. */
  view(graph: string): { readonly catalogue: C } | undefined;
}

export interface WatchGraphCatalogueOptions<C> {
  /** The graph's SDL for a catalogue (the engine helper's `sdlFromCatalogue`). */
  sdlOf: (catalogue: C) => string;
  /** Catalogue source name; default `graph-<graphName>`. Pass `graph` to take over the static source. */
  sourceName?: string;
  logger?: Logger;
}

export interface GraphCatalogueWatch {
  /** Rebuilds now if the graph's catalogue epoch moved (also what every change event does). */
  refresh(): void;
  close(): void;
}

/**
 * Keeps a catalogue source current for one graph: builds its manifests from the graph's SDL now and
 * again whenever the graph's catalogue changes (a new epoch); removes the source when the graph is
 * dropped. Operations with bad names are logged by name and left out; the rest are served.
 */
export function watchGraphCatalogue<C extends { readonly epoch: string }>(
  catalogue: Catalogue,
  engine: GraphCatalogueFeed<C>,
  graphName: string,
  options: WatchGraphCatalogueOptions<C>,
): GraphCatalogueWatch {
  const sourceName = options.sourceName ?? `graph-${graphName}`;
  let epoch: string | undefined;

  const refresh = (): void => {
    let current: C | undefined;
    try {
      current = engine.view(graphName)?.catalogue;
    } catch {
      current = undefined;
    }
    if (current === undefined) {
      if (epoch !== undefined) catalogue.removeSource(sourceName);
      epoch = undefined;
      return;
    }
    if (current.epoch === epoch) return;
    try {
      const { entries, problems } = buildCatalogueEntries(graphqlSource(sourceName, options.sdlOf(current)));
      if (problems.length > 0) {
        // Graph names never reach logs; operation names are labels of the graph, not its name.
        options.logger?.error({ problems: problems.map((p) => ({ operation: p.operation, code: p.code, reason: p.reason })) }, 'graph operations left out of the schema catalogue');
      }
      catalogue.putSource(sourceName, entries);
      epoch = current.epoch;
    } catch (error) {
      options.logger?.error({ err: error }, 'schema catalogue rebuild for a graph failed; the previous manifests stay');
    }
  };

  const unsubscribe = engine.feed.subscribe((event) => {
    if (event.graph !== graphName) return;
    if (event.catalogueChanged || event.kind === 'createGraph' || event.kind === 'dropGraph' || event.epoch !== epoch) refresh();
  });
  refresh();
  return {
    refresh,
    close: unsubscribe,
  };
}

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

/** The part of the graph engine this module reads: its change feed, its graphs and a graph's catalogue. */
export interface GraphCatalogueFeed<C extends { readonly epoch: string }> {
  readonly feed: { subscribe(listener: (event: CatalogueChangeEvent) => void): () => void };
  /** The graph's live view; may throw (or return undefined) when the graph does not exist. */
  view(graph: string): { readonly catalogue: C } | undefined;
}

/** With `listGraphs`, for watching every graph (watchGraphCatalogues). */
export interface GraphsCatalogueFeed<C extends { readonly epoch: string }> extends GraphCatalogueFeed<C> {
  listGraphs(): readonly { readonly name: string }[];
}

/** Rebuilds wait this long after the change that asks for them, so a burst of commits causes one. */
export const DEFAULT_COALESCE_MS = 20;

/** A rebuild takes at most about 1 / (1 + this) of the process's time under a stream of label changes. */
const SPACING_FACTOR = 4;
const MAX_DELAY_MS = 1000;

export interface WatchGraphCatalogueOptions<C> {
  /** The graph's SDL for a catalogue (the engine helper's `sdlFromCatalogue`). */
  sdlOf: (catalogue: C) => string;
  /** Catalogue source name; default `graph-<graphName>`. Pass `graph` to take over the static source. */
  sourceName?: string;
  logger?: Logger;
  /** Least delay between a change and its rebuild (default DEFAULT_COALESCE_MS). */
  coalesceMs?: number;
}

export interface WatchGraphCataloguesOptions<C> extends Omit<WatchGraphCatalogueOptions<C>, 'sourceName'> {
  /** A graph's catalogue source name; undefined means `graph-<graphName>`. */
  sourceNameOf?: (graph: string) => string | undefined;
}

export interface GraphCatalogueWatch {
  /**
   * Resolves once the catalogue shows every change published before the call (tests and callers that
   * need read-your-writes await this instead of sleeping).
   */
  settled(): Promise<void>;
  /** Rebuilds every watched graph whose catalogue epoch moved, now. */
  refresh(): void;
  /** The watched graph whose operations a catalogue source holds, if any (the catalogue lists them only to its readers). */
  graphOfSource(source: string): string | undefined;
  close(): void;
}

/**
 * Keeps a catalogue source current for one graph: builds its manifests from the graph's SDL now and
 * again whenever the graph's catalogue changes (a new epoch); removes the source when the graph is
 * dropped. Operations with bad names are logged by name and left out; the rest are served.
 *
 * The change-feed listener runs inside the commit, so it only marks the graph and schedules: the
 * rebuild runs later, on a timer (never before the commit's caller has its answer), once for a burst
 * of changes, and replaces only this graph's source. Until then readers see the previous manifests.
 */
export function watchGraphCatalogue<C extends { readonly epoch: string }>(
  catalogue: Catalogue,
  engine: GraphCatalogueFeed<C>,
  graphName: string,
  options: WatchGraphCatalogueOptions<C>,
): GraphCatalogueWatch {
  const rebuilder = new CatalogueRebuilder(catalogue, engine, options);
  rebuilder.track(graphName, options.sourceName);
  rebuilder.subscribe((event) => (event.graph === graphName ? graphName : undefined));
  return rebuilder;
}

/** As watchGraphCatalogue, for every graph of the engine: graphs created later are watched from their creation. */
export function watchGraphCatalogues<C extends { readonly epoch: string }>(
  catalogue: Catalogue,
  engine: GraphsCatalogueFeed<C>,
  options: WatchGraphCataloguesOptions<C>,
): GraphCatalogueWatch {
  const rebuilder = new CatalogueRebuilder(catalogue, engine, options, true);
  const sourceOf = (graph: string) => options.sourceNameOf?.(graph);
  for (const { name } of engine.listGraphs()) rebuilder.track(name, sourceOf(name));
  rebuilder.subscribe((event) => {
    if (event.kind === 'createGraph' && !rebuilder.tracks(event.graph)) rebuilder.track(event.graph, sourceOf(event.graph), false);
    return rebuilder.tracks(event.graph) ? event.graph : undefined;
  });
  return rebuilder;
}

interface Tracked {
  readonly sourceName: string;
  /** The epoch the catalogue shows, or undefined when it shows nothing for the graph. */
  epoch: string | undefined;
}

class CatalogueRebuilder<C extends { readonly epoch: string }> implements GraphCatalogueWatch {
  readonly #catalogue: Catalogue;
  readonly #engine: GraphCatalogueFeed<C>;
  readonly #options: WatchGraphCatalogueOptions<C>;
  readonly #graphs = new Map<string, Tracked>();
  readonly #dirty = new Set<string>();
  #waiters: (() => void)[] = [];
  #timer: NodeJS.Timeout | undefined;
  #lastRebuildMs = 0;
  #unsubscribe: () => void = () => undefined;
  #closed = false;
  /** Stop tracking a graph once it is dropped (the all-graphs watch tracks it again if it is re-created). */
  readonly #forgetDropped: boolean;

  constructor(catalogue: Catalogue, engine: GraphCatalogueFeed<C>, options: WatchGraphCatalogueOptions<C>, forgetDropped = false) {
    this.#catalogue = catalogue;
    this.#engine = engine;
    this.#options = options;
    this.#forgetDropped = forgetDropped;
  }

  tracks(graph: string): boolean {
    return this.#graphs.has(graph);
  }

  graphOfSource(source: string): string | undefined {
    for (const [graph, tracked] of this.#graphs) if (tracked.sourceName === source) return graph;
    return undefined;
  }

  /** Starts watching a graph; builds its source now (at start-up) or on the next rebuild. */
  track(graph: string, sourceName: string | undefined, now = true): void {
    this.#graphs.set(graph, { sourceName: sourceName ?? `graph-${graph}`, epoch: undefined });
    if (now) this.#rebuild(graph);
    else this.#mark(graph);
  }

  /** `graphOf` names the watched graph an event concerns, if any. */
  subscribe(graphOf: (event: CatalogueChangeEvent) => string | undefined): void {
    this.#unsubscribe = this.#engine.feed.subscribe((event) => {
      const graph = graphOf(event);
      if (graph === undefined) return;
      const tracked = this.#graphs.get(graph);
      if (event.catalogueChanged || event.kind === 'createGraph' || event.kind === 'dropGraph' || event.epoch !== tracked?.epoch) this.#mark(graph);
    });
  }

  settled(): Promise<void> {
    if (this.#dirty.size === 0 || this.#closed) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  refresh(): void {
    for (const graph of this.#graphs.keys()) this.#rebuild(graph);
    this.#dirty.clear();
    this.#release();
  }

  close(): void {
    this.#closed = true;
    this.#unsubscribe();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#dirty.clear();
    this.#release();
  }

  /** Inside the commit: only remember the graph and make sure a rebuild is coming. */
  #mark(graph: string): void {
    if (this.#closed) return;
    this.#dirty.add(graph);
    if (this.#timer !== undefined) return;
    const delay = Math.min(MAX_DELAY_MS, Math.max(this.#options.coalesceMs ?? DEFAULT_COALESCE_MS, this.#lastRebuildMs * SPACING_FACTOR));
    this.#timer = setTimeout(() => this.#run(), delay);
    // A pending rebuild must not keep a process alive that has nothing else to do.
    this.#timer.unref();
  }

  #run(): void {
    this.#timer = undefined;
    const started = performance.now();
    const graphs = [...this.#dirty];
    this.#dirty.clear();
    for (const graph of graphs) this.#rebuild(graph);
    this.#lastRebuildMs = performance.now() - started;
    this.#release();
  }

  #release(): void {
    if (this.#dirty.size > 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }

  #rebuild(graph: string): void {
    const tracked = this.#graphs.get(graph);
    if (tracked === undefined) return;
    let current: C | undefined;
    try {
      current = this.#engine.view(graph)?.catalogue;
    } catch {
      current = undefined;
    }
    if (current === undefined) {
      if (tracked.epoch !== undefined) this.#catalogue.removeSource(tracked.sourceName);
      tracked.epoch = undefined;
      if (this.#forgetDropped) this.#graphs.delete(graph);
      return;
    }
    if (current.epoch === tracked.epoch) return;
    const logger = this.#options.logger;
    try {
      const { entries, problems } = buildCatalogueEntries(graphqlSource(tracked.sourceName, this.#options.sdlOf(current)));
      if (problems.length > 0) {
        // Graph names never reach logs; operation names are labels of the graph, not its name.
        logger?.error({ problems: problems.map((p) => ({ operation: p.operation, code: p.code, reason: p.reason })) }, 'graph operations left out of the schema catalogue');
      }
      this.#catalogue.putSource(tracked.sourceName, entries);
      tracked.epoch = current.epoch;
    } catch (error) {
      logger?.error({ err: error }, 'schema catalogue rebuild for a graph failed; the previous manifests stay');
    }
  }
}

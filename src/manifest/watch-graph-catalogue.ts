import type { Logger } from '../log/index.ts';
import type { Catalogue } from './catalogue.ts';
import { buildCatalogueEntries, type BuiltEntries } from './catalogue-entry.ts';
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
const DEFAULT_COALESCE_MS = 20;

/** A rebuild takes at most about 1 / (1 + this) of the process's time under a stream of label changes. */
const SPACING_FACTOR = 4;
/** Long enough for the spacing to hold for the largest rebuilds the schema caps allow (seconds of background work). */
const MAX_DELAY_MS = 30_000;
/** Work done between two turns of the event loop by a rebuild in steps. */
const SLICE_MS = 8;
/** Manifests checked, or search documents re-indexed, per step when a source is put in steps. */
const PUT_PER_STEP = 100;

/**
 * The entries of a graph's operations, built in steps (a generator yielding between them) so the
 * rebuild gives the event loop back; one per watched graph, so it can keep what it built last.
 */
export type GraphEntriesSteps<C> = (catalogue: C) => Generator<void, BuiltEntries, void>;

export interface WatchGraphCatalogueOptions<C> {
  /** The graph's SDL for a catalogue (the engine helper's `sdlFromCatalogue`); used when `stepsFor` is not given. */
  sdlOf?: (catalogue: C) => string;
  /**
   * The incremental way (what `serve` uses): makes a graph's entry builder when the graph is first
   * watched. Rebuilds then run in slices off the event loop's critical path, keep what did not
   * change, and a graph's first build is scheduled rather than made at once.
   */
  stepsFor?: (graph: string, sourceName: string) => GraphEntriesSteps<C>;
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

interface Tracked<C> {
  readonly sourceName: string;
  /** The epoch the catalogue shows, or undefined when it shows nothing for the graph. */
  epoch: string | undefined;
  readonly steps: GraphEntriesSteps<C>;
}

class CatalogueRebuilder<C extends { readonly epoch: string }> implements GraphCatalogueWatch {
  readonly #catalogue: Catalogue;
  readonly #engine: GraphCatalogueFeed<C>;
  readonly #options: WatchGraphCatalogueOptions<C>;
  readonly #graphs = new Map<string, Tracked<C>>();
  /** A rebuild in steps is running (one at a time). */
  #running = false;
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

  /**
   * Starts watching a graph; builds its source now (at start-up) or on the next rebuild. With
   * `stepsFor` the first build is always scheduled: a large schema must not hold start-up.
   */
  track(graph: string, sourceName: string | undefined, now = true): void {
    const name = sourceName ?? `graph-${graph}`;
    this.#graphs.set(graph, { sourceName: name, epoch: undefined, steps: this.#stepsOf(graph, name) });
    if (now && this.#options.stepsFor === undefined) this.#rebuild(graph);
    else this.#mark(graph, now);
  }

  #stepsOf(graph: string, sourceName: string): GraphEntriesSteps<C> {
    if (this.#options.stepsFor !== undefined) return this.#options.stepsFor(graph, sourceName);
    const sdlOf = this.#options.sdlOf;
    if (sdlOf === undefined) throw new TypeError('watchGraphCatalogue needs sdlOf or stepsFor');
    // biome-ignore lint/correctness/useYield: the one-step form of GraphEntriesSteps, for small sources: it builds at once, with no pause.
    return function* (catalogue: C) {
      return buildCatalogueEntries(graphqlSource(sourceName, sdlOf(catalogue)));
    };
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
    if ((this.#dirty.size === 0 && !this.#running) || this.#closed) return Promise.resolve();
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

  /** Inside the commit: only remember the graph and make sure a rebuild is coming (`soon`: without the spacing). */
  #mark(graph: string, soon = false): void {
    if (this.#closed) return;
    this.#dirty.add(graph);
    if (this.#timer !== undefined || this.#running) return;
    this.#schedule(soon);
  }

  #schedule(soon: boolean): void {
    const least = soon ? 0 : this.#options.coalesceMs ?? DEFAULT_COALESCE_MS;
    const delay = Math.min(MAX_DELAY_MS, Math.max(least, soon ? 0 : this.#lastRebuildMs * SPACING_FACTOR));
    this.#timer = setTimeout(() => void this.#run(), delay);
    // A pending rebuild must not keep a process alive that has nothing else to do.
    this.#timer.unref();
  }

  async #run(): Promise<void> {
    this.#timer = undefined;
    this.#running = true;
    let busyMs = 0;
    try {
      const graphs = [...this.#dirty];
      this.#dirty.clear();
      for (const graph of graphs) {
        if (this.#closed) return;
        busyMs += await this.#rebuildInSlices(graph);
      }
    } finally {
      this.#running = false;
      // The time the rebuild held the event loop, not the turns it gave back, spaces the next one.
      this.#lastRebuildMs = busyMs;
      if (this.#dirty.size > 0 && !this.#closed) this.#schedule(false);
      this.#release();
    }
  }

  /** Rebuilds one graph's source in slices; answers the time spent working (the gaps left out). */
  async #rebuildInSlices(graph: string): Promise<number> {
    const tracked = this.#graphs.get(graph);
    if (tracked === undefined) return 0;
    const current = this.#currentCatalogue(graph);
    if (current === undefined || current.epoch === tracked.epoch) return this.#rebuild(graph);
    let busy = 0;
    let sliceStart = performance.now();
    try {
      const steps = this.#rebuildSteps(tracked, current, PUT_PER_STEP);
      for (;;) {
        if (this.#closed || this.#graphs.get(graph) !== tracked) return busy;
        const step = steps.next();
        if (step.done === true) return busy + (performance.now() - sliceStart);
        if (performance.now() - sliceStart >= SLICE_MS) {
          busy += performance.now() - sliceStart;
          await new Promise((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
      }
    } catch (error) {
      this.#options.logger?.error({ err: error }, 'schema catalogue rebuild for a graph failed; the previous manifests stay');
      return busy + (performance.now() - sliceStart);
    }
  }

  /** A graph's entries, then putting them in the catalogue: steps, so either can give the event loop back. */
  *#rebuildSteps(tracked: Tracked<C>, current: C, perStep: number): Generator<void, void, void> {
    const { entries, problems } = yield* tracked.steps(current);
    if (problems.length > 0) {
      // Graph names never reach logs; operation names are labels of the graph, not its name.
      this.#options.logger?.error({ problems: problems.map((p) => ({ operation: p.operation, code: p.code, reason: p.reason })) }, 'graph operations left out of the schema catalogue');
    }
    yield;
    // Without stepsFor (small sources, tests) the source goes in at once, as it always did.
    if (this.#options.stepsFor === undefined) this.#catalogue.putSource(tracked.sourceName, entries);
    else yield* this.#catalogue.putSourceSteps(tracked.sourceName, entries, perStep);
    tracked.epoch = current.epoch;
  }

  #currentCatalogue(graph: string): C | undefined {
    try {
      return this.#engine.view(graph)?.catalogue;
    } catch {
      return undefined;
    }
  }

  #release(): void {
    if (this.#dirty.size > 0 || this.#running) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Rebuilds one graph's source at once (start-up without stepsFor, refresh, a dropped graph); answers the time it took. */
  #rebuild(graph: string): number {
    const started = performance.now();
    const tracked = this.#graphs.get(graph);
    if (tracked === undefined) return 0;
    const current = this.#currentCatalogue(graph);
    if (current === undefined) {
      if (tracked.epoch !== undefined) this.#catalogue.removeSource(tracked.sourceName);
      tracked.epoch = undefined;
      if (this.#forgetDropped) this.#graphs.delete(graph);
      return performance.now() - started;
    }
    if (current.epoch === tracked.epoch) return 0;
    try {
      const steps = this.#rebuildSteps(tracked, current, Infinity);
      for (let step = steps.next(); step.done !== true; step = steps.next());
    } catch (error) {
      this.#options.logger?.error({ err: error }, 'schema catalogue rebuild for a graph failed; the previous manifests stay');
    }
    return performance.now() - started;
  }
}

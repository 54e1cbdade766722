import { randomUUID } from 'node:crypto';
import { ToolgraphError, isToolgraphError } from '../../errors/index.ts';
import { silentLogger, type Logger } from '../../log/index.ts';
import type { GraphSnapshot, LogRecord, PersistenceAdapter } from '../persist/index.ts';
import { planBatch } from './batch-plan.ts';
import { Catalogue } from './catalogue.ts';
import { ChangeFeed, type ChangeListener } from './change-feed.ts';
import { GraphStore, freezeProps } from './graph-store.ts';
import { assertGraphName, describe } from './names.ts';
import type { GraphView } from './graph-view.ts';
import type { BatchRequest, CommitResult, CommittedBatch, GraphSummary, NodeRecord, PropertyValue } from './types.ts';

export interface GraphEngineOptions {
  persistence: PersistenceAdapter;
  logger?: Logger;
  /** Write a snapshot of a graph every this many batches (0: never). Default 1000. */
  snapshotEvery?: number;
  /** Ids for createNode mutations that omit one. Default: random UUIDs. */
  newId?: () => string;
  now?: () => Date;
}

function storageError(error: unknown, what: string): ToolgraphError {
  if (isToolgraphError(error)) return error;
  return new ToolgraphError('TG_STORAGE_FAILED', `Could not store ${what}; nothing was changed.`, { cause: error });
}

function noNewIds(): string {
  throw new ToolgraphError('TG_STORAGE_CORRUPT', 'A logged createNode has no id.');
}

/**
 * The in-process graph engine: named graphs, batches with optimistic concurrency, recovery and
 * following through a PersistenceAdapter, and the change feed.
 *
 * A commit validates the whole batch, appends it to the log and applies it to memory only once the
 * append is durable, in one synchronous step. Work on one graph (commits, create, drop, followed
 * records) runs strictly one after another.
 */
export class GraphEngine {
  readonly feed: ChangeFeed;
  readonly #graphs = new Map<string, GraphStore>();
  readonly #queues = new Map<string, Promise<unknown>>();
  readonly #pendingSnapshots = new Set<Promise<void>>();
  readonly #persistence: PersistenceAdapter;
  readonly #logger: Logger;
  readonly #snapshotEvery: number;
  readonly #newId: () => string;
  readonly #now: () => Date;
  #unfollow: (() => Promise<void>) | undefined;
  #closed = false;

  private constructor(options: GraphEngineOptions) {
    this.#persistence = options.persistence;
    this.#logger = options.logger ?? silentLogger();
    this.#snapshotEvery = options.snapshotEvery ?? 1000;
    this.#newId = options.newId ?? randomUUID;
    this.#now = options.now ?? (() => new Date());
    this.feed = new ChangeFeed(this.#logger);
  }

  /** Opens an engine: loads and replays stored state, then follows other instances when the adapter can. */
  static async open(options: GraphEngineOptions): Promise<GraphEngine> {
    const engine = new GraphEngine(options);
    await engine.#recover();
    if (options.persistence.follow) {
      engine.#unfollow = await options.persistence.follow((record) => engine.#onFollowed(record));
    }
    return engine;
  }

  get persistenceKind(): string {
    return this.#persistence.kind;
  }

  subscribe(listener: ChangeListener): () => void {
    return this.feed.subscribe(listener);
  }

  hasGraph(name: string): boolean {
    return this.#graphs.has(name);
  }

  listGraphs(): GraphSummary[] {
    return [...this.#graphs.keys()].sort().map((name) => this.#summary(this.#graphs.get(name)!));
  }

  /**
   * The live read view of a graph (TG_GRAPH_NOT_FOUND when there is none). Take a fresh view per
   * request: after a drop (or a followed re-create) an old view keeps showing the old graph.
   */
  view(name: string): GraphView {
    return this.#store(name);
  }

  async createGraph(name: string): Promise<GraphSummary> {
    this.#checkOpen();
    assertGraphName(name);
    return this.#serial(name, async () => {
      if (this.#graphs.has(name)) throw new ToolgraphError('TG_GRAPH_EXISTS', `Graph "${name}" already exists.`);
      const at = this.#now().toISOString();
      try {
        await this.#persistence.append({ kind: 'createGraph', graph: name, version: 0, at });
      } catch (error) {
        throw storageError(error, `the creation of graph "${name}"`);
      }
      return this.#summary(this.#startGraph(name));
    });
  }

  async dropGraph(name: string): Promise<void> {
    this.#checkOpen();
    assertGraphName(name);
    await this.#serial(name, async () => {
      this.#store(name);
      try {
        await this.#persistence.append({ kind: 'dropGraph', graph: name, at: this.#now().toISOString() });
      } catch (error) {
        throw storageError(error, `the drop of graph "${name}"`);
      }
      this.#endGraph(name);
    });
  }

  /** Validates, logs and applies one batch atomically; one version bump. */
  async commit(request: BatchRequest): Promise<CommitResult> {
    this.#checkOpen();
    if (typeof request !== 'object' || request === null) {
      throw new ToolgraphError('TG_BAD_REQUEST', `A batch must be an object with graph and mutations; got ${describe(request)}.`);
    }
    const name = request.graph;
    assertGraphName(name);
    const expected = request.expectedVersion;
    if (expected !== undefined && !(Number.isSafeInteger(expected) && expected >= 0)) {
      throw new ToolgraphError('TG_BAD_REQUEST', `expectedVersion must be a non-negative integer; got ${describe(expected)}.`);
    }
    return this.#serial(name, async () => {
      const store = this.#store(name);
      if (expected !== undefined && expected !== store.version) {
        throw new ToolgraphError('TG_VERSION_CONFLICT',
          `Graph "${name}" is at version ${store.version}; the batch expected version ${expected}. Nothing was changed; read again and retry.`,
          { details: { expectedVersion: expected, currentVersion: store.version } });
      }
      const plan = planBatch(store, request.mutations, this.#newId);
      const batch: CommittedBatch = {
        graph: name, version: store.version + 1, mutations: plan.mutations, committedAt: this.#now().toISOString(),
      };
      try {
        await this.#persistence.append({ kind: 'batch', batch });
      } catch (error) {
        throw storageError(error, `version ${batch.version} of graph "${name}"`);
      }
      const catalogueChanged = this.#applyBatch(store, batch, true);
      return {
        graph: name, version: batch.version, ids: plan.ids, mutations: plan.mutations,
        catalogueChanged, epoch: store.catalogue.epoch,
      };
    });
  }

  /** Writes a snapshot of a graph now (also done every `snapshotEvery` batches). */
  async snapshot(name: string): Promise<void> {
    this.#checkOpen();
    await this.#serial(name, async () => {
      await this.#persistence.writeSnapshot(snapshotOf(this.#store(name), this.#now()));
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#unfollow?.();
    await Promise.allSettled([...this.#queues.values(), ...this.#pendingSnapshots]);
    await this.#persistence.close();
  }

  // ---- internals ---------------------------------------------------------------------------

  #checkOpen(): void {
    if (this.#closed) throw new ToolgraphError('TG_STORAGE_FAILED', 'The graph engine is closed.');
  }

  #store(name: string): GraphStore {
    const store = this.#graphs.get(name);
    if (!store) throw new ToolgraphError('TG_GRAPH_NOT_FOUND', `No graph is named ${describe(name)}.`);
    return store;
  }

  #summary(store: GraphStore): GraphSummary {
    return { name: store.name, version: store.version, nodes: store.nodeCount, edges: store.edgeCount };
  }

  /** Runs tasks on one graph strictly in order; a failed task does not block the next. */
  #serial<T>(name: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(name) ?? Promise.resolve();
    const run = previous.then(task);
    const tail = run.then(() => undefined, () => undefined);
    this.#queues.set(name, tail);
    void tail.then(() => {
      if (this.#queues.get(name) === tail) this.#queues.delete(name);
    });
    return run;
  }

  #startGraph(name: string): GraphStore {
    const store = new GraphStore(name);
    this.#graphs.set(name, store);
    this.feed.publish({ kind: 'createGraph', graph: name, version: 0, mutations: [], catalogueChanged: true, epoch: store.catalogue.epoch });
    return store;
  }

  #endGraph(name: string): void {
    const store = this.#graphs.get(name);
    if (!store) return;
    this.#graphs.delete(name);
    this.feed.publish({ kind: 'dropGraph', graph: name, version: store.version, mutations: [], catalogueChanged: true, epoch: '' });
  }

  #applyBatch(store: GraphStore, batch: CommittedBatch, publish: boolean): boolean {
    const catalogueChanged = store.apply(batch.mutations);
    store.version = batch.version;
    if (publish) {
      this.feed.publish({
        kind: 'batch', graph: store.name, version: batch.version, mutations: batch.mutations,
        catalogueChanged, epoch: store.catalogue.epoch,
      });
    }
    if (this.#snapshotEvery > 0 && batch.version % this.#snapshotEvery === 0) {
      const pending = this.#persistence.writeSnapshot(snapshotOf(store, this.#now()))
        .catch((error: unknown) => this.#logger.warn({ err: error, version: batch.version }, 'graph snapshot failed; the log still holds every batch'))
        .finally(() => this.#pendingSnapshots.delete(pending));
      this.#pendingSnapshots.add(pending);
    }
    return catalogueChanged;
  }

  /** Applies a stored or followed record; `strict` (recovery) turns inconsistencies into errors. */
  #replay(record: LogRecord, strict: boolean, publish: boolean): void {
    if (record.kind === 'createGraph') {
      if (publish) this.#startGraph(record.graph);
      else this.#graphs.set(record.graph, new GraphStore(record.graph));
      return;
    }
    if (record.kind === 'dropGraph') {
      if (publish) this.#endGraph(record.graph);
      else this.#graphs.delete(record.graph);
      return;
    }
    const batch = record.batch;
    const store = this.#graphs.get(batch.graph);
    const problem = (message: string): void => {
      if (strict) throw new ToolgraphError('TG_STORAGE_CORRUPT', message);
      this.#logger.error({ version: batch.version }, message);
    };
    if (!store) return problem(`A stored batch (version ${batch.version}) names a graph that was never created.`);
    if (batch.version <= store.version) return;
    if (batch.version !== store.version + 1) {
      return problem(`A stored batch has version ${batch.version}, but the graph is at version ${store.version}; records are missing.`);
    }
    try {
      planBatch(store, batch.mutations, noNewIds);
    } catch (error) {
      return problem(`A stored batch (version ${batch.version}) does not apply: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.#applyBatch(store, batch, publish);
  }

  async #recover(): Promise<void> {
    let state;
    try {
      state = await this.#persistence.load();
    } catch (error) {
      if (isToolgraphError(error)) throw error;
      throw new ToolgraphError('TG_STORAGE_FAILED', 'Could not load the stored graphs.', { cause: error });
    }
    for (const snap of state.snapshots) this.#graphs.set(snap.graph, restoreSnapshot(snap));
    for (const record of state.records) this.#replay(record, true, false);
    this.#logger.info({ graphs: this.#graphs.size, records: state.records.length, snapshots: state.snapshots.length }, 'graph engine recovered');
  }

  #onFollowed(record: LogRecord): void {
    if (this.#closed) return;
    const name = record.kind === 'batch' ? record.batch.graph : record.graph;
    void this.#serial(name, async () => this.#replay(record, false, true)).catch((error: unknown) => {
      this.#logger.error({ err: error }, 'applying a followed record failed');
    });
  }
}

function snapshotOf(store: GraphStore, now: Date): GraphSnapshot {
  const nodes: NodeRecord[] = [];
  for (const n of store.allNodes()) nodes.push({ id: n.id, label: n.label, props: n.props });
  const catalogue = store.catalogue;
  return {
    graph: store.name, version: store.version, nodes, edges: [...store.allEdges()],
    catalogue: { labels: catalogue.labels, edgeTypes: catalogue.edgeTypes }, at: now.toISOString(),
  };
}

function restoreSnapshot(snap: GraphSnapshot): GraphStore {
  const store = new GraphStore(snap.graph, Catalogue.restore(snap.catalogue));
  for (const n of snap.nodes) store.insertNode(n.id, n.label, freezeProps(n.props as Record<string, PropertyValue>));
  for (const e of snap.edges) {
    const src = store.nodes.get(e.src);
    const tgt = store.nodes.get(e.tgt);
    if (!src || !tgt) throw new ToolgraphError('TG_STORAGE_CORRUPT', `A snapshot edge (version ${snap.version}) names a node it does not hold.`);
    store.link(src, tgt, e.type);
  }
  store.version = snap.version;
  return store;
}

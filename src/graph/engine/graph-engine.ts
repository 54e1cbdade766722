import { randomUUID } from 'node:crypto';
import { ToolgraphError, describeValue, isToolgraphError } from '../../errors/index.ts';
import { silentLogger, type Logger } from '../../log/index.ts';
import type { LoadedState, LogRecord, PersistenceAdapter, SnapshotStream } from './persistence-port.ts';
import { planBatch, planBatchSteps } from './batch-plan.ts';
import { runSliced } from './work-slices.ts';
import { DEFAULT_SCHEMA_CAPS, checkSchemaGrowth, type SchemaCaps } from './schema-caps.ts';
import { GraphTypes } from './graph-types.ts';
import { ChangeFeed, type ChangeListener } from './change-feed.ts';
import { GraphStore, freezeProps } from './graph-store.ts';
import { assertGraphName } from './names.ts';
import { SnapshotCapture } from './snapshot-capture.ts';
import { repairStoredText } from './stored-text.ts';
import type { GraphView } from './graph-view.ts';
import type { AccessDocument, BatchRequest, CommitResult, CommittedBatch, GraphSummary, Mutation, MutationInput, NodeRecord, PropertyValue, StoredAccess } from './types.ts';
import { WriteMeter, type WriteLimits } from './write-limits.ts';

export interface GraphEngineOptions {
  persistence: PersistenceAdapter;
  logger?: Logger;
  /** Write a snapshot of a graph every this many batches (0: never). Default 1000. */
  snapshotEvery?: number;
  /** Ids for createNode mutations that omit one. Default: random UUIDs. */
  newId?: () => string;
  now?: () => Date;
  /**
   * Caps every batch clients commit (commit, transact), checked as the batch is planned, so an
   * oversized one is refused before it is logged (TG_WRITE_TOO_LARGE). Default: none; `toolgraph`
   * passes the TOOLGRAPH_WRITE_* settings. Replays and followed records are never capped.
   */
  writeLimits?: WriteLimits;
  /** How far a graph's catalogue may grow through commits (replays are never refused). Default DEFAULT_SCHEMA_CAPS. */
  schemaCaps?: SchemaCaps;
}

function storageError(error: unknown, what: string): ToolgraphError {
  if (isToolgraphError(error)) return error;
  return new ToolgraphError('TG_STORAGE_FAILED', `Could not store ${what}; nothing was changed.`, { cause: error });
}

/** A batch committed from inside `transact`: the graph is the transaction's. */
interface TransactBatch {
  /** When given, the batch commits only if the graph is still at this version (else TG_VERSION_CONFLICT). */
  readonly expectedVersion?: number;
  readonly mutations: readonly MutationInput[];
  /** As BatchRequest.visible. */
  readonly visible?: (node: NodeRecord) => boolean;
}

/** Commits one batch from inside `transact`, without leaving the graph's queue; callable once. */
export type TransactCommit = (batch: TransactBatch) => Promise<CommitResult>;

/** Readers of one graph store that may be suspended between reads (see `read`). */
interface ReadPins {
  count: number;
  /** Set by a commit waiting for the count to reach zero. */
  drained: (() => void) | null;
}

const NOTHING_TO_RELEASE = (): void => undefined;

/** Ends a read counted by `#pin`; the last one to end lets a waiting commit apply. */
function unpin(pins: ReadPins): void {
  if (--pins.count === 0 && pins.drained !== null) {
    const drained = pins.drained;
    pins.drained = null;
    drained();
  }
}

function noNewIds(): string {
  throw new ToolgraphError('TG_STORAGE_CORRUPT', 'A logged createNode has no id.');
}

/** See GraphEngine.followStats. */
export interface FollowStats {
  readonly records: number;
  readonly lastLagMs: number;
}

/**
 * The in-process graph engine: named graphs, batches with optimistic concurrency, recovery and
 * following through a PersistenceAdapter, and the change feed.
 *
 * A commit validates the whole batch, appends it to the log and applies it to memory only once the
 * append is durable. Validating and encoding a large batch pause the event loop between slices
 * (work-slices.ts); applying it is one synchronous step, so readers see all of it or none. Work on one graph (commits, transactions, create, drop,
 * followed records) runs strictly one after another.
 *
 * Reads that yield the event loop (`read`) see one version: while one runs, a commit to its graph is
 * durable but waits to be applied until the read ends, and reads that arrive while a commit waits
 * start after it (so writers are not starved). A long read therefore delays writes to its graph by
 * at most its own duration, which the query budget bounds. Reads that never yield cost two counter
 * updates.
 */
export class GraphEngine {
  readonly feed: ChangeFeed;
  readonly #graphs = new Map<string, GraphStore>();
  readonly #queues = new Map<string, Promise<unknown>>();
  readonly #pendingSnapshots = new Set<Promise<void>>();
  /** The snapshot being written of each graph, if any: commits tell it what they are about to change. */
  readonly #captures = new Map<GraphStore, { capture: SnapshotCapture; written: Promise<void> }>();
  readonly #pins = new WeakMap<GraphStore, ReadPins>();
  /** Per graph: resolved once the commit now waiting for readers has been applied. */
  readonly #gates = new Map<string, Promise<void>>();
  readonly #persistence: PersistenceAdapter;
  readonly #logger: Logger;
  readonly #snapshotEvery: number;
  readonly #newId: () => string;
  readonly #now: () => Date;
  readonly #writeLimits: WriteLimits | null;
  readonly #schemaCaps: SchemaCaps;
  #unfollow: (() => Promise<void>) | undefined;
  readonly #followed = { records: 0, lastLagMs: 0 };
  #closed = false;

  private constructor(options: GraphEngineOptions) {
    this.#persistence = options.persistence;
    this.#logger = options.logger ?? silentLogger();
    this.#snapshotEvery = options.snapshotEvery ?? 1000;
    this.#newId = options.newId ?? randomUUID;
    this.#now = options.now ?? (() => new Date());
    this.#writeLimits = options.writeLimits ?? null;
    this.#schemaCaps = options.schemaCaps ?? DEFAULT_SCHEMA_CAPS;
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

  /**
   * Records committed by other instances and applied here (PostgreSQL), and the lag of the last one:
   * milliseconds from its commit (the writer's clock) to its being applied (this one's). Undefined
   * when the persistence has no followers to follow.
   */
  get followStats(): FollowStats | undefined {
    return this.#unfollow === undefined ? undefined : this.#followed;
  }

  get persistenceKind(): string {
    return this.#persistence.kind;
  }

  /** Why every write to the graphs fails from now on (the persistence's `failure`), or undefined. */
  storageFailure(): string | undefined {
    return this.#persistence.failure?.();
  }

  /** The caps on every client batch, or null when there are none (see GraphEngineOptions.writeLimits). */
  get writeLimits(): WriteLimits | null {
    return this.#writeLimits;
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

  /** The graph's stored access policy and its version (null: none); TG_GRAPH_NOT_FOUND when there is no graph. */
  access(name: string): StoredAccess | null {
    return this.#store(name).access;
  }

  /**
   * Stores a graph's access policy (null removes it) as one batch of its own: durable, versioned
   * like data (the batch's version is the policy version), replayed on restart and followed by other
   * instances. The engine does not read the document: src/graph/access validates it first.
   */
  async setAccess(name: string, policy: AccessDocument | null, expectedVersion?: number): Promise<CommitResult> {
    this.#checkOpen();
    assertGraphName(name);
    checkExpectedVersion(expectedVersion);
    const frozen = policy === null ? null : deepFreeze(structuredClone(policy));
    return this.#serial(name, () => this.#commitInQueue(name, expectedVersion, [{ op: 'setAccess', policy: frozen }], true));
  }

  /** The graph's GraphQL namespace (null: none); TG_GRAPH_NOT_FOUND when there is no graph. */
  namespace(name: string): string | null {
    return this.#store(name).types.namespace;
  }

  /**
   * Sets a graph's GraphQL namespace (null removes it) as one batch of its own, like setAccess:
   * durable, versioned, replayed on restart and followed by other instances. It is a catalogue
   * change (the epoch moves, so the GraphQL schema and the catalogue's manifests follow). The engine
   * does not judge the name: src/graph/schema validates it first.
   */
  async setNamespace(name: string, namespace: string | null, expectedVersion?: number): Promise<CommitResult> {
    this.#checkOpen();
    assertGraphName(name);
    checkExpectedVersion(expectedVersion);
    return this.#serial(name, () => this.#commitInQueue(name, expectedVersion, [{ op: 'setNamespace', namespace }], true));
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
      throw new ToolgraphError('TG_BAD_REQUEST', `A batch must be an object with graph and mutations; got ${describeValue(request)}.`);
    }
    const name = request.graph;
    assertGraphName(name);
    checkExpectedVersion(request.expectedVersion);
    return this.#serial(name, () => this.#commitInQueue(name, request.expectedVersion, request.mutations, false, request.visible));
  }

  /**
   * Runs `work` against one consistent version of a graph: commits to the graph are applied only
   * once it has ended, so `work` may await (and yield the event loop) between reads. `work` must not
   * commit to the same graph (that commit would wait for this read): use `transact` for read-then-write.
   */
  async read<T>(name: string, work: (view: GraphView) => T | Promise<T>): Promise<T> {
    const gate = this.#gates.get(name);
    if (gate !== undefined) await gate;
    const store = this.#store(name);
    const pins = this.#pin(store);
    try {
      return await work(store);
    } finally {
      unpin(pins);
    }
  }

  /**
   * `read` for work that usually answers at once (a GraphQL query, which pauses only past a time
   * slice): with no gate to wait for and a synchronous answer, the answer comes back as it is, with
   * no promise and no turn of the microtask queue; otherwise a promise, as from `read`. A failure
   * while `work` runs synchronously is thrown, not rejected.
   */
  readNow<T>(name: string, work: (view: GraphView) => T | Promise<T>): T | Promise<T> {
    if (this.#gates.get(name) !== undefined) return this.read(name, work);
    const store = this.#store(name);
    const pins = this.#pin(store);
    let answer: T | Promise<T>;
    try {
      answer = work(store);
    } catch (error) {
      unpin(pins);
      throw error;
    }
    if (answer instanceof Promise) return answer.finally(() => unpin(pins));
    unpin(pins);
    return answer;
  }

  /** Counts a read in progress on `store` (commits wait for the count to reach zero). */
  #pin(store: GraphStore): ReadPins {
    let pins = this.#pins.get(store);
    if (pins === undefined) this.#pins.set(store, (pins = { count: 0, drained: null }));
    pins.count++;
    return pins;
  }

  /**
   * Runs read → plan → commit as one step of the graph's queue: `work` reads the current view, and
   * may call `commit` once with the batch it planned. Writers in this process thus queue and commit
   * in order instead of conflicting; without an expected version, a TG_VERSION_CONFLICT can only come
   * from another instance sharing the storage (PostgreSQL). After `commit`, the view shows the
   * committed state and no other write can intervene until `work` ends.
   */
  async transact<T>(name: string, work: (view: GraphView, commit: TransactCommit) => Promise<T>): Promise<T> {
    this.#checkOpen();
    assertGraphName(name);
    return this.#serial(name, async () => {
      const store = this.#store(name);
      let state: 'open' | 'committed' | 'ended' = 'open';
      const commit: TransactCommit = (batch) => {
        if (state !== 'open') {
          return Promise.reject(new ToolgraphError('TG_INTERNAL', state === 'ended' ? 'A transaction committed after it ended.' : 'A transaction committed twice.'));
        }
        state = 'committed';
        checkExpectedVersion(batch.expectedVersion);
        return this.#commitInQueue(name, batch.expectedVersion, batch.mutations, false, batch.visible);
      };
      try {
        return await work(store, commit);
      } finally {
        state = 'ended';
      }
    });
  }

  /**
   * Writes a snapshot of a graph as it is now (also done every `snapshotEvery` batches) and resolves
   * once it is durable. Commits to the graph go on meanwhile; the snapshot shows none of them. Waits for
   * a snapshot of the graph already being written, then writes a fresh one.
   */
  async snapshot(name: string): Promise<void> {
    this.#checkOpen();
    let store = this.#store(name);
    for (let running = this.#captures.get(store); running; running = this.#captures.get(store)) {
      await running.written.catch(() => undefined);
      store = this.#store(name);
    }
    await this.#startSnapshot(store);
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
    if (!store) throw new ToolgraphError('TG_GRAPH_NOT_FOUND', `No graph is named ${describeValue(name)}.`);
    return store;
  }

  /** The body of a commit, run inside the graph's queue. */
  async #commitInQueue(name: string, expected: number | undefined, mutations: readonly (MutationInput | Mutation)[], access = false, visible?: (node: NodeRecord) => boolean): Promise<CommitResult> {
    const store = this.#store(name);
    if (expected !== undefined && expected !== store.version) {
      throw new ToolgraphError('TG_VERSION_CONFLICT',
        `Graph "${name}" is at version ${store.version}; the batch expected version ${expected}. Nothing was changed; read again and retry.`,
        { details: { expectedVersion: expected, currentVersion: store.version } });
    }
    // The engine's own policy batches (access) are not client writes: they are never capped.
    const meter = access || this.#writeLimits === null ? undefined : new WriteMeter(this.#writeLimits);
    // Planned in slices (a batch at the write caps is thousands of mutations); nothing else writes to
    // the graph meanwhile (this runs in its queue), and readers see the graph as it was until it is applied.
    const plan = await runSliced(planBatchSteps(store, mutations, this.#newId, { access, ...(visible === undefined ? {} : { visible }), ...(meter === undefined ? {} : { meter }) }));
    checkSchemaGrowth(store, plan.mutations, this.#schemaCaps);
    const batch: CommittedBatch = {
      graph: name, version: store.version + 1, mutations: plan.mutations, committedAt: this.#now().toISOString(),
    };
    try {
      await this.#persistence.append({ kind: 'batch', batch });
    } catch (error) {
      throw storageError(error, `version ${batch.version} of graph "${name}"`);
    }
    const release = await this.#whenUnread(store, name);
    try {
      const catalogueChanged = this.#applyBatch(store, batch, true);
      return {
        graph: name, version: batch.version, ids: plan.ids, mutations: plan.mutations,
        catalogueChanged, epoch: store.catalogue.epoch,
      };
    } finally {
      release();
    }
  }

  /**
   * Resolves once no `read` of this store is in progress; until the returned release is called,
   * new reads of the graph wait (so a stream of reads cannot starve the write). Immediate when none.
   */
  async #whenUnread(store: GraphStore, name: string): Promise<() => void> {
    const pins = this.#pins.get(store);
    if (pins === undefined || pins.count === 0) return NOTHING_TO_RELEASE;
    let open!: () => void;
    this.#gates.set(name, new Promise<void>((resolve) => { open = resolve; }));
    await new Promise<void>((resolve) => { pins.drained = resolve; });
    return () => {
      this.#gates.delete(name);
      open();
    };
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
    this.#captures.get(store)?.capture.beforeApply(store, batch.mutations);
    const catalogueChanged = store.apply(batch.mutations);
    store.version = batch.version;
    if (publish) {
      this.feed.publish({
        kind: 'batch', graph: store.name, version: batch.version, mutations: batch.mutations,
        catalogueChanged, epoch: store.catalogue.epoch,
      });
    }
    if (this.#snapshotEvery > 0 && batch.version % this.#snapshotEvery === 0 && !this.#captures.has(store)) {
      const pending = this.#startSnapshot(store)
        .catch((error: unknown) => this.#logger.warn({ err: error, version: batch.version }, 'graph snapshot failed; the log still holds every batch'))
        .finally(() => this.#pendingSnapshots.delete(pending));
      this.#pendingSnapshots.add(pending);
    }
    return catalogueChanged;
  }

  /**
   * Starts writing a snapshot of the store at its current version, off the commit path: the adapter
   * pulls chunks while commits go on (see SnapshotCapture). One at a time per graph.
   */
  #startSnapshot(store: GraphStore): Promise<void> {
    const capture = new SnapshotCapture(store, this.#now().toISOString());
    const written = this.#persistence.writeSnapshot(capture).finally(() => {
      if (this.#captures.get(store)?.capture === capture) this.#captures.delete(store);
    });
    this.#captures.set(store, { capture, written });
    // close() waits for it.
    const settled = written.catch(() => undefined).finally(() => this.#pendingSnapshots.delete(settled));
    this.#pendingSnapshots.add(settled);
    return written;
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
    const { batch, repaired } = repairStoredText(record.batch);
    const store = this.#graphs.get(batch.graph);
    const problem = (message: string): void => {
      if (strict) throw new ToolgraphError('TG_STORAGE_CORRUPT', message);
      this.#logger.error({ version: batch.version }, message);
    };
    if (!store) {
      problem(`A stored batch (version ${batch.version}) names a graph that was never created.`);
      return;
    }
    if (batch.version <= store.version) return;
    if (batch.version !== store.version + 1) {
      problem(`A stored batch has version ${batch.version}, but the graph is at version ${store.version}; records are missing.`);
      return;
    }
    if (repaired.length > 0) {
      this.#logger.warn({ version: batch.version, repaired: repaired.length, where: repaired.slice(0, 5) },
        'a stored batch holds text with lone surrogates (written before they were refused); each is read as U+FFFD');
    }
    try {
      planBatch(store, batch.mutations, noNewIds, { access: true });
    } catch (error) {
      problem(`A stored batch (version ${batch.version}) does not apply: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    this.#applyBatch(store, batch, publish);
  }

  async #recover(): Promise<void> {
    let state: LoadedState;
    try {
      state = await this.#persistence.load();
    } catch (error) {
      if (isToolgraphError(error)) throw error;
      throw new ToolgraphError('TG_STORAGE_FAILED', 'Could not load the stored graphs.', { cause: error });
    }
    try {
      for (const snap of state.snapshots) this.#graphs.set(snap.header.graph, await restoreSnapshot(snap));
    } catch (error) {
      if (isToolgraphError(error)) throw error;
      throw new ToolgraphError('TG_STORAGE_FAILED', 'Could not read a stored graph snapshot.', { cause: error });
    } finally {
      await state.release?.();
    }
    for (const record of state.records) this.#replay(record, true, false);
    // Each graph's catalogue (and its epoch digest) is made once here, while the server is not serving
    // yet, rather than inside the first request or commit that reads it.
    for (const store of this.#graphs.values()) void store.catalogue.epoch;
    this.#logger.info({ graphs: this.#graphs.size, records: state.records.length, snapshots: state.snapshots.length }, 'graph engine recovered');
  }

  #onFollowed(record: LogRecord): void {
    if (this.#closed) return;
    const name = record.kind === 'batch' ? record.batch.graph : record.graph;
    void this.#serial(name, async () => {
      const store = this.#graphs.get(name);
      const release = record.kind === 'batch' && store !== undefined ? await this.#whenUnread(store, name) : NOTHING_TO_RELEASE;
      try {
        this.#replay(record, false, true);
      } finally {
        release();
      }
      this.#followed.records++;
      this.#followed.lastLagMs = Date.now() - Date.parse(record.kind === 'batch' ? record.batch.committedAt : record.at);
    }).catch((error: unknown) => {
      this.#logger.error({ err: error }, 'applying a followed record failed');
    });
  }
}

function checkExpectedVersion(expected: unknown): void {
  if (expected !== undefined && !(Number.isSafeInteger(expected) && (expected as number) >= 0)) {
    throw new ToolgraphError('TG_BAD_REQUEST', `expectedVersion must be a non-negative integer; got ${describeValue(expected)}.`);
  }
}

/**
 * Rebuilds a graph from a streamed snapshot, one chunk at a time. Property values pass through
 * `freezeProps`, which also reads lone surrogates (stored before they were refused) as U+FFFD.
 */
async function restoreSnapshot(snap: SnapshotStream): Promise<GraphStore> {
  const { header } = snap;
  const store = new GraphStore(header.graph, GraphTypes.restore(header.catalogue));
  let edges = false;
  for await (const chunk of snap.chunks()) {
    if (chunk.kind === 'nodes') {
      if (edges) throw new ToolgraphError('TG_STORAGE_CORRUPT', `A snapshot of graph "${header.graph}" (version ${header.version}) has nodes after its edges.`);
      for (const n of chunk.nodes) store.insertNode(n.id, n.label, freezeProps(n.props as Record<string, PropertyValue>));
      continue;
    }
    edges = true;
    for (const e of chunk.edges) {
      const src = store.nodes.get(e.src);
      const tgt = store.nodes.get(e.tgt);
      if (!src || !tgt) throw new ToolgraphError('TG_STORAGE_CORRUPT', `A snapshot edge (version ${header.version}) names a node it does not hold.`);
      store.link(src, tgt, e.type);
    }
  }
  store.version = header.version;
  if (header.access !== undefined) store.access = Object.freeze({ version: header.access.version, policy: deepFreeze(header.access.policy) });
  return store;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

import type {
  CommittedBatch, EdgeRecord, EdgeTypeInfo, LabelInfo, NodeRecord, StoredAccess,
} from './types.ts';

/**
 * The persistence contract every adapter (memory, file, postgres) implements.
 *
 * The engine commits a batch by validating it, calling `append` and applying it to memory only once
 * `append` has resolved, so a batch is visible exactly when it is durable. Per graph, the engine
 * never has two appends in flight. `test/graph/persist/contract-suite.ts` pins this contract; run it
 * on every adapter.
 */

export type LogRecord =
  | { readonly kind: 'batch'; readonly batch: CommittedBatch }
  /** Starts a graph (its version 0). A graph name is free again once its dropGraph is durable. */
  | { readonly kind: 'createGraph'; readonly graph: string; readonly version: 0; readonly at: string }
  | { readonly kind: 'dropGraph'; readonly graph: string; readonly at: string };

/**
 * The full state of one graph at one version, whole. The catalogue is part of it because it only grows
 * (a type can outlive the last node that had it) and a Float property may hold only integers. Adapters
 * never see it whole: they read and write a `SnapshotStream` (see snapshot-stream.ts to convert).
 */
export interface GraphSnapshot extends SnapshotHeader {
  /** Ascending id. */
  readonly nodes: readonly NodeRecord[];
  /** Ordered by (src, type, tgt). */
  readonly edges: readonly EdgeRecord[];
}

/** What a snapshot says about itself, ahead of its nodes and edges. */
export interface SnapshotHeader {
  readonly graph: string;
  readonly version: number;
  readonly catalogue: {
    readonly labels: readonly LabelInfo[];
    readonly edgeTypes: readonly EdgeTypeInfo[];
    /** The graph's GraphQL namespace; absent when it has none (and in snapshots older than namespaces). */
    readonly namespace?: string;
  };
  readonly at: string;
  /** The graph's access policy at this version; absent when it has none (and in snapshots older than policies). */
  readonly access?: StoredAccess;
}

/** A slice of a snapshot: every `nodes` chunk comes before the first `edges` chunk. */
export type SnapshotChunk =
  | { readonly kind: 'nodes'; readonly nodes: readonly NodeRecord[] }
  | { readonly kind: 'edges'; readonly edges: readonly EdgeRecord[] };

/**
 * A snapshot as it travels between the engine and an adapter: its header, then its chunks, produced
 * (when writing) or read (when loading) one at a time, so neither side ever holds the graph serialised
 * whole. `chunks()` may be iterated once. The engine's stream shows the graph exactly as it was at
 * `header.version` while later commits go on (see snapshot-capture.ts).
 */
export interface SnapshotStream {
  readonly header: SnapshotHeader;
  chunks(): AsyncIterable<SnapshotChunk>;
}

/**
 * What `load` returns: enough to rebuild every live graph.
 * - `snapshots`: the latest snapshot of each live graph that has one (none of dropped graphs), each
 *   streamed; the engine reads them one after another, in order, before it looks at `records`.
 * - `records`: in commit order, only what comes after: for a graph with a snapshot, its records of
 *   higher version; for a graph without one, everything since its latest createGraph (that record
 *   included). Records of dropped graphs are left out, or end with their dropGraph.
 * - `release`, when present, is called once the snapshots have been read (or reading failed): it frees
 *   what reading them held (a file, a database transaction).
 * The engine skips batch records at or below a graph's version and fails with TG_STORAGE_CORRUPT on a
 * gap, so the order within one graph is what matters.
 */
export interface LoadedState {
  readonly snapshots: readonly SnapshotStream[];
  readonly records: readonly LogRecord[];
  release?(): Promise<void>;
}

export interface PersistenceAdapter {
  /** 'memory' | 'file' | 'postgres'; for logs and `toolgraph` status output. */
  readonly kind: string;

  /** Reads everything back. Called once, before any append. */
  load(): Promise<LoadedState>;

  /**
   * Stores one record durably (fsync, commit) and resolves only then. Rejects with a ToolgraphError:
   * TG_VERSION_CONFLICT when a batch for (graph, version) already exists (another instance got there
   * first; nothing was stored); TG_GRAPH_EXISTS when a createGraph names a live graph;
   * TG_GRAPH_NOT_FOUND when a batch or dropGraph names a graph with no live createGraph;
   * TG_STORAGE_FAILED when storage fails.
   */
  append(record: LogRecord): Promise<void>;

  /**
   * Stores a snapshot, reading its chunks one at a time (never the whole graph at once), after which the
   * adapter may discard the graph's records at or below its version. Ignored when the graph was dropped
   * meanwhile or a newer snapshot is stored. Resolves once the snapshot is durable.
   */
  writeSnapshot(snapshot: SnapshotStream): Promise<void>;

  /**
   * Delivers records committed by OTHER instances sharing the storage (postgres), each graph's in
   * version order, after the ones `load` returned. Adapters for one process omit it. Resolves to a
   * function that stops following.
   */
  follow?(onRecord: (record: LogRecord) => void): Promise<() => Promise<void>>;

  /**
   * What makes every write fail from now on, for readiness (/healthz `failing`), or undefined. Only
   * adapters whose failures stick say anything here (the file log, once a write or sync failed, until
   * restart); one whose next write may simply work (PostgreSQL after a lost connection) omits it.
   * Words for an unauthenticated probe: an error code, never a path.
   */
  failure?(): string | undefined;

  /** Flushes and releases files and connections. Further calls reject with TG_STORAGE_FAILED. */
  close(): Promise<void>;
}

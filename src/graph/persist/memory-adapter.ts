import { ToolgraphError } from '../../errors/index.ts';
import { cloneRecordSteps, readSnapshot, runSliced, snapshotStream, type GraphSnapshot, type LoadedState, type LogRecord, type PersistenceAdapter, type SnapshotStream } from '../engine/index.ts';

interface LiveGraph {
  version: number;
  /** Records since its createGraph (included) or since its snapshot. */
  records: { seq: number; record: LogRecord }[];
  snapshot: GraphSnapshot | undefined;
}

type Listener = { origin: MemoryPersistence; onRecord: (record: LogRecord) => void };

/**
 * Storage shared by memory adapters: one store with several adapters stands for several instances
 * over one database, so tests can exercise following without PostgreSQL.
 */
export class MemoryStore {
  readonly graphs = new Map<string, LiveGraph>();
  listeners: Listener[] = [];
  seq = 0;
}

export interface MemoryPersistenceOptions {
  /** Share a store between adapters to simulate instances over one database. */
  store?: MemoryStore;
}

/** Keeps everything in memory; records are cloned so callers cannot alias stored data. */
export class MemoryPersistence implements PersistenceAdapter {
  readonly kind = 'memory';
  readonly store: MemoryStore;
  #closed = false;

  constructor(options: MemoryPersistenceOptions = {}) {
    this.store = options.store ?? new MemoryStore();
  }

  async load(): Promise<LoadedState> {
    this.#check();
    const snapshots: SnapshotStream[] = [];
    const records: { seq: number; record: LogRecord }[] = [];
    for (const live of this.store.graphs.values()) {
      if (live.snapshot) snapshots.push(snapshotStream(structuredClone(live.snapshot)));
      records.push(...live.records);
    }
    records.sort((a, b) => a.seq - b.seq);
    return { snapshots, records: records.map((r) => structuredClone(r.record)) };
  }

  async append(record: LogRecord): Promise<void> {
    this.#check();
    // A batch at the write caps is thousands of mutations: copied a few at a time, between turns of the event loop.
    const copy = await runSliced(cloneRecordSteps(record));
    this.#check();
    const graphs = this.store.graphs;
    const seq = ++this.store.seq;
    switch (copy.kind) {
      case 'createGraph':
        if (graphs.has(copy.graph)) throw new ToolgraphError('TG_GRAPH_EXISTS', `Graph "${copy.graph}" already exists.`);
        graphs.set(copy.graph, { version: 0, records: [{ seq, record: copy }], snapshot: undefined });
        break;
      case 'dropGraph':
        if (!graphs.delete(copy.graph)) throw new ToolgraphError('TG_GRAPH_NOT_FOUND', `Graph "${copy.graph}" does not exist.`);
        break;
      case 'batch': {
        const live = graphs.get(copy.batch.graph);
        if (!live) throw new ToolgraphError('TG_GRAPH_NOT_FOUND', `Graph "${copy.batch.graph}" does not exist.`);
        if (copy.batch.version <= live.version) {
          throw new ToolgraphError('TG_VERSION_CONFLICT', `Graph "${copy.batch.graph}" already has version ${copy.batch.version}; it is at version ${live.version}.`);
        }
        live.version = copy.batch.version;
        live.records.push({ seq, record: copy });
        break;
      }
    }
    for (const listener of this.store.listeners) {
      if (listener.origin === this) continue;
      void runSliced(cloneRecordSteps(copy)).then((delivered) => listener.onRecord(delivered));
    }
  }

  async writeSnapshot(stream: SnapshotStream): Promise<void> {
    this.#check();
    const { header } = stream;
    const wanted = (): LiveGraph | undefined => {
      const live = this.store.graphs.get(header.graph);
      if (!live || header.version > live.version) return undefined;
      if (live.snapshot && live.snapshot.version >= header.version) return undefined;
      return live;
    };
    const first = wanted();
    if (!first) return;
    // Read chunk by chunk like the other adapters (commits go on meanwhile), then check again: the
    // graph may have been dropped (and created again) or a newer snapshot stored meanwhile.
    const snapshot = structuredClone(await readSnapshot(stream));
    const live = wanted();
    if (live !== first || this.#closed) return;
    live.snapshot = snapshot;
    live.records = live.records.filter((r) => r.record.kind === 'batch' && r.record.batch.version > snapshot.version);
  }

  async follow(onRecord: (record: LogRecord) => void): Promise<() => Promise<void>> {
    this.#check();
    const listener: Listener = { origin: this, onRecord };
    this.store.listeners.push(listener);
    return async () => {
      this.store.listeners = this.store.listeners.filter((l) => l !== listener);
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.store.listeners = this.store.listeners.filter((l) => l.origin !== this);
  }

  #check(): void {
    if (this.#closed) throw new ToolgraphError('TG_STORAGE_FAILED', 'The memory persistence adapter is closed.');
  }
}

import type { LoadedState, PersistenceAdapter } from '../../src/graph/engine/index.ts';

/** Persistence that stores nothing: benchmarks of in-memory work measure the engine alone. */
export class NullPersistence implements PersistenceAdapter {
  readonly kind = 'null';
  async load(): Promise<LoadedState> { return { snapshots: [], records: [] }; }
  async append(): Promise<void> {}
  async writeSnapshot(): Promise<void> {}
  async close(): Promise<void> {}
}

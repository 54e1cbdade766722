import { GraphEngine, type GraphEngineOptions } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence, MemoryStore } from '../../../src/graph/persist/index.ts';

/** An engine over memory persistence with deterministic ids and clock. */
export async function openEngine(options: Partial<GraphEngineOptions> & { store?: MemoryStore } = {}): Promise<GraphEngine> {
  let next = 0;
  const { store, ...rest } = options;
  return GraphEngine.open({
    persistence: new MemoryPersistence({ store: store ?? new MemoryStore() }),
    newId: () => `gen-${String(++next).padStart(4, '0')}`,
    now: () => new Date('2026-11-22T00:00:00.000Z'),
    ...rest,
  });
}

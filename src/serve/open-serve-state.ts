import type { ResolvedValues } from '../config/index.ts';
import { openStateStore, type GuardedStateStore } from '../state/index.ts';

export type StateSettings = Pick<ResolvedValues, 'persistence' | 'dataDir' | 'databaseUrl'> & Partial<Pick<ResolvedValues, 'databaseSchema'>>;

/**
 * The state store of `serve`, beside the graphs: `<data dir>/state` for file persistence (survives a
 * restart), the `toolgraph_state` table in the graphs' schema for PostgreSQL (shared by every
 * replica), the process's memory for memory persistence.
 */
export function openServeState(values: StateSettings): GuardedStateStore {
  return openStateStore({
    kind: values.persistence,
    dataDir: values.dataDir,
    ...(values.databaseUrl ? { databaseUrl: values.databaseUrl } : {}),
    ...(values.databaseSchema ? { schema: values.databaseSchema } : {}),
  });
}

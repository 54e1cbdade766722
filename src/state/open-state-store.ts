import { join } from 'node:path';
import { ToolgraphError } from '../errors/index.ts';
import { FileStateStore } from './file-state-store.ts';
import { GuardedStateStore } from './guarded-state-store.ts';
import { MemoryStateStore } from './memory-state-store.ts';
import { PostgresStateStore } from './postgres-state-store.ts';
import type { StateStore } from './state-store.ts';

export interface OpenStateStoreOptions {
  /** The configured persistence (TOOLGRAPH_PERSISTENCE): state lives where the graphs live. */
  readonly kind: string;
  /** For `file`: the data directory (TOOLGRAPH_DATA_DIR); state goes to `<dataDir>/state`. */
  readonly dataDir?: string;
  /** For `postgres`: DATABASE_URL. */
  readonly databaseUrl?: string;
  /** For `postgres`: the schema of the table. Default `public`. */
  readonly schema?: string;
}

/**
 * Opens the state store that sits beside the configured graph persistence, guarded: its failures
 * answer TG_STORAGE_FAILED and `failure()` tells whether it works now (GuardedStateStore).
 */
export function openStateStore(options: OpenStateStoreOptions): GuardedStateStore {
  return new GuardedStateStore(openBareStateStore(options));
}

function openBareStateStore(options: OpenStateStoreOptions): StateStore {
  switch (options.kind) {
    case 'memory':
      return new MemoryStateStore();
    case 'file':
      if (!options.dataDir) throw new ToolgraphError('TG_CONFIG_INVALID', 'File persistence needs a data directory (TOOLGRAPH_DATA_DIR).');
      return new FileStateStore(join(options.dataDir, 'state'));
    case 'postgres':
      if (!options.databaseUrl) throw new ToolgraphError('TG_CONFIG_INVALID', 'DATABASE_URL is required when TOOLGRAPH_PERSISTENCE is postgres.');
      return new PostgresStateStore({ connectionString: options.databaseUrl, ...(options.schema ? { schema: options.schema } : {}) });
    default:
      throw new ToolgraphError('TG_CONFIG_INVALID', `Unknown persistence kind ${JSON.stringify(options.kind)}; expected file, postgres or memory.`);
  }
}

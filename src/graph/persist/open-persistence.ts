import { ToolgraphError } from '../../errors/index.ts';
import type { Logger } from '../../log/index.ts';
import type { PersistenceAdapter } from '../engine/index.ts';
import { FilePersistence } from './file/index.ts';
import { MemoryPersistence } from './memory-adapter.ts';

export interface OpenPersistenceOptions {
  /** 'file' | 'postgres' | 'memory' (TOOLGRAPH_PERSISTENCE); anything else is TG_CONFIG_INVALID. */
  readonly kind: string;
  /** For `file`: the folder of the log, snapshots and lock (serve passes `<dataDir>/graphs`). */
  readonly dataDir?: string;
  /** For `postgres`: DATABASE_URL. */
  readonly databaseUrl?: string;
  /** For `postgres`: the schema of the toolgraph tables. Default `public`. */
  readonly schema?: string;
  /**
   * For `file`: start even when the log has lost acknowledged records, setting the lost part aside and
   * logging it (TOOLGRAPH_ACCEPT_DATA_LOSS). Default false: refuse to start, naming the file.
   */
  readonly acceptDataLoss?: boolean;
  readonly logger?: Logger;
}

/** Opens the configured adapter; the file adapter takes its directory lock here. pg loads only for `postgres`. */
export async function openPersistence(options: OpenPersistenceOptions): Promise<PersistenceAdapter> {
  const logger = options.logger;
  switch (options.kind) {
    case 'memory':
      return new MemoryPersistence();
    case 'file':
      if (!options.dataDir) throw new ToolgraphError('TG_CONFIG_INVALID', 'File persistence needs a data directory (TOOLGRAPH_DATA_DIR).');
      return FilePersistence.open({
        directory: options.dataDir, ...(logger ? { logger } : {}), ...(options.acceptDataLoss ? { acceptDataLoss: true } : {}),
      });
    case 'postgres': {
      if (!options.databaseUrl) throw new ToolgraphError('TG_CONFIG_INVALID', 'DATABASE_URL is required when TOOLGRAPH_PERSISTENCE is postgres.');
      const { PostgresPersistence } = await import('./postgres/index.ts');
      return new PostgresPersistence({
        connectionString: options.databaseUrl, ...(options.schema ? { schema: options.schema } : {}), ...(logger ? { logger } : {}),
      });
    }
    default:
      throw new ToolgraphError('TG_CONFIG_INVALID', `Unknown persistence kind ${JSON.stringify(options.kind)}; expected file, postgres or memory.`);
  }
}

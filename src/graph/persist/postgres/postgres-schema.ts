import type { Pool } from 'pg';
import { ToolgraphError } from '../../../errors/index.ts';

/** Lower-case SQL identifiers only, so names never need escaping beyond double quotes. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,39}$/;

/** Fully qualified, quoted names of everything the adapter uses in one schema. */
export interface PostgresNames {
  readonly schema: string;
  readonly graphs: string;
  readonly batches: string;
  readonly snapshots: string;
  readonly snapshotChunks: string;
  readonly sequence: string;
  /** LISTEN/NOTIFY channel; one per schema so deployments (and test runs) sharing a database stay apart. */
  readonly channel: string;
}

export function postgresNames(schema: string): PostgresNames {
  if (!SCHEMA_NAME.test(schema)) {
    throw new ToolgraphError('TG_CONFIG_INVALID', `The PostgreSQL schema name must match ${SCHEMA_NAME.source}; got ${JSON.stringify(schema)}.`);
  }
  const q = (table: string): string => `"${schema}"."${table}"`;
  return {
    schema,
    graphs: q('toolgraph_graphs'),
    batches: q('toolgraph_batches'),
    snapshots: q('toolgraph_snapshots'),
    snapshotChunks: q('toolgraph_snapshot_chunks'),
    sequence: q('toolgraph_record_seq'),
    channel: schema === 'public' ? 'toolgraph_changes' : `toolgraph_changes_${schema}`,
  };
}

/**
 * Creates the schema on first use. Every statement is idempotent, and an advisory lock keeps two
 * instances starting together from racing on the catalog. Times are stored as the ISO 8601 text the
 * engine wrote (so records read back byte for byte); mutations and snapshots as `json`, which keeps
 * the text exactly as written (jsonb would reorder object keys).
 */
export async function migratePostgres(pool: Pool, names: PostgresNames): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`toolgraph-migrate:${names.schema}`]);
    await client.query(`
      CREATE SCHEMA IF NOT EXISTS "${names.schema}";
      CREATE SEQUENCE IF NOT EXISTS ${names.sequence};
      CREATE TABLE IF NOT EXISTS ${names.graphs} (
        name        text    NOT NULL,
        generation  bigint  NOT NULL,
        seq         bigint  NOT NULL DEFAULT nextval('${names.sequence}'),
        created_at  text    NOT NULL,
        created_by  text    NOT NULL,
        dropped_at  text,
        dropped_by  text,
        PRIMARY KEY (name, generation)
      );
      CREATE UNIQUE INDEX IF NOT EXISTS toolgraph_graphs_one_live ON ${names.graphs} (name) WHERE dropped_at IS NULL;
      CREATE TABLE IF NOT EXISTS ${names.batches} (
        graph         text    NOT NULL,
        generation    bigint  NOT NULL,
        version       bigint  NOT NULL,
        seq           bigint  NOT NULL DEFAULT nextval('${names.sequence}'),
        mutations     json    NOT NULL,
        committed_at  text    NOT NULL,
        origin        text    NOT NULL,
        PRIMARY KEY (graph, generation, version)
      );
      CREATE TABLE IF NOT EXISTS ${names.snapshots} (
        graph       text    NOT NULL,
        generation  bigint  NOT NULL,
        version     bigint  NOT NULL,
        body        json    NOT NULL,
        written_at  text    NOT NULL,
        PRIMARY KEY (graph, generation)
      );
      -- A snapshot is stored in chunks: its row holds the header in body and names its chunk set.
      -- chunk_set NULL: a snapshot written whole, before snapshots were chunked (body holds all of it).
      ALTER TABLE ${names.snapshots} ADD COLUMN IF NOT EXISTS chunk_set text;
      ALTER TABLE ${names.snapshots} ADD COLUMN IF NOT EXISTS chunks integer;
      CREATE TABLE IF NOT EXISTS ${names.snapshotChunks} (
        graph       text     NOT NULL,
        generation  bigint   NOT NULL,
        chunk_set   text     NOT NULL,
        version     bigint   NOT NULL,
        no          integer  NOT NULL,
        body        json     NOT NULL,
        PRIMARY KEY (graph, generation, chunk_set, no)
      );
    `);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

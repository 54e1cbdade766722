import pg from 'pg';
import { ToolgraphError } from '../errors/index.ts';
import { checkEntry } from './check-entry.ts';
import { SWEEP_INTERVAL_MS, type StateStore } from './state-store.ts';

/** Lower-case SQL identifiers only, as the graph tables' schema (src/graph/persist/postgres). */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,39}$/;

export interface PostgresStateStoreOptions {
  readonly connectionString: string;
  /** The schema of the table (default `public`), as the graph tables'. */
  readonly schema?: string;
  /** Pool size; state traffic is light. Default 4. */
  readonly maxConnections?: number;
  readonly sweepIntervalMs?: number;
}

/**
 * The store of `TOOLGRAPH_PERSISTENCE=postgres`, shared by every replica: one table keyed by
 * (space, key), expiry by the database's clock (so replicas whose clocks differ agree), an index on
 * expiry for the periodic sweep. `add` is one `INSERT … ON CONFLICT … WHERE expired` statement and
 * `take` one `DELETE … RETURNING`, so of replicas racing on one key exactly one wins.
 */
export class PostgresStateStore implements StateStore {
  readonly kind = 'postgres';
  readonly #pool: pg.Pool;
  readonly #table: string;
  readonly #schema: string;
  readonly #timer: NodeJS.Timeout;
  #ready: Promise<void> | undefined;

  constructor(options: PostgresStateStoreOptions) {
    const schema = options.schema ?? 'public';
    if (!SCHEMA_NAME.test(schema)) throw new ToolgraphError('TG_CONFIG_INVALID', `The PostgreSQL schema name must match ${SCHEMA_NAME.source}; got ${JSON.stringify(schema)}.`);
    this.#schema = schema;
    this.#table = `"${schema}"."toolgraph_state"`;
    this.#pool = new pg.Pool({ connectionString: options.connectionString, max: options.maxConnections ?? 4 });
    // An idle client that errors (the server restarted) must not take the process down.
    this.#pool.on('error', () => undefined);
    this.#timer = setInterval(() => void this.sweep().catch(() => undefined), options.sweepIntervalMs ?? SWEEP_INTERVAL_MS).unref();
  }

  /** Creates the table on first use (idempotent, under an advisory lock like the graph tables). */
  #migrated(): Promise<void> {
    return (this.#ready ??= (async () => {
      const client = await this.#pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`toolgraph-state-migrate:${this.#schema}`]);
        await client.query(`
          CREATE SCHEMA IF NOT EXISTS "${this.#schema}";
          CREATE TABLE IF NOT EXISTS ${this.#table} (
            space       text         NOT NULL,
            key         text         NOT NULL,
            value       jsonb        NOT NULL,
            expires_at  timestamptz  NOT NULL,
            PRIMARY KEY (space, key)
          );
          CREATE INDEX IF NOT EXISTS toolgraph_state_expiry ON ${this.#table} (expires_at);`);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        this.#ready = undefined;
        throw error;
      } finally {
        client.release();
      }
    })());
  }

  async #query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    await this.#migrated();
    return this.#pool.query<R>(text, values);
  }

  async get<T>(space: string, key: string): Promise<T | undefined> {
    checkEntry(space, key);
    const { rows } = await this.#query<{ value: T }>(`SELECT value FROM ${this.#table} WHERE space = $1 AND key = $2 AND expires_at > now()`, [space, key]);
    return rows[0]?.value;
  }

  async set(space: string, key: string, value: unknown, ttlMs: number): Promise<void> {
    checkEntry(space, key, ttlMs);
    await this.#query(
      `INSERT INTO ${this.#table} (space, key, value, expires_at) VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')
       ON CONFLICT (space, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
      [space, key, JSON.stringify(value), ttlMs]);
  }

  async add(space: string, key: string, value: unknown, ttlMs: number): Promise<boolean> {
    checkEntry(space, key, ttlMs);
    const { rowCount } = await this.#query(
      `INSERT INTO ${this.#table} AS s (space, key, value, expires_at) VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')
       ON CONFLICT (space, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at WHERE s.expires_at <= now()`,
      [space, key, JSON.stringify(value), ttlMs]);
    return rowCount === 1;
  }

  /** One UPDATE: jsonb equality compares values, not their spelling, so the check is exact. */
  async swap(space: string, key: string, expected: unknown, value: unknown, ttlMs: number): Promise<boolean> {
    checkEntry(space, key, ttlMs);
    const { rowCount } = await this.#query(
      `UPDATE ${this.#table} SET value = $3, expires_at = now() + $4 * interval '1 millisecond'
       WHERE space = $1 AND key = $2 AND expires_at > now() AND value = $5::jsonb`,
      [space, key, JSON.stringify(value), ttlMs, JSON.stringify(expected)]);
    return rowCount === 1;
  }

  async take<T>(space: string, key: string): Promise<T | undefined> {
    checkEntry(space, key);
    const { rows } = await this.#query<{ value: T; live: boolean }>(
      `DELETE FROM ${this.#table} WHERE space = $1 AND key = $2 RETURNING value, expires_at > now() AS live`, [space, key]);
    const row = rows[0];
    return row?.live ? row.value : undefined;
  }

  async delete(space: string, key: string): Promise<void> {
    checkEntry(space, key);
    await this.#query(`DELETE FROM ${this.#table} WHERE space = $1 AND key = $2`, [space, key]);
  }

  async count(space: string): Promise<number> {
    checkEntry(space, 'count');
    const { rows } = await this.#query<{ n: string }>(`SELECT count(*) AS n FROM ${this.#table} WHERE space = $1 AND expires_at > now()`, [space]);
    return Number(rows[0]?.n ?? 0);
  }

  async sweep(): Promise<number> {
    const { rowCount } = await this.#query(`DELETE FROM ${this.#table} WHERE expires_at <= now()`, []);
    return rowCount ?? 0;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#pool.end();
  }
}

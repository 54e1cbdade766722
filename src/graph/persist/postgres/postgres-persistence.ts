import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { ToolgraphError, isToolgraphError } from '../../../errors/index.ts';
import { silentLogger, type Logger } from '../../../log/index.ts';
import type { CommittedBatch } from '../../engine/index.ts';
import type { GraphSnapshot, LoadedState, LogRecord, PersistenceAdapter } from '../../engine/index.ts';
import { migratePostgres, postgresNames, type PostgresNames } from './postgres-schema.ts';
import { RecordFollower, type GraphCursor } from './record-follower.ts';

export interface PostgresPersistenceOptions {
  /** A postgres:// URL (DATABASE_URL). */
  readonly connectionString: string;
  /** Schema holding the tables; tests use one per run. Default `public`. */
  readonly schema?: string;
  readonly logger?: Logger;
  /** Pool size. Default 10. */
  readonly maxConnections?: number;
  /** Names this instance in the rows it writes; random by default. */
  readonly instanceId?: string;
  /** Followers also look for missed changes this often (a NOTIFY lost to a crash). Default 5000 ms; 0 turns it off. */
  readonly pollIntervalMs?: number;
  /**
   * At most one NOTIFY per this many ms; the first after a quiet spell goes at once, and graphs
   * written in between are named together in the next. Default 5 ms.
   */
  readonly notifyEveryMs?: number;
}

const PG_UNDEFINED_TABLE = '42P01';
const PG_UNIQUE_VIOLATION = '23505';

/**
 * The scale-out persistence adapter: every record is a row, committed before `append` resolves.
 * Batches are keyed by (graph, generation, version), so two instances committing the same version
 * cannot both succeed: the loser inserts nothing and gets TG_VERSION_CONFLICT. `generation` counts
 * the incarnations of a graph name, so a dropped and re-created graph starts over at version 1.
 * Every write NOTIFYs the graph name; followers read the rows after their cursor.
 */
export class PostgresPersistence implements PersistenceAdapter {
  readonly kind = 'postgres';
  readonly instanceId: string;
  readonly names: PostgresNames;
  readonly #pool: pg.Pool;
  readonly #connection: pg.ClientConfig;
  readonly #logger: Logger;
  readonly #cursors = new Map<string, GraphCursor>();
  readonly #followers = new Set<RecordFollower>();
  readonly #pendingNotes = new Set<string>();
  #notifier: Promise<void> | undefined;
  #notifyClient: Promise<pg.Client> | undefined;
  #notifyClosed = false;
  /** Ends the throttle's wait early, on close. */
  #wakeNotifier: (() => void) | undefined;
  #lastNotifyAt = Number.NEGATIVE_INFINITY;
  readonly #notifyEveryMs: number;
  readonly #pollIntervalMs: number;
  #ready: Promise<void> | undefined;
  #closed = false;

  constructor(options: PostgresPersistenceOptions) {
    this.names = postgresNames(options.schema ?? 'public');
    this.instanceId = options.instanceId ?? randomUUID();
    this.#logger = options.logger ?? silentLogger();
    this.#pollIntervalMs = options.pollIntervalMs ?? 5_000;
    this.#notifyEveryMs = options.notifyEveryMs ?? 5;
    this.#connection = { connectionString: options.connectionString, application_name: 'toolgraph' };
    this.#pool = new pg.Pool({ ...this.#connection, max: options.maxConnections ?? 10 });
    // An idle pooled connection that dies must not take the process with it; the next query reconnects.
    this.#pool.on('error', (error) => this.#logger.warn({ err: error }, 'an idle PostgreSQL connection failed'));
  }

  async load(): Promise<LoadedState> {
    this.#checkOpen();
    await this.#migrated();
    const client = await this.#connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const { graphs, batches, snapshots } = this.names;
      const live = await client.query<{ name: string; generation: string; seq: string; created_at: string }>(
        `SELECT name, generation, seq, created_at FROM ${graphs} WHERE dropped_at IS NULL`);
      const dropped = await client.query<{ name: string; generation: string }>(
        `SELECT name, max(generation) AS generation FROM ${graphs} WHERE dropped_at IS NOT NULL GROUP BY name`);
      const snaps = await client.query<{ graph: string; version: string; body: GraphSnapshot }>(
        `SELECT s.graph, s.version, s.body FROM ${snapshots} s
           JOIN ${graphs} g ON g.name = s.graph AND g.generation = s.generation AND g.dropped_at IS NULL
          ORDER BY s.graph`);
      const rows = await client.query<{ graph: string; version: string; seq: string; mutations: CommittedBatch['mutations']; committed_at: string }>(
        `SELECT b.graph, b.version, b.seq, b.mutations, b.committed_at FROM ${batches} b
           JOIN ${graphs} g ON g.name = b.graph AND g.generation = b.generation AND g.dropped_at IS NULL
           LEFT JOIN ${snapshots} s ON s.graph = b.graph AND s.generation = b.generation
          WHERE b.version > COALESCE(s.version, 0)
          ORDER BY b.seq`);
      await client.query('COMMIT');

      const snapshotVersion = new Map(snaps.rows.map((s) => [s.graph, Number(s.version)]));
      const ordered: { seq: number; record: LogRecord }[] = [];
      for (const g of live.rows) {
        if (!snapshotVersion.has(g.name)) {
          ordered.push({ seq: Number(g.seq), record: { kind: 'createGraph', graph: g.name, version: 0, at: g.created_at } });
        }
      }
      for (const b of rows.rows) {
        ordered.push({ seq: Number(b.seq), record: { kind: 'batch', batch: { graph: b.graph, version: Number(b.version), mutations: b.mutations, committedAt: b.committed_at } } });
      }
      ordered.sort((a, b) => a.seq - b.seq);

      this.#cursors.clear();
      for (const d of dropped.rows) this.#cursors.set(d.name, { generation: Number(d.generation), version: 0, live: false });
      for (const g of live.rows) this.#cursors.set(g.name, { generation: Number(g.generation), version: snapshotVersion.get(g.name) ?? 0, live: true });
      for (const { record } of ordered) {
        if (record.kind === 'batch') this.#cursors.get(record.batch.graph)!.version = record.batch.version;
      }
      return { snapshots: snaps.rows.map((s) => s.body), records: ordered.map((o) => o.record) };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw storageFailed('Could not load the graphs from PostgreSQL', error);
    } finally {
      client.release();
    }
  }

  async append(record: LogRecord): Promise<void> {
    this.#checkOpen();
    await this.#migrated();
    switch (record.kind) {
      case 'createGraph': return this.#createGraph(record.graph, record.at);
      case 'dropGraph': return this.#dropGraph(record.graph, record.at);
      case 'batch': return this.#appendBatch(record.batch);
    }
  }

  async writeSnapshot(snapshot: GraphSnapshot): Promise<void> {
    this.#checkOpen();
    await this.#migrated();
    const { graphs, batches, snapshots } = this.names;
    // Batches up to the previous snapshot are pruned, not those up to this one, so an instance that
    // lags by less than one snapshot interval can still catch up from rows.
    await this.#query(
      `WITH live AS (
         SELECT generation FROM ${graphs} WHERE name = $1 AND dropped_at IS NULL FOR SHARE
       ), previous AS (
         SELECT s.version FROM ${snapshots} s JOIN live ON s.graph = $1 AND s.generation = live.generation
       ), stored AS (
         INSERT INTO ${snapshots} (graph, generation, version, body, written_at)
         SELECT $1, live.generation, $2::bigint, $3::json, $4 FROM live
          WHERE $2::bigint = 0 OR EXISTS (SELECT 1 FROM ${batches} b WHERE b.graph = $1 AND b.generation = live.generation AND b.version = $2::bigint)
         ON CONFLICT (graph, generation) DO UPDATE SET version = EXCLUDED.version, body = EXCLUDED.body, written_at = EXCLUDED.written_at
          WHERE ${snapshots}.version < EXCLUDED.version
         RETURNING generation
       ), pruned AS (
         DELETE FROM ${batches} b USING stored, previous
          WHERE b.graph = $1 AND b.generation = stored.generation AND b.version <= previous.version
       )
       SELECT count(*)::int AS stored FROM stored`,
      [snapshot.graph, snapshot.version, JSON.stringify(snapshot), snapshot.at], 'Could not store a graph snapshot in PostgreSQL');
  }

  async follow(onRecord: (record: LogRecord) => void): Promise<() => Promise<void>> {
    this.#checkOpen();
    await this.#migrated();
    const follower = new RecordFollower({
      pool: this.#pool, connection: this.#connection, names: this.names, instanceId: this.instanceId,
      cursors: this.#cursors, onRecord, logger: this.#logger, pollIntervalMs: this.#pollIntervalMs,
    });
    this.#followers.add(follower);
    try {
      await follower.start();
    } catch (error) {
      this.#followers.delete(follower);
      await follower.stop();
      throw storageFailed('Could not listen for changes on PostgreSQL', error);
    }
    return async () => {
      this.#followers.delete(follower);
      await follower.stop();
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#followers].map((f) => f.stop()));
    this.#followers.clear();
    await this.#pool.end().catch((error: unknown) => this.#logger.warn({ err: error }, 'closing the PostgreSQL pool failed'));
    // Appends that were in flight have finished: send their notifications now, then close.
    this.#wakeNotifier?.();
    await this.#notifier;
    this.#notifyClosed = true;
    await this.#dropNotifyConnection(this.#notifyClient);
  }

  // ---- records ----------------------------------------------------------------------------------

  async #createGraph(name: string, at: string): Promise<void> {
    const { graphs } = this.names;
    const { rows } = await this.#query<{ generation: string }>(
      `WITH created AS (
         INSERT INTO ${graphs} (name, generation, created_at, created_by)
         SELECT $1, COALESCE(max(generation), 0) + 1, $2, $3 FROM ${graphs} WHERE name = $1
         ON CONFLICT DO NOTHING
         RETURNING generation
       )
       SELECT generation FROM created`,
      [name, at, this.instanceId], `Could not store the creation of graph "${name}"`);
    if (rows.length === 0) throw new ToolgraphError('TG_GRAPH_EXISTS', `Graph "${name}" already exists.`);
    this.#notify(name);
    const generation = Number(rows[0]!.generation);
    const cursor = this.#cursors.get(name);
    if (!cursor || cursor.generation < generation) this.#cursors.set(name, { generation, version: 0, live: true });
  }

  async #dropGraph(name: string, at: string): Promise<void> {
    const { graphs, batches, snapshots } = this.names;
    // Appends lock nothing but their own row, so a drop waits for the appends in flight instead: the
    // table lock conflicts with every insert's ROW EXCLUSIVE, which an append takes before its snapshot.
    // An append that started first has committed by the time the DELETE's snapshot is taken, so the
    // DELETE sees (and removes) its batch; one that starts later waits, then finds no live graph.
    // Drops are rare, and the lock lasts one short transaction.
    const client = await this.#connect();
    let rows: { generation: string }[];
    try {
      await client.query('BEGIN');
      await client.query(`LOCK TABLE ${batches} IN SHARE ROW EXCLUSIVE MODE`);
      ({ rows } = await client.query<{ generation: string }>(
        `WITH dropped AS (
           UPDATE ${graphs} SET dropped_at = $2, dropped_by = $3 WHERE name = $1 AND dropped_at IS NULL
           RETURNING generation
         ), batches_gone AS (
           DELETE FROM ${batches} b USING dropped WHERE b.graph = $1 AND b.generation = dropped.generation
         ), snapshots_gone AS (
           DELETE FROM ${snapshots} s USING dropped WHERE s.graph = $1 AND s.generation = dropped.generation
         )
         SELECT generation FROM dropped`,
        [name, at, this.instanceId]));
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      if ((error as { code?: string }).code === PG_UNDEFINED_TABLE) this.#ready = undefined;
      throw storageFailed(`Could not store the drop of graph "${name}"`, error);
    } finally {
      client.release();
    }
    if (rows.length === 0) throw new ToolgraphError('TG_GRAPH_NOT_FOUND', `Graph "${name}" does not exist.`);
    this.#notify(name);
    const cursor = this.#cursors.get(name);
    if (cursor && cursor.generation === Number(rows[0]!.generation)) cursor.live = false;
  }

  /**
   * One statement, one round trip, no lock beyond the inserted row. It stores the batch only if the
   * graph has a live incarnation whose newest batch is exactly `version - 1` (0: none yet). That one
   * index probe refuses a version already stored or passed (and one behind a snapshot: the newest
   * batch is never pruned), and a stale writer's version in a re-created graph, which would leave a
   * gap. Two writers of the same version both pass it; the primary key makes the second wait for the
   * first and fail with a unique violation if it committed. Racing drops: see #dropGraph.
   * Named, so each connection parses and plans it once: planning it cost more than the insert.
   */
  async #appendBatch(batch: CommittedBatch): Promise<void> {
    const { graphs, batches } = this.names;
    let rows: { generation: string | null; head: string | null; inserted: number }[];
    try {
      ({ rows } = await this.#pool.query<{ generation: string | null; head: string | null; inserted: number }>({
        name: this.#statementName('append_batch'),
        text: `WITH live AS (
                 SELECT g.generation,
                        COALESCE((SELECT b.version FROM ${batches} b WHERE b.graph = $1 AND b.generation = g.generation
                                   ORDER BY b.version DESC LIMIT 1), 0) AS head
                   FROM ${graphs} g WHERE g.name = $1 AND g.dropped_at IS NULL
               ), inserted AS (
                 INSERT INTO ${batches} (graph, generation, version, mutations, committed_at, origin)
                 SELECT $1, generation, $2::bigint, $3::json, $4, $5 FROM live WHERE head = $2::bigint - 1
                 RETURNING 1
               )
               SELECT live.generation, live.head, (SELECT count(*) FROM inserted)::int AS inserted
                 FROM (SELECT 1) AS one LEFT JOIN live ON true`,
        values: [batch.graph, batch.version, JSON.stringify(batch.mutations), batch.committedAt, this.instanceId],
      }));
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === PG_UNIQUE_VIOLATION) throw versionConflict(batch.graph, batch.version, undefined);
      if (code === PG_UNDEFINED_TABLE) this.#ready = undefined;
      throw storageFailed(`Could not store version ${batch.version} of graph "${batch.graph}"`, error);
    }
    const row = rows[0]!;
    if (row.generation === null) throw new ToolgraphError('TG_GRAPH_NOT_FOUND', `Graph "${batch.graph}" does not exist.`);
    if (row.inserted === 0) throw versionConflict(batch.graph, batch.version, Number(row.head));
    this.#notify(batch.graph);
    const cursor = this.#cursors.get(batch.graph);
    if (cursor && cursor.live && cursor.generation === Number(row.generation) && cursor.version === batch.version - 1) cursor.version = batch.version;
  }

  // ---- plumbing ----------------------------------------------------------------------------------

  /**
   * Tells followers a graph changed. Not inside the write's transaction: a transaction that NOTIFYs
   * holds a database-wide lock through its commit (WAL flush included), which would serialise every
   * commit and defeat PostgreSQL's group commit. A NOTIFY costs the server about as much as the insert
   * itself, so they are throttled (at most one per `notifyEveryMs`, the first at once) and go out on a
   * connection of their own, never holding up an append or taking its pooled connection. Names
   * written meanwhile go out together in the next. If this process dies between a commit and its
   * NOTIFY, followers' periodic poll finds the change.
   */
  #notify(graph: string): void {
    this.#pendingNotes.add(graph);
    this.#notifier ??= this.#sendNotes().finally(() => {
      this.#notifier = undefined;
    });
  }

  async #sendNotes(): Promise<void> {
    while (this.#pendingNotes.size > 0) {
      const wait = this.#lastNotifyAt + this.#notifyEveryMs - performance.now();
      if (wait > 0 && !this.#closed) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          this.#wakeNotifier = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.#wakeNotifier = undefined;
      }
      this.#lastNotifyAt = performance.now();
      const notes = [...this.#pendingNotes].map((g) => JSON.stringify({ g, o: this.instanceId }));
      this.#pendingNotes.clear();
      try {
        const client = await this.#notifyConnection();
        // A notification needs no durability: an asynchronous commit spares it a WAL flush.
        await client.query({
          name: 'tg_notify',
          text: `SELECT pg_notify($1, note) FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async, unnest($2::text[]) AS note`,
          values: [this.names.channel, notes],
        });
      } catch (error) {
        void this.#dropNotifyConnection(this.#notifyClient);
        this.#logger.warn({ err: error }, 'could not NOTIFY other instances; they will find the change when they next poll');
      }
    }
  }

  #notifyConnection(): Promise<pg.Client> {
    if (this.#notifyClosed) return Promise.reject(new Error('the adapter is closed'));
    if (!this.#notifyClient) {
      // Named for its instance, so an operator can tell the connections apart.
      const client = new pg.Client({ ...this.#connection, application_name: `toolgraph notify ${this.instanceId}`.slice(0, 63) });
      const connecting = client.connect().then(() => client, (error: unknown) => {
        client.end().catch(() => undefined);
        throw error;
      });
      // A lost connection is replaced on the next NOTIFY; until then followers' polls cover for it.
      client.on('error', (error) => {
        this.#logger.warn({ err: error }, 'the PostgreSQL NOTIFY connection failed');
        void this.#dropNotifyConnection(connecting);
      });
      this.#notifyClient = connecting;
    }
    return this.#notifyClient;
  }

  #dropNotifyConnection(which: Promise<pg.Client> | undefined): Promise<void> {
    if (which === undefined) return Promise.resolve();
    if (this.#notifyClient === which) this.#notifyClient = undefined;
    return which.then((client) => client.end()).catch(() => undefined);
  }

  #migrated(): Promise<void> {
    this.#ready ??= migratePostgres(this.#pool, this.names).catch((error: unknown) => {
      this.#ready = undefined;
      throw storageFailed(`Could not create the toolgraph tables in PostgreSQL schema "${this.names.schema}"`, error);
    });
    return this.#ready;
  }

  async #connect(): Promise<pg.PoolClient> {
    try {
      return await this.#pool.connect();
    } catch (error) {
      throw storageFailed('Could not connect to PostgreSQL', error);
    }
  }

  async #query<R extends pg.QueryResultRow>(text: string, values: unknown[], failure: string): Promise<pg.QueryResult<R>> {
    try {
      return await this.#pool.query<R>(text, values);
    } catch (error) {
      if ((error as { code?: string }).code === PG_UNDEFINED_TABLE) this.#ready = undefined;
      throw storageFailed(failure, error);
    }
  }

  /** Prepared statement names are per connection; the schema keeps two adapters' texts apart. */
  #statementName(statement: string): string {
    return `tg_${statement}_${this.names.schema}`;
  }

  #checkOpen(): void {
    if (this.#closed) throw new ToolgraphError('TG_STORAGE_FAILED', 'The PostgreSQL persistence adapter is closed.');
  }
}

function versionConflict(graph: string, version: number, head: number | undefined): ToolgraphError {
  const stored = head === undefined || head >= version
    ? `already has version ${version}: another instance committed it first`
    : `is at version ${head} in storage, not ${version - 1}: it was dropped and created again`;
  return new ToolgraphError('TG_VERSION_CONFLICT', `Graph "${graph}" ${stored}. Nothing was stored.`);
}

function storageFailed(message: string, cause: unknown): ToolgraphError {
  if (isToolgraphError(cause)) return cause;
  const reason = cause instanceof Error && cause.message ? `: ${cause.message}` : '';
  return new ToolgraphError('TG_STORAGE_FAILED', `${message}${reason}.`, { cause });
}

export function createPostgresPersistence(options: PostgresPersistenceOptions): PostgresPersistence {
  return new PostgresPersistence(options);
}

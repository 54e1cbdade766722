import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { ToolgraphError, isToolgraphError } from '../../../errors/index.ts';
import { silentLogger, type Logger } from '../../../log/index.ts';
import type { CommittedBatch } from '../../engine/index.ts';
import { snapshotStream, type GraphSnapshot, type LoadedState, type LogRecord, type PersistenceAdapter, type SnapshotChunk, type SnapshotHeader, type SnapshotStream } from '../../engine/index.ts';
import { postgresFailure } from './postgres-failure.ts';
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
  /** The client whose REPEATABLE READ transaction `load` left open for its snapshots' chunks. */
  #loadClient: pg.PoolClient | undefined;

  constructor(options: PostgresPersistenceOptions) {
    this.names = postgresNames(options.schema ?? 'public');
    this.instanceId = options.instanceId ?? randomUUID();
    this.#logger = options.logger ?? silentLogger();
    this.#pollIntervalMs = options.pollIntervalMs ?? 5_000;
    this.#notifyEveryMs = options.notifyEveryMs ?? 5;
    this.#connection = { connectionString: options.connectionString, application_name: 'toolgraph' };
    this.#pool = new pg.Pool({ ...this.#connection, max: options.maxConnections ?? 10 });
    // An idle pooled connection that dies must not take the process with it; the next query reconnects.
    // Code and message only: pg-pool hangs the whole Client (its cancel key among the rest) on this error.
    this.#pool.on('error', (error) => this.#logger.warn({ err: postgresFailure(error) }, 'an idle PostgreSQL connection failed'));
  }

  /**
   * Reads the live graphs in one REPEATABLE READ transaction. A chunked snapshot's chunks are fetched
   * a few at a time as the engine reads them, in the same transaction, which stays open until the
   * returned `release` (so a snapshot written meanwhile by another instance changes nothing read).
   */
  async load(): Promise<LoadedState> {
    this.#checkOpen();
    await this.#migrated();
    const client = await this.#connect();
    let keepOpen = false;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const { graphs, batches, snapshots } = this.names;
      const live = await client.query<{ name: string; generation: string; seq: string; created_at: string }>(
        `SELECT name, generation, seq, created_at FROM ${graphs} WHERE dropped_at IS NULL`);
      const dropped = await client.query<{ name: string; generation: string }>(
        `SELECT name, max(generation) AS generation FROM ${graphs} WHERE dropped_at IS NOT NULL GROUP BY name`);
      const snaps = await client.query<{ graph: string; generation: string; version: string; body: GraphSnapshot | SnapshotHeader; chunk_set: string | null; chunks: number | null }>(
        `SELECT s.graph, s.generation, s.version, s.body, s.chunk_set, s.chunks FROM ${snapshots} s
           JOIN ${graphs} g ON g.name = s.graph AND g.generation = s.generation AND g.dropped_at IS NULL
          ORDER BY s.graph`);
      const rows = await client.query<{ graph: string; version: string; seq: string; mutations: CommittedBatch['mutations']; committed_at: string }>(
        `SELECT b.graph, b.version, b.seq, b.mutations, b.committed_at FROM ${batches} b
           JOIN ${graphs} g ON g.name = b.graph AND g.generation = b.generation AND g.dropped_at IS NULL
           LEFT JOIN ${snapshots} s ON s.graph = b.graph AND s.generation = b.generation
          WHERE b.version > COALESCE(s.version, 0)
          ORDER BY b.seq`);
      keepOpen = snaps.rows.some((s) => s.chunk_set !== null);
      if (!keepOpen) await client.query('COMMIT');

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
      const streams = snaps.rows.map((s): SnapshotStream => s.chunk_set === null
        ? snapshotStream(s.body as GraphSnapshot)
        : { header: s.body as SnapshotHeader, chunks: () => this.#readChunks(client, s.graph, Number(s.generation), s.chunk_set!, s.chunks ?? 0) });
      if (!keepOpen) return { snapshots: streams, records: ordered.map((o) => o.record) };
      this.#loadClient = client;
      return { snapshots: streams, records: ordered.map((o) => o.record), release: () => this.#releaseLoad(client) };
    } catch (error) {
      keepOpen = false;
      await client.query('ROLLBACK').catch(() => undefined);
      throw storageFailed('Could not load the graphs from PostgreSQL', error);
    } finally {
      if (!keepOpen) client.release();
    }
  }

  /** A snapshot's chunks in order, a few rows per query, inside load's transaction. */
  async *#readChunks(client: pg.PoolClient, graph: string, generation: number, chunkSet: string, count: number): AsyncGenerator<SnapshotChunk> {
    const { snapshotChunks } = this.names;
    let next = 0;
    while (next < count) {
      let rows: { no: number; body: SnapshotChunk }[];
      try {
        ({ rows } = await client.query<{ no: number; body: SnapshotChunk }>(
          `SELECT no, body FROM ${snapshotChunks} WHERE graph = $1 AND generation = $2 AND chunk_set = $3 AND no >= $4 ORDER BY no LIMIT 16`,
          [graph, generation, chunkSet, next]));
      } catch (error) {
        throw storageFailed(`Could not read the snapshot of graph "${graph}" from PostgreSQL`, error);
      }
      if (rows.length === 0 || rows[0]!.no !== next) break;
      for (const row of rows) {
        if (row.no !== next) break;
        next++;
        yield row.body;
      }
    }
    if (next !== count) {
      throw new ToolgraphError('TG_STORAGE_CORRUPT', `The snapshot of graph "${graph}" in PostgreSQL should have ${count} chunks, but chunk ${next} is missing.`);
    }
  }

  async #releaseLoad(client: pg.PoolClient): Promise<void> {
    if (this.#loadClient !== client) return;
    this.#loadClient = undefined;
    await client.query('COMMIT').catch(() => undefined);
    client.release();
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

  /**
   * Inserts the snapshot's chunks one row each as they are produced (never the whole graph in one
   * value), under a fresh chunk-set id, then publishes it in one statement: the snapshot row (its
   * header and chunk set) is upserted only if it is newer, older chunk sets of the incarnation are
   * deleted, and batches up to the previous snapshot are pruned. A snapshot that loses (older, or the
   * graph was dropped) deletes its chunks; one cut short by a crash leaves chunks that the next
   * published snapshot deletes.
   */
  async writeSnapshot(stream: SnapshotStream): Promise<void> {
    this.#checkOpen();
    await this.#migrated();
    const { graphs, batches, snapshots, snapshotChunks } = this.names;
    const { header } = stream;
    const { rows: live } = await this.#query<{ generation: string; stored: string | null }>(
      `SELECT g.generation, s.version AS stored FROM ${graphs} g
         LEFT JOIN ${snapshots} s ON s.graph = g.name AND s.generation = g.generation
        WHERE g.name = $1 AND g.dropped_at IS NULL`,
      [header.graph], 'Could not store a graph snapshot in PostgreSQL');
    const generation = live[0]?.generation;
    if (generation === undefined || (live[0]!.stored !== null && Number(live[0]!.stored) >= header.version)) return;
    const chunkSet = randomUUID();
    let count = 0;
    let published = false;
    try {
      for await (const chunk of stream.chunks()) {
        await this.#query(
          `INSERT INTO ${snapshotChunks} (graph, generation, chunk_set, version, no, body) VALUES ($1, $2, $3, $4, $5, $6::json)`,
          [header.graph, generation, chunkSet, header.version, count, JSON.stringify(chunk)], 'Could not store a graph snapshot in PostgreSQL');
        count++;
      }
      // Batches up to the previous snapshot are pruned, not those up to this one, so an instance that
      // lags by less than one snapshot interval can still catch up from rows.
      const { rows } = await this.#query<{ stored: number }>(
        `WITH live AS (
           SELECT generation FROM ${graphs} WHERE name = $1 AND dropped_at IS NULL AND generation = $6 FOR SHARE
         ), previous AS (
           SELECT s.version FROM ${snapshots} s JOIN live ON s.graph = $1 AND s.generation = live.generation
         ), stored AS (
           INSERT INTO ${snapshots} (graph, generation, version, body, written_at, chunk_set, chunks)
           SELECT $1, live.generation, $2::bigint, $3::json, $4, $5, $7 FROM live
            WHERE $2::bigint = 0 OR EXISTS (SELECT 1 FROM ${batches} b WHERE b.graph = $1 AND b.generation = live.generation AND b.version = $2::bigint)
           ON CONFLICT (graph, generation) DO UPDATE
             SET version = EXCLUDED.version, body = EXCLUDED.body, written_at = EXCLUDED.written_at, chunk_set = EXCLUDED.chunk_set, chunks = EXCLUDED.chunks
            WHERE ${snapshots}.version < EXCLUDED.version
           RETURNING generation
         ), pruned AS (
           DELETE FROM ${batches} b USING stored, previous
            WHERE b.graph = $1 AND b.generation = stored.generation AND b.version <= previous.version
         ), superseded AS (
           DELETE FROM ${snapshotChunks} c USING stored
            WHERE c.graph = $1 AND c.generation = stored.generation AND c.chunk_set <> $5 AND c.version < $2::bigint
         )
         SELECT count(*)::int AS stored FROM stored`,
        [header.graph, header.version, JSON.stringify(header), header.at, chunkSet, generation, count], 'Could not store a graph snapshot in PostgreSQL');
      published = rows[0]!.stored > 0;
    } finally {
      if (!published) {
        await this.#query(`DELETE FROM ${snapshotChunks} WHERE graph = $1 AND generation = $2 AND chunk_set = $3`,
          [header.graph, generation, chunkSet], 'Could not remove an unused graph snapshot from PostgreSQL')
          .catch((error: unknown) => this.#logger.warn({ err: postgresFailure(error) }, 'could not remove the chunks of an unused snapshot; the next snapshot removes them'));
      }
    }
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
    if (this.#loadClient) await this.#releaseLoad(this.#loadClient);
    await this.#pool.end().catch((error: unknown) => this.#logger.warn({ err: postgresFailure(error) }, 'closing the PostgreSQL pool failed'));
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
    const { graphs, batches, snapshots, snapshotChunks } = this.names;
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
         ), chunks_gone AS (
           DELETE FROM ${snapshotChunks} c USING dropped WHERE c.graph = $1 AND c.generation = dropped.generation
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
    if (cursor?.live && cursor.generation === Number(row.generation) && cursor.version === batch.version - 1) cursor.version = batch.version;
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
        this.#logger.warn({ err: postgresFailure(error) }, 'could not NOTIFY other instances; they will find the change when they next poll');
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
        this.#logger.warn({ err: postgresFailure(error) }, 'the PostgreSQL NOTIFY connection failed');
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

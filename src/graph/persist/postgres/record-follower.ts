import pg from 'pg';
import type { Logger } from '../../../log/index.ts';
import type { LogRecord } from '../../engine/index.ts';
import { postgresFailure } from './postgres-failure.ts';
import type { PostgresNames } from './postgres-schema.ts';

/** How far this instance has seen a graph name: its incarnation and last version. */
export interface GraphCursor {
  generation: number;
  version: number;
  live: boolean;
}

export interface FollowerOptions {
  readonly pool: pg.Pool;
  readonly connection: pg.ClientConfig;
  readonly names: PostgresNames;
  readonly instanceId: string;
  /** Shared with the adapter, which moves them past its own appends. */
  readonly cursors: Map<string, GraphCursor>;
  readonly onRecord: (record: LogRecord) => void;
  readonly logger: Logger;
  /** Look for changes whose NOTIFY was lost this often; 0 never. */
  readonly pollIntervalMs: number;
}

const MAX_BACKOFF_MS = 5_000;

/**
 * Follows the records other instances commit. A NOTIFY only names the graph (payloads are capped at
 * 8000 bytes, and may arrive in any order); the follower then reads what lies after its cursor, in
 * version order, and delivers it. Graphs are synced one at a time, so no record is delivered twice;
 * a gap stops delivery for that graph instead of skipping. After a lost connection it listens again
 * and catches up on every graph.
 */
export class RecordFollower {
  readonly #o: FollowerOptions;
  readonly #dirty = new Set<string>();
  #fullSync = true;
  #running: Promise<void> | undefined;
  #client: pg.Client | undefined;
  #stopped = false;
  #backoff = 100;
  #retryTimer: NodeJS.Timeout | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #pollTimer: NodeJS.Timeout | undefined;
  readonly #gapsReported = new Set<string>();

  constructor(options: FollowerOptions) {
    this.#o = options;
  }

  async start(): Promise<void> {
    await this.#listen();
    this.#kick();
    await this.#running;
    if (this.#o.pollIntervalMs > 0) {
      this.#pollTimer = setInterval(() => {
        this.#fullSync = true;
        this.#kick();
      }, this.#o.pollIntervalMs);
      this.#pollTimer.unref();
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retryTimer);
    clearTimeout(this.#reconnectTimer);
    clearInterval(this.#pollTimer);
    const client = this.#client;
    this.#client = undefined;
    if (client) {
      await client.query(`UNLISTEN "${this.#o.names.channel}"`).catch(() => undefined);
      await client.end().catch(() => undefined);
    }
    await this.#running;
  }

  async #listen(): Promise<void> {
    const client = new pg.Client(this.#o.connection);
    client.on('notification', (message) => this.#onNotification(message.payload));
    client.on('error', (error) => this.#onLost(client, error));
    client.on('end', () => this.#onLost(client, undefined));
    await client.connect();
    await client.query(`LISTEN "${this.#o.names.channel}"`);
    if (this.#stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    this.#backoff = 100;
  }

  #onNotification(payload: string | undefined): void {
    let note: { g?: unknown; o?: unknown };
    try {
      note = JSON.parse(payload ?? '') as typeof note;
    } catch {
      return;
    }
    // Our own writes already moved the cursor forward.
    if (typeof note.g !== 'string' || note.o === this.#o.instanceId) return;
    this.#dirty.add(note.g);
    this.#kick();
  }

  #onLost(client: pg.Client, error: Error | undefined): void {
    if (this.#client !== client || this.#stopped) return;
    this.#client = undefined;
    this.#o.logger.warn(error === undefined ? {} : { err: postgresFailure(error) }, 'lost the PostgreSQL LISTEN connection; reconnecting and catching up');
    client.end().catch(() => undefined);
    this.#reconnectLater();
  }

  async #reconnect(): Promise<void> {
    try {
      await this.#listen();
      this.#fullSync = true;
      this.#kick();
    } catch (error) {
      this.#o.logger.warn({ err: postgresFailure(error) }, 'could not listen on PostgreSQL; retrying');
      this.#reconnectLater();
    }
  }

  #reconnectLater(): void {
    if (this.#stopped) return;
    const delay = this.#backoff;
    this.#backoff = Math.min(this.#backoff * 2, MAX_BACKOFF_MS);
    clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      void this.#reconnect();
    }, delay);
  }

  #kick(): void {
    if (this.#running || this.#stopped) return;
    this.#running = this.#drain().finally(() => {
      this.#running = undefined;
      if (!this.#stopped && (this.#fullSync || this.#dirty.size > 0) && this.#retryTimer === undefined) this.#kick();
    });
  }

  async #drain(): Promise<void> {
    while (!this.#stopped && (this.#fullSync || this.#dirty.size > 0)) {
      try {
        if (this.#fullSync) {
          this.#fullSync = false;
          await this.#findChanged();
          continue;
        }
        const name = this.#dirty.values().next().value as string;
        this.#dirty.delete(name);
        try {
          await this.#syncGraph(name);
        } catch (error) {
          this.#dirty.add(name);
          throw error;
        }
        this.#backoff = 100;
      } catch (error) {
        if (this.#stopped) return;
        this.#o.logger.warn({ err: postgresFailure(error) }, 'catching up with PostgreSQL failed; retrying');
        this.#retryTimer = setTimeout(() => {
          this.#retryTimer = undefined;
          this.#kick();
        }, this.#backoff);
        this.#backoff = Math.min(this.#backoff * 2, MAX_BACKOFF_MS);
        return;
      }
    }
  }

  /** Marks every graph whose live incarnation or last version differs from its cursor; one query. */
  async #findChanged(): Promise<void> {
    const { graphs, batches } = this.#o.names;
    const { rows } = await this.#o.pool.query<{ name: string; generation: string; version: string }>(
      `SELECT g.name, g.generation,
              COALESCE((SELECT max(b.version) FROM ${batches} b WHERE b.graph = g.name AND b.generation = g.generation), 0) AS version
         FROM ${graphs} g WHERE g.dropped_at IS NULL`);
    const live = new Set<string>();
    for (const row of rows) {
      live.add(row.name);
      const cursor = this.#o.cursors.get(row.name);
      if (!cursor?.live || cursor.generation !== Number(row.generation) || cursor.version < Number(row.version)) this.#dirty.add(row.name);
    }
    for (const [name, cursor] of this.#o.cursors) if (cursor.live && !live.has(name)) this.#dirty.add(name);
  }

  /** Delivers everything after the cursor of one graph name, across incarnations, in order. */
  async #syncGraph(name: string): Promise<void> {
    const { pool, names, instanceId, cursors } = this.#o;
    const start = cursors.get(name) ?? { generation: 0, version: 0, live: false };
    const incarnations = await pool.query<{ generation: string; created_at: string; created_by: string; dropped_at: string | null; dropped_by: string | null }>(
      `SELECT generation, created_at, created_by, dropped_at, dropped_by FROM ${names.graphs}
        WHERE name = $1 AND generation >= $2 ORDER BY generation`, [name, start.generation]);
    for (const row of incarnations.rows) {
      if (this.#stopped) return;
      const generation = Number(row.generation);
      let cursor = cursors.get(name);
      if (cursor && generation < cursor.generation) continue;
      if (!cursor || generation > cursor.generation) {
        cursor = { generation, version: 0, live: true };
        cursors.set(name, cursor);
        if (row.created_by !== instanceId) this.#deliver({ kind: 'createGraph', graph: name, version: 0, at: row.created_at });
      }
      if (!cursor.live) continue;
      const batches = await pool.query<{ version: string; mutations: unknown; committed_at: string; origin: string }>(
        `SELECT version, mutations, committed_at, origin FROM ${names.batches}
          WHERE graph = $1 AND generation = $2 AND version > $3 ORDER BY version`, [name, generation, cursor.version]);
      for (const b of batches.rows) {
        const version = Number(b.version);
        if (version <= cursor.version) continue;
        if (version !== cursor.version + 1) {
          // Its predecessors were pruned behind a snapshot: this instance fell too far behind to follow.
          if (!this.#gapsReported.has(name)) {
            this.#gapsReported.add(name);
            this.#o.logger.error({ have: cursor.version, next: version },
              'a followed graph skipped versions that were already pruned behind a snapshot; restart this instance to reload it');
          }
          break;
        }
        cursor.version = version;
        if (b.origin !== instanceId) {
          this.#deliver({ kind: 'batch', batch: { graph: name, version, mutations: b.mutations as never, committedAt: b.committed_at } });
        }
      }
      if (row.dropped_at !== null && cursors.get(name) === cursor) {
        cursor.live = false;
        if (row.dropped_by !== instanceId) this.#deliver({ kind: 'dropGraph', graph: name, at: row.dropped_at });
      }
    }
  }

  #deliver(record: LogRecord): void {
    try {
      this.#o.onRecord(record);
    } catch (error) {
      this.#o.logger.error({ err: error }, 'a follower callback threw');
    }
  }
}

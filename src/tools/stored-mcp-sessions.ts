import { createHash, randomUUID } from 'node:crypto';
import { ToolgraphError } from '../errors/index.ts';
import type { StateStore } from '../state/index.ts';
import { McpSessionTable, type McpSessionEntry, type McpSessionLimits } from './mcp-sessions.ts';

/** The store's space and key of the session table: one record, so the caps are checked against every replica's sessions. */
const MCP_SESSION_SPACE = 'mcp-sessions';
const TABLE_KEY = 'table';
/** A session already its caller's most recently used is re-stamped at most this often (a store write per request is not needed to keep it alive). */
const TOUCH_EVERY_MS = 60_000;
/** Rounds of read-modify-swap before giving up under contention (each round only loses to another replica's success). */
const MAX_ROUNDS = 64;
/** What a refusal for contention asks the client to wait (Retry-After). */
const CONTENDED_RETRY_AFTER_SECS = 1;

/** The stored form of a caller: a digest (callers' issuer and subject stay out of the table; PostgreSQL's jsonb refuses NUL, which owners hold). */
const ownerKey = (owner: string) => createHash('sha256').update(owner).digest('base64url');

/**
 * [id, owner digest, lastUsed, client capabilities], each owner's least recently used first. The
 * capabilities are what the client declared at initialize, as far as this server acts on them
 * (SessionCapabilities), since every later request of the session runs on a fresh SDK server.
 */
type StoredRow = [string, string, number, number?];

/** What a client declared at initialize that this server acts on, as bits of a stored row. */
export interface SessionCapabilities {
  /** MCP URL-mode elicitation (`capabilities.elicitation.url`): a consent is asked as -32042. */
  readonly urlElicitation: boolean;
}

const URL_ELICITATION = 1;
const bitsOf = (c: SessionCapabilities | undefined): number => (c?.urlElicitation ? URL_ELICITATION : 0);
const capabilitiesOf = (bits: number | undefined): SessionCapabilities => ({ urlElicitation: ((bits ?? 0) & URL_ELICITATION) !== 0 });
interface StoredTable {
  readonly rows: StoredRow[];
}

/** One change of the table: what it answers, and whether the table must be stored again. */
type TableChange<R> = (table: McpSessionTable<McpSessionEntry>, now: number, stored: StoredTable | undefined) => { result: R; write: boolean };

/** A change waiting for this process's next round, with its caller's promise. */
interface PendingChange {
  readonly change: TableChange<unknown>;
  /** A new session's capability bits, kept beside its row. */
  readonly added: { readonly id: string; readonly bits: number } | undefined;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/**
 * The MCP sessions of every replica, in the shared state store: a session opened on one replica
 * is used on any other (behind a round-robin load balancer) and after a restart. What a session
 * is to this server is its id, its caller and its last use: transports are stateless per request
 * (the SDK's `sessionIdGenerator: undefined`), since the tools keep no per-session state and the
 * server sends no notifications of its own.
 *
 * The caps are McpSessionTable's, over the whole deployment: the table is one record, changed by
 * read-modify-swap (the store's compare-and-set), so two replicas admitting at once cannot both
 * take the last place. Idle sessions drop out when the record is next changed.
 *
 * A process makes one round at a time, and a round applies every change that was waiting when it
 * began, whoever asked: a caller's flood of initializes is one more entry each in the next round,
 * never a round of its own. (Each request racing its own read-modify-swap let a flood of one
 * caller lose every other caller's rounds until they ran out: one caller's 300 initializes at once
 * refused another caller's with 429 on the file store.) Rounds lose only to other replicas.
 */
export class StoredMcpSessions {
  readonly #store: StateStore;
  readonly #limits: McpSessionLimits;
  readonly #idleMs: number;
  readonly #now: () => number;
  /** Changes for the next round. */
  #pending: PendingChange[] = [];
  /** The rounds running now, until no change waits. */
  #flushing: Promise<void> | undefined;

  constructor(store: StateStore, limits: McpSessionLimits, options: { idleMs: number; now?: () => number }) {
    this.#store = store;
    this.#limits = limits;
    this.#idleMs = options.idleMs;
    this.#now = options.now ?? Date.now;
  }

  #tableOf(stored: StoredTable | undefined, now: number): McpSessionTable<McpSessionEntry> {
    const table = new McpSessionTable<McpSessionEntry>(this.#limits);
    for (const [id, owner, lastUsed] of stored?.rows ?? []) {
      if (lastUsed >= now - this.#idleMs) table.restore({ id, owner, lastUsed });
    }
    return table;
  }

  /**
   * Runs `change` on the current table in this process's next round and stores the result. Rows
   * keep their capabilities; `added` gives a new session's.
   */
  #change<R>(change: TableChange<R>, added?: { id: string; bits: number }): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#pending.push({ change, added, resolve: resolve as (result: unknown) => void, reject });
      this.#flushing ??= this.#flush();
    });
  }

  async #flush(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        const round = this.#pending;
        this.#pending = [];
        await this.#apply(round).catch((error: unknown) => {
          for (const pending of round) pending.reject(error);
        });
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  /**
   * Applies `round` to the current table, in order, and stores the result, again from a fresh read
   * whenever another replica changed it first. A change that throws (a cap refusing an initialize)
   * fails alone; the others go on.
   */
  async #apply(round: readonly PendingChange[]): Promise<void> {
    for (let attempt = 0; attempt < MAX_ROUNDS; attempt++) {
      const stored = await this.#store.get<StoredTable>(MCP_SESSION_SPACE, TABLE_KEY);
      const now = this.#now();
      const table = this.#tableOf(stored, now);
      const outcomes: { ok: boolean; value: unknown }[] = [];
      let write = false;
      for (const pending of round) {
        try {
          const { result, write: writes } = pending.change(table, now, stored);
          write ||= writes;
          outcomes.push({ ok: true, value: result });
        } catch (error) {
          outcomes.push({ ok: false, value: error });
        }
      }
      if (write && !(await this.#write(stored, table, round))) continue;
      for (const [i, pending] of round.entries()) {
        const outcome = outcomes[i]!;
        if (outcome.ok) pending.resolve(outcome.value);
        else pending.reject(outcome.value);
      }
      return;
    }
    throw new ToolgraphError('TG_RATE_LIMITED', 'MCP sessions are being opened and closed faster than the replicas can record them; retry in a moment.', {
      details: { retryAfterSecs: CONTENDED_RETRY_AFTER_SECS },
    });
  }

  /** Stores `table` where `stored` was read; false when another replica changed it first. */
  async #write(stored: StoredTable | undefined, table: McpSessionTable<McpSessionEntry>, round: readonly PendingChange[]): Promise<boolean> {
    const bits = new Map<string, number>();
    for (const row of stored?.rows ?? []) if (row[3]) bits.set(row[0], row[3]);
    for (const { added } of round) if (added !== undefined && added.bits !== 0) bits.set(added.id, added.bits);
    const next: StoredTable = {
      rows: table.entries().map((s): StoredRow => {
        const b = bits.get(s.id);
        return b === undefined ? [s.id, s.owner, s.lastUsed] : [s.id, s.owner, s.lastUsed, b];
      }),
    };
    return stored === undefined
      ? this.#store.add(MCP_SESSION_SPACE, TABLE_KEY, next, this.#idleMs)
      : this.#store.swap(MCP_SESSION_SPACE, TABLE_KEY, stored, next, this.#idleMs);
  }

  /** Opens a session of `owner` under the caps (making room from its own least recently used sessions), or throws TG_RATE_LIMITED naming the cap. */
  async open(caller: string, capabilities?: SessionCapabilities): Promise<{ id: string; evicted: readonly string[] }> {
    const id = randomUUID();
    const owner = ownerKey(caller);
    return this.#change((table, now) => {
      const reservation = table.admit(owner);
      table.register(reservation, { id, owner, lastUsed: now });
      return { result: { id, evicted: reservation.evicted.map((s) => s.id) }, write: true };
    }, { id, bits: bitsOf(capabilities) });
  }

  /** Whether `id` is a live session of `owner`; marks it used. */
  async use(id: string, caller: string): Promise<boolean> {
    return (await this.resume(id, caller)) !== undefined;
  }

  /** The capabilities its client declared, when `id` is a live session of `owner` (marking it used); undefined when it is not. */
  async resume(id: string, caller: string): Promise<SessionCapabilities | undefined> {
    const owner = ownerKey(caller);
    return this.#change((table, now, stored) => {
      const own = stored?.rows.filter((row) => row[1] === owner) ?? [];
      const last = own.at(-1);
      const session = table.use(id, owner, now);
      if (session === undefined) return { result: undefined, write: false };
      const capabilities = capabilitiesOf(own.find((row) => row[0] === id)?.[3]);
      // Already the caller's most recent, and stamped lately: the order and the expiry need no write.
      const fresh = last !== undefined && last[0] === id && now - last[2] < Math.min(TOUCH_EVERY_MS, this.#idleMs / 2);
      return { result: capabilities, write: !fresh };
    });
  }

  /** Ends the session `id` of `owner`; false when there was none. */
  async close(id: string, caller: string): Promise<boolean> {
    const owner = ownerKey(caller);
    return this.#change((table) => {
      if (table.use(id, owner, 0) === undefined) return { result: false, write: false };
      table.remove(id);
      return { result: true, write: true };
    });
  }
}

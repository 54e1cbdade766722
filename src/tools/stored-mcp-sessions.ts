import { createHash, randomUUID } from 'node:crypto';
import { ToolgraphError } from '../errors/index.ts';
import type { StateStore } from '../state/index.ts';
import { McpSessionTable, type McpSessionEntry, type McpSessionLimits } from './mcp-sessions.ts';

/** The store's space and key of the session table: one record, so the caps are checked against every replica's sessions. */
const MCP_SESSION_SPACE = 'mcp-sessions';
const TABLE_KEY = 'table';
/** A session already its caller's most recently used is re-stamped at most this often (a store write per request is not needed to keep it alive). */
const TOUCH_EVERY_MS = 60_000;
/** Rounds of read-modify-swap before giving up under contention (each round only loses to another caller's success). */
const MAX_ROUNDS = 64;

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
 */
export class StoredMcpSessions {
  readonly #store: StateStore;
  readonly #limits: McpSessionLimits;
  readonly #idleMs: number;
  readonly #now: () => number;

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
   * Runs `change` on the current table and stores the result, again from a fresh read whenever
   * another caller changed it first. Rows keep their capabilities; `added` gives a new session's.
   */
  async #change<R>(change: (table: McpSessionTable<McpSessionEntry>, now: number, stored: StoredTable | undefined) => { result: R; write: boolean }, added?: { id: string; bits: number }): Promise<R> {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const stored = await this.#store.get<StoredTable>(MCP_SESSION_SPACE, TABLE_KEY);
      const now = this.#now();
      const table = this.#tableOf(stored, now);
      const { result, write } = change(table, now, stored);
      if (!write) return result;
      const bits = new Map<string, number>();
      for (const row of stored?.rows ?? []) if (row[3]) bits.set(row[0], row[3]);
      if (added !== undefined && added.bits !== 0) bits.set(added.id, added.bits);
      const next: StoredTable = {
        rows: table.entries().map((s): StoredRow => {
          const b = bits.get(s.id);
          return b === undefined ? [s.id, s.owner, s.lastUsed] : [s.id, s.owner, s.lastUsed, b];
        }),
      };
      const stored2 = stored === undefined
        ? await this.#store.add(MCP_SESSION_SPACE, TABLE_KEY, next, this.#idleMs)
        : await this.#store.swap(MCP_SESSION_SPACE, TABLE_KEY, stored, next, this.#idleMs);
      if (stored2) return result;
    }
    throw new ToolgraphError('TG_RATE_LIMITED', 'MCP sessions are being opened and closed faster than they can be recorded; retry in a moment.');
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

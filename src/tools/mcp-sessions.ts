import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SETTINGS } from '../config/index.ts';
import { ToolgraphError } from '../errors/index.ts';

/** What the caps count of a session: its id, its caller and when it was last used. */
export interface McpSessionEntry {
  readonly id: string;
  /** Who opened it: a session is bound to its caller, so another caller cannot use its id. */
  readonly owner: string;
  lastUsed: number;
}

export interface McpSession extends McpSessionEntry {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: Server;
}

export interface McpSessionLimits {
  /** TOOLGRAPH_MCP_MAX_SESSIONS. */
  readonly maxSessions: number;
  /** TOOLGRAPH_MCP_MAX_SESSIONS_PER_SUBJECT. */
  readonly maxSessionsPerSubject: number;
}

/** A place held for a session being initialized, so concurrent initializes count before they finish. */
export interface McpSessionReservation<S extends McpSessionEntry = McpSession> {
  readonly owner: string;
  /** The caller's own sessions that made room; already out of the table, still to be closed. */
  readonly evicted: readonly S[];
  settled: boolean;
}

/**
 * Seconds a refused initialize is asked to wait (Retry-After): a caller's own initializes in flight
 * finish within a moment; a full server makes room only as sessions end (deleted, or idle for 30
 * minutes), so asking again every second would only add load.
 */
const OPENING_RETRY_AFTER_SECS = 1;
const FULL_RETRY_AFTER_SECS = 60;

function full(setting: 'mcpMaxSessions' | 'mcpMaxSessionsPerSubject', max: number, retryAfterSecs: number, message: string): ToolgraphError {
  return new ToolgraphError('TG_RATE_LIMITED', message, { details: { limit: setting, max, setting: SETTINGS[setting].env, retryAfterSecs } });
}

/**
 * The sessions one caller may keep: TOOLGRAPH_MCP_MAX_SESSIONS_PER_SUBJECT, and never more than half
 * the process-wide cap (rounded up), so one caller's flood alone cannot fill the server whatever the
 * two settings say (a per-subject cap of 16 with a process cap of 10 let one caller hold all 10).
 */
function subjectShare(limits: McpSessionLimits): number {
  return Math.min(limits.maxSessionsPerSubject, Math.ceil(limits.maxSessions / 2));
}

/**
 * The open MCP sessions, by id and by owner, under two caps: the process-wide one and one per owner
 * (subjectShare: the per-subject setting, at most half the process-wide cap).
 * Room for a new session is only ever made from its own caller's sessions (the least recently used
 * first): one caller opening thousands closes its own, never another caller's. When the process is
 * full and the caller has no session of its own to give up, the new session is refused.
 */
export class McpSessionTable<S extends McpSessionEntry = McpSession> {
  readonly #limits: McpSessionLimits;
  readonly #byId = new Map<string, S>();
  /** Each owner's sessions, least recently used first. */
  readonly #byOwner = new Map<string, Set<S>>();
  /** Reservations per owner, and in all. */
  readonly #opening = new Map<string, number>();
  #openingTotal = 0;

  constructor(limits: McpSessionLimits) {
    this.#limits = limits;
  }

  get size(): number {
    return this.#byId.size;
  }

  /** The session `id` of `owner`, marked used; undefined when it ended or belongs to someone else. */
  use(id: string, owner: string, now: number): S | undefined {
    const session = this.#byId.get(id);
    if (session === undefined || session.owner !== owner) return undefined;
    session.lastUsed = now;
    // Each owner's set runs from least to most recently used.
    const own = this.#byOwner.get(owner)!;
    own.delete(session);
    own.add(session);
    return session;
  }

  /**
   * Holds a place for a new session of `owner`, taking its own least recently used sessions out of
   * the table as the caps need (the caller closes them), or throws TG_RATE_LIMITED naming the cap.
   * Synchronous: concurrent initializes of one caller are counted one by one.
   */
  admit(owner: string): McpSessionReservation<S> {
    const { maxSessions } = this.#limits;
    const maxSessionsPerSubject = subjectShare(this.#limits);
    const own = this.#byOwner.get(owner) ?? new Set<S>();
    const opening = this.#opening.get(owner) ?? 0;
    // How many of the caller's open sessions must close for each cap to hold with one more.
    const forSubject = own.size + opening + 1 - maxSessionsPerSubject;
    const forProcess = this.#byId.size + this.#openingTotal + 1 - maxSessions;
    if (forSubject > own.size) {
      throw full('mcpMaxSessionsPerSubject', maxSessionsPerSubject, OPENING_RETRY_AFTER_SECS, `This caller is already opening ${opening} MCP sessions, its limit of ${maxSessionsPerSubject} (${SETTINGS.mcpMaxSessionsPerSubject.env}); wait for them to open.`);
    }
    if (forProcess > own.size) {
      throw full('mcpMaxSessions', maxSessions, FULL_RETRY_AFTER_SECS, `The tool server holds its limit of ${maxSessions} MCP sessions (${SETTINGS.mcpMaxSessions.env}) and this caller has none to give up; other callers' sessions are never closed to make room. Retry when sessions end (idle ones close after 30 minutes), or raise ${SETTINGS.mcpMaxSessions.env}.`);
    }
    const give = Math.max(0, forSubject, forProcess);
    const evicted: S[] = [];
    for (const session of own) {
      if (evicted.length >= give) break;
      evicted.push(session);
    }
    for (const session of evicted) this.remove(session.id);
    this.#opening.set(owner, opening + 1);
    this.#openingTotal++;
    return { owner, evicted, settled: false };
  }

  /** The reserved place becomes `session`. */
  register(reservation: McpSessionReservation<S>, session: S): void {
    this.release(reservation);
    this.restore(session);
  }

  /** Puts a session back as it was stored (no caps: it was admitted when it opened), as the most recently used of its owner's so far. */
  restore(session: S): void {
    this.#byId.set(session.id, session);
    let own = this.#byOwner.get(session.owner);
    if (own === undefined) {
      own = new Set();
      this.#byOwner.set(session.owner, own);
    }
    own.add(session);
  }

  /** Gives the reserved place back (the initialize failed, or the session was registered). Idempotent. */
  release(reservation: McpSessionReservation<S>): void {
    if (reservation.settled) return;
    reservation.settled = true;
    const opening = (this.#opening.get(reservation.owner) ?? 1) - 1;
    if (opening > 0) this.#opening.set(reservation.owner, opening);
    else this.#opening.delete(reservation.owner);
    this.#openingTotal--;
  }

  /** Takes the session out of the table; the caller closes it. */
  remove(id: string): S | undefined {
    const session = this.#byId.get(id);
    if (session === undefined) return undefined;
    this.#byId.delete(id);
    const own = this.#byOwner.get(session.owner);
    own?.delete(session);
    if (own?.size === 0) this.#byOwner.delete(session.owner);
    return session;
  }

  /** Ids of sessions unused since before `olderThan` (epoch ms). */
  idleSince(olderThan: number): string[] {
    const ids: string[] = [];
    for (const [id, session] of this.#byId) if (session.lastUsed < olderThan) ids.push(id);
    return ids;
  }

  ids(): string[] {
    return [...this.#byId.keys()];
  }

  /** Every session, each owner's least recently used first (the order `restore` rebuilds). */
  entries(): S[] {
    return [...this.#byOwner.values()].flatMap((own) => [...own]);
  }
}

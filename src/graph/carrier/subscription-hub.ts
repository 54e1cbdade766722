import { ServerResponse, type IncomingMessage } from 'node:http';
import type { DocumentNode } from 'graphql';
import { ToolgraphError, toToolgraphError } from '../../errors/index.ts';
import type { Logger } from '../../log/index.ts';
import { SETTINGS } from '../../config/index.ts';
import { OVERLOAD_RETRY_AFTER_SECS } from '../../overload/index.ts';
import type { ChangeEvent, GraphView } from '../engine/index.ts';
import { BatchChanges } from './batch-changes.ts';
import type { CarrierAccess } from './carrier-access.ts';
import type { CarrierPrincipal } from './carrier-principal.ts';
import { KEEPALIVE_FRAME, MAX_FRAME_BYTES, STREAM_HEADERS, completeFrame, nextFrame, type EndReason } from './sse-frames.ts';
import type { SubscriptionEvaluation, SubscriptionExecutor } from './subscription-executor.ts';
import type { SubscriptionReads } from './subscription-reads.ts';

/**
 * What the carrier needs of the engine: live views, reads of one version that may pause (commits to
 * the graph wait for them, as for a query: GraphEngine.readNow), and the change feed (local and
 * followed batches).
 */
export interface CarrierGraphs {
  view(graph: string): GraphView;
  readNow<T>(graph: string, work: (view: GraphView) => T | Promise<T>): T | Promise<T>;
  subscribe(listener: (event: ChangeEvent) => void): () => void;
}

export interface SubscriptionHubOptions {
  readonly graphs: CarrierGraphs;
  readonly executor: SubscriptionExecutor;
  readonly access: CarrierAccess;
  readonly logger: Logger;
  readonly maxSessionMs: number;
  readonly keepaliveMs: number;
  /**
   * Bytes a connection may hold unsent in the process (the response's and the socket's buffers).
   * A frame larger than the room left is written in slices as the socket drains; a frame due while
   * the connection holds anything and the frame would not fit beside it cuts the reader off.
   */
  readonly bufferCap: number;
  /**
   * The most work the carrier may do for one commit (TOOLGRAPH_CARRIER_MAX_WORK): the summed
   * complexity of its groups, each evaluated once per commit that touches it. A subscription that
   * would need a new group past it is refused; running ones go on.
   */
  readonly maxWork: number;
  readonly now?: () => number;
}

export interface OpenRequest {
  readonly graph: string;
  readonly query: string;
  readonly document: DocumentNode;
  readonly variables: Readonly<Record<string, unknown>> | null;
  readonly principal: CarrierPrincipal;
  readonly visibility: string;
  /** Its price under the query rules (subscription-rules.ts): the result values one evaluation may produce. */
  readonly complexity: number;
}

export interface HubStats {
  readonly sessions: number;
  readonly groups: number;
  /** Executor runs since the hub started. */
  readonly evaluations: number;
  /** The summed complexity of the groups now: the most work one commit can cost (at most maxWork, save for regroupings). */
  readonly work: number;
  /** The most bytes one connection has held unsent in the process since the hub started (at most bufferCap). */
  readonly peakQueuedBytes: number;
  /** Sessions opened since the hub started. */
  readonly opened: number;
  /** Frames handed to sessions since the hub started (data frames and keepalives; final frames apart). */
  readonly frames: number;
}

/**
 * The carrier's ServerResponse (node:http `ServerResponse` option): it carries its session, so one
 * shared close handler serves every connection instead of a closure per subscriber.
 */
export class CarrierResponse extends ServerResponse<IncomingMessage> {
  session: Session | null = null;
}

/** One subscriber: a handful of fields; the result it last got is a reference to its group's string. */
export class Session {
  readonly res: CarrierResponse;
  readonly principal: CarrierPrincipal;
  readonly expiresAt: number;
  group: Group;
  sent: string | null = null;
  /** The part of a frame not yet handed to the socket (it goes as the socket drains). */
  rest: Buffer | null = null;

  constructor(res: CarrierResponse, principal: CarrierPrincipal, group: Group, expiresAt: number) {
    this.res = res;
    this.principal = principal;
    this.group = group;
    this.expiresAt = expiresAt;
  }
}

/** Subscribers of one graph, query text, variables and visibility key: one evaluation serves them all. */
class Group {
  readonly base: string;
  readonly key: string;
  readonly graph: string;
  readonly prepared: unknown;
  readonly visibility: string;
  /** The subscription's price: what it adds to the hub's work. */
  readonly complexity: number;
  readonly members = new Set<Session>();
  /** Runs the executor when no member can: the principal of the handshake that created or joined it last. */
  principal: CarrierPrincipal;
  joining = 0;
  payload: string | null = null;
  /** The `next` frame of `payload`; null while `payload` is null or when it is over 8 MiB. */
  frame: Buffer | null = null;
  dirty = true;
  evaluating = false;
  pending: Promise<void> | null = null;
  /** What the last evaluation read (null: not evaluated yet, or it could not say): commits that touch none of it are skipped. */
  reads: SubscriptionReads | null = null;
  /** Batches committed while an evaluation was under way, checked against what it read once it ends. */
  missed: BatchChanges[] = [];

  constructor(base: string, visibility: string, graph: string, prepared: unknown, principal: CarrierPrincipal, complexity: number) {
    this.base = base;
    this.key = `${base}\u0000${visibility}`;
    this.visibility = visibility;
    this.graph = graph;
    this.prepared = prepared;
    this.principal = principal;
    this.complexity = complexity;
  }
}

const noop = (): void => undefined;
/** Chunked transfer coding wraps each write in a size line and a CRLF: at most 12 bytes for 8 MiB. */
const CHUNK_FRAMING = 16;
const REVOKED = new ToolgraphError('TG_ACCESS_DENIED', 'The graph ACL no longer allows this subscription.');
const TOO_LARGE = new ToolgraphError('TG_FRAME_TOO_LARGE', `The subscription result serialises to more than ${MAX_FRAME_BYTES} bytes (8 MiB); select less or lower first/limit.`);
const DROPPED = new ToolgraphError('TG_GRAPH_NOT_FOUND', 'The graph was dropped.');
/** Milliseconds the queue of evaluations runs before it lets the event loop turn (as a query's slice). */
const SLICE_MS = 10;
/** Batches kept per evaluation under way; past it, the evaluation is simply run again. */
const MAX_MISSED = 64;
const WORK_SETTING = SETTINGS.carrierMaxWork.env!;

function overWorkLimit(complexity: number, max: number): ToolgraphError {
  return new ToolgraphError('TG_CARRIER_WORK_LIMIT',
    `This subscription's complexity of ${complexity} result values does not fit beside the running subscriptions in the carrier's work limit of ${max} result values per commit (${WORK_SETTING}); running subscriptions go on. Retry later, subscribe to less, use the text of a running subscription (subscribers of one text share its work), or raise the limit.`,
    { details: { limit: 'maxWork', max, setting: WORK_SETTING, complexity } });
}

function isOverload(error: unknown): boolean {
  return error instanceof ToolgraphError && error.code === 'TG_OVERLOADED';
}

/**
 * Shared re-execution and fan-out. Each committed batch of a graph (edges included) marks dirty the
 * groups whose last evaluation read something it changed (batch-changes.ts); one queue evaluates the
 * dirty groups one after another, each once however many batches came, letting the event loop turn
 * every 10 ms between them (and within one, as its execution budget pauses it). A subscriber gets a
 * frame only when the serialised result differs from the last one it got, so a change to rows it
 * cannot see sends it nothing. The summed complexity of the groups is capped (`maxWork`): it bounds
 * what one commit can cost. Access is asked before every frame and on every keepalive tick: a denial
 * ends the stream, a new visibility key moves the subscriber to the group of that key. Two timers
 * serve every session: the keepalive tick and the expiry of the oldest session (sessions expire in
 * the order they opened, all living the same time).
 */
export class SubscriptionHub {
  readonly #options: SubscriptionHubOptions;
  readonly #now: () => number;
  readonly #groups = new Map<string, Group>();
  readonly #byGraph = new Map<string, Set<Group>>();
  /** Every open session, oldest first: the expiry order. */
  readonly #sessions = new Set<Session>();
  /** Dirty groups waiting for their evaluation, in the order they became dirty. */
  readonly #queue = new Set<Group>();
  #draining = false;
  /** Groups whose evaluation the overload stopped: queued again after the overload's Retry-After. */
  readonly #retrying = new Set<Group>();
  #retryTimer: NodeJS.Timeout | null = null;
  readonly #unsubscribe: () => void;
  readonly #keepalive: NodeJS.Timeout;
  #expiry: NodeJS.Timeout | null = null;
  #evaluations = 0;
  #work = 0;
  #peakQueued = 0;
  #opened = 0;
  #frames = 0;
  #closed = false;

  constructor(options: SubscriptionHubOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
    this.#unsubscribe = options.graphs.subscribe((event) => this.#onChange(event));
    this.#keepalive = setInterval(() => this.#tick(), options.keepaliveMs).unref();
  }

  stats(): HubStats {
    return { sessions: this.#sessions.size, groups: this.#groups.size, evaluations: this.#evaluations, work: this.#work, peakQueuedBytes: this.#peakQueued, opened: this.#opened, frames: this.#frames };
  }

  /**
   * Joins (or creates) the group of this request, brings its result up to date, writes the stream
   * head and the initial frame. Throws, with nothing written, when the graph is gone, the executor
   * refuses the subscription, a new group would take the hub past its work limit, the first
   * evaluation fails or is over its budget, or access was withdrawn meanwhile.
   */
  async open(res: CarrierResponse, request: OpenRequest): Promise<void> {
    const base = `${request.graph}\u0000${request.query}\u0000${request.variables === null ? '' : JSON.stringify(request.variables)}`;
    let visibility = request.visibility;
    let group = this.#groups.get(`${base}\u0000${visibility}`);
    if (!group) {
      const view = this.#options.graphs.view(request.graph);
      const prepared = await this.#options.executor.prepare(view.catalogue, { query: request.query, document: request.document, variables: request.variables });
      // Another handshake may have made the group meanwhile; joining one costs no work.
      if (!this.#groups.has(`${base}\u0000${visibility}`) && this.#work + request.complexity > this.#options.maxWork) {
        throw overWorkLimit(request.complexity, this.#options.maxWork);
      }
      group = this.#groupFor(base, visibility, request.graph, prepared, request.principal, request.complexity);
    }
    for (;;) {
      group.principal = request.principal;
      group.joining++;
      try {
        await this.#fresh(group);
      } catch (error) {
        group.joining--;
        this.#dropIfIdle(group);
        throw error;
      }
      group.joining--;
      if (this.#closed || res.destroyed) {
        this.#dropIfIdle(group);
        return;
      }
      // Access may have changed while the result was computed: ask again right before the first frame.
      const now = this.#options.access.visibility(request.principal, request.graph);
      if (now === null) {
        this.#dropIfIdle(group);
        throw new ToolgraphError('TG_ACCESS_DENIED', 'The graph ACL does not allow this principal to read this graph.');
      }
      if (now === visibility) break;
      this.#dropIfIdle(group);
      visibility = now;
      group = this.#groupFor(base, visibility, request.graph, group.prepared, request.principal, group.complexity);
    }
    const session = new Session(res, request.principal, group, this.#now() + this.#options.maxSessionMs);
    res.writeHead(200, STREAM_HEADERS);
    // Sent now, so the socket's buffer counts them and the first frame's room is exact.
    res.flushHeaders();
    res.session = session;
    group.members.add(session);
    this.#sessions.add(session);
    this.#opened++;
    this.#armExpiry();
    this.#options.logger.debug({ sessions: this.#sessions.size, groups: this.#groups.size }, 'carrier session opened');
    if (group.frame === null) {
      this.#end(session, 'frame-too-large', TOO_LARGE);
      return;
    }
    this.#send(session, group.frame);
    session.sent = group.payload;
  }

  /** The connection of `res` closed (the client left, or the server ended it). */
  closed(res: CarrierResponse): void {
    const session = res.session;
    if (session === null) return;
    res.session = null;
    this.#detach(session);
    this.#options.logger.debug({ sessions: this.#sessions.size }, 'carrier session closed by the client');
  }

  /** Ends every stream with a final event and stops following the engine. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe();
    clearInterval(this.#keepalive);
    if (this.#expiry) clearTimeout(this.#expiry);
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    for (const session of this.#sessions) this.#end(session, 'server-closing');
  }

  // ---- groups and evaluation ----------------------------------------------------------------

  /** The group of a key, made when there is none; its complexity counts towards the work from then on. */
  #groupFor(base: string, visibility: string, graph: string, prepared: unknown, principal: CarrierPrincipal, complexity: number): Group {
    const key = `${base}\u0000${visibility}`;
    const existing = this.#groups.get(key);
    if (existing) return existing;
    const group = new Group(base, visibility, graph, prepared, principal, complexity);
    this.#groups.set(key, group);
    this.#work += complexity;
    let ofGraph = this.#byGraph.get(graph);
    if (!ofGraph) {
      ofGraph = new Set();
      this.#byGraph.set(graph, ofGraph);
    }
    ofGraph.add(group);
    return group;
  }

  #dropIfIdle(group: Group): void {
    if (group.members.size > 0 || group.joining > 0) return;
    if (this.#groups.get(group.key) === group) {
      this.#groups.delete(group.key);
      this.#work -= group.complexity;
    }
    this.#queue.delete(group);
    this.#retrying.delete(group);
    const ofGraph = this.#byGraph.get(group.graph);
    ofGraph?.delete(group);
    if (ofGraph?.size === 0) this.#byGraph.delete(group.graph);
  }

  /**
   * Waits until the group's result is current: evaluated, and no batch since touched what it read
   * (a batch that touched it made it dirty).
   */
  async #fresh(group: Group): Promise<void> {
    for (;;) {
      if (group.evaluating) {
        await group.pending?.catch(noop);
        continue;
      }
      if (!group.dirty && group.payload !== null) return;
      await this.#evaluate(group);
      return;
    }
  }

  #evaluate(group: Group): Promise<void> {
    const pending = this.#runLoop(group);
    group.pending = pending;
    pending.catch(noop);
    return pending;
  }

  async #runLoop(group: Group): Promise<void> {
    group.evaluating = true;
    try {
      do {
        group.dirty = false;
        const principal = this.#representative(group);
        this.#evaluations++;
        let version = -1;
        let evaluation: SubscriptionEvaluation;
        try {
          // One graph version, though the run may pause: commits to the graph wait for it, as for a query.
          evaluation = await this.#options.graphs.readNow(group.graph, (view) => {
            version = view.version;
            return this.#options.executor.run(view, group.prepared, principal);
          });
        } catch (error) {
          group.reads = null;
          group.missed = [];
          if (isOverload(error)) this.#retryLater(group);
          else this.#fail(group, error);
          throw error;
        }
        group.reads = evaluation.reads;
        // Batches applied while it ran, after the version it read: re-run for those that touched what it read.
        for (const changes of group.missed) if (changes.version > version && changes.touches(group.reads)) group.dirty = true;
        group.missed = [];
        const payload = JSON.stringify(evaluation.result);
        if (payload !== group.payload) {
          group.payload = payload;
          group.frame = nextFrame(payload);
        }
        this.#deliver(group);
      } while (group.dirty && group.members.size + group.joining > 0);
    } finally {
      group.evaluating = false;
    }
  }

  /**
   * The overload stopped the group's evaluation: its subscribers keep their streams (and their last
   * frame), and the group is evaluated again once the overload's Retry-After has passed.
   */
  #retryLater(group: Group): void {
    group.dirty = true;
    if (group.members.size === 0) return;
    this.#retrying.add(group);
    if (this.#retryTimer !== null || this.#closed) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      for (const retried of this.#retrying) this.#enqueue(retried);
      this.#retrying.clear();
    }, OVERLOAD_RETRY_AFTER_SECS * 1000).unref();
  }

  /** A member that may still read with the group's key runs the query; else the last joiner. */
  #representative(group: Group): CarrierPrincipal {
    for (const session of group.members) {
      if (this.#options.access.visibility(session.principal, group.graph) === group.visibility) {
        group.principal = session.principal;
        return session.principal;
      }
    }
    return group.principal;
  }

  #fail(group: Group, thrown: unknown): void {
    const error = toToolgraphError(thrown);
    if (error.code === 'TG_GRAPH_NOT_FOUND') {
      for (const session of group.members) this.#end(session, 'graph-dropped', DROPPED);
      return;
    }
    // Codes and limit names only: messages can name the graph, and the carrier never logs graph names.
    if (error.code === 'TG_QUERY_BUDGET_EXCEEDED') {
      const limit = error.details?.['limit'];
      this.#options.logger.info({ code: error.code, limit: typeof limit === 'string' ? limit : undefined, sessions: group.members.size }, 'carrier subscription over its execution budget');
      for (const session of group.members) this.#end(session, 'over-budget', error);
      return;
    }
    this.#options.logger.error({ code: error.code, type: thrown instanceof Error ? thrown.name : typeof thrown }, 'carrier evaluation failed');
    for (const session of group.members) this.#end(session, 'evaluation-failed', error);
  }

  #deliver(group: Group): void {
    const { frame, payload } = group;
    for (const session of group.members) {
      const visibility = this.#options.access.visibility(session.principal, group.graph);
      if (visibility === null) this.#end(session, 'access-revoked', REVOKED);
      else if (visibility !== group.visibility) this.#regroup(session, visibility);
      else if (frame === null) this.#end(session, 'frame-too-large', TOO_LARGE);
      else if (session.sent !== payload && this.#write(session, frame)) session.sent = payload;
    }
  }

  #regroup(session: Session, visibility: string): void {
    const from = session.group;
    from.members.delete(session);
    this.#dropIfIdle(from);
    // A running subscription keeps running past the work limit: only new ones are refused.
    const to = this.#groupFor(from.base, visibility, from.graph, from.prepared, session.principal, from.complexity);
    session.group = to;
    to.members.add(session);
    if (!to.dirty && !to.evaluating && to.payload !== null) {
      if (to.frame === null) this.#end(session, 'frame-too-large', TOO_LARGE);
      else if (session.sent !== to.payload && this.#write(session, to.frame)) session.sent = to.payload;
      return;
    }
    to.dirty = true;
    this.#enqueue(to);
  }

  // ---- changes and timers -------------------------------------------------------------------

  #onChange(event: ChangeEvent): void {
    const groups = this.#byGraph.get(event.graph);
    if (!groups) return;
    if (event.kind === 'dropGraph') {
      for (const group of groups) for (const session of group.members) this.#end(session, 'graph-dropped', DROPPED);
      return;
    }
    if (event.kind !== 'batch') return;
    const view = this.#options.graphs.view(event.graph);
    const changes = BatchChanges.of(event, (id) => view.node(id)?.label);
    for (const group of groups) {
      if (group.evaluating) {
        // What it reads is known once it ends: the batch is checked against that then.
        if (group.missed.length < MAX_MISSED) group.missed.push(changes);
        else group.missed = [BatchChanges.EVERYTHING];
      } else if (!group.dirty && changes.touches(group.reads)) {
        group.dirty = true;
        this.#enqueue(group);
      }
    }
  }

  /** Queues a dirty group for evaluation; the queue runs from the next turn of the event loop. */
  #enqueue(group: Group): void {
    this.#queue.add(group);
    if (this.#draining || this.#closed) return;
    this.#draining = true;
    // From the next turn: a burst of batches costs one evaluation per group.
    setImmediate(() => void this.#drain());
  }

  /**
   * Evaluates the queued groups one at a time (each under its own execution budget, pausing as it
   * does), letting the event loop turn whenever 10 ms have gone since it last did, so probes and
   * requests are answered while many groups re-run.
   */
  async #drain(): Promise<void> {
    let sliceStarted = performance.now();
    try {
      // A Set iterates what is added while it runs: groups that become dirty meanwhile are served too.
      for (const group of this.#queue) {
        this.#queue.delete(group);
        if (this.#closed) return;
        if (group.dirty && !group.evaluating && group.members.size > 0) await this.#evaluate(group).catch(noop);
        if (performance.now() - sliceStarted >= SLICE_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          sliceStarted = performance.now();
        }
      }
    } finally {
      this.#draining = false;
    }
  }

  #tick(): void {
    for (const session of this.#sessions) {
      const group = session.group;
      const visibility = this.#options.access.visibility(session.principal, group.graph);
      if (visibility === null) {
        this.#end(session, 'access-revoked', REVOKED);
        continue;
      }
      if (visibility !== group.visibility) this.#regroup(session, visibility);
      // A frame still going out is traffic enough (and a comment cannot go in the middle of it).
      if (session.res.session === session && session.rest === null) this.#write(session, KEEPALIVE_FRAME);
    }
  }

  #armExpiry(): void {
    if (this.#expiry !== null || this.#closed) return;
    const oldest = this.#sessions.values().next();
    if (oldest.done) return;
    this.#expiry = setTimeout(() => this.#expire(), Math.max(0, Math.ceil(oldest.value.expiresAt - this.#now()))).unref();
  }

  #expire(): void {
    this.#expiry = null;
    const now = this.#now();
    for (const session of this.#sessions) {
      if (session.expiresAt > now) break;
      this.#end(session, 'session-expired');
    }
    this.#armExpiry();
  }

  // ---- writing --------------------------------------------------------------------------------

  /**
   * Sends `frame` unless the connection holds unsent bytes (queued in the process, or the rest of a
   * frame still going out) and the frame would not fit beside them within the cap: then the reader
   * is cut off. An idle connection takes any frame (up to 8 MiB), in slices that keep what it holds
   * within the cap.
   */
  #write(session: Session, frame: Buffer): boolean {
    const res = session.res;
    const unsent = res.writableLength + (session.rest?.length ?? 0);
    if (unsent > 0 && unsent + frame.length + CHUNK_FRAMING > this.#options.bufferCap) {
      const queuedBytes = res.writableLength;
      this.#detach(session);
      res.session = null;
      session.rest = null;
      res.destroy();
      this.#options.logger.info({ queuedBytes, pendingBytes: unsent }, 'carrier cut off a slow reader');
      return false;
    }
    this.#send(session, frame);
    return true;
  }

  /** Hands the socket as much of `frame` as fits within the cap; the rest follows on 'drain'. */
  #send(session: Session, frame: Buffer): void {
    this.#frames++;
    session.rest = frame;
    this.#pump(session);
  }

  #pump(session: Session): void {
    const res = session.res;
    let rest = session.rest;
    while (rest !== null) {
      const room = this.#options.bufferCap - res.writableLength - CHUNK_FRAMING;
      if (room <= 0) break;
      const slice = rest.length <= room ? rest : rest.subarray(0, room);
      res.write(slice);
      if (res.writableLength > this.#peakQueued) this.#peakQueued = res.writableLength;
      rest = slice.length === rest.length ? null : rest.subarray(slice.length);
    }
    session.rest = rest;
    if (rest === null) return;
    const resume = (): void => {
      if (res.session === session && session.rest !== null) this.#pump(session);
    };
    // 'drain' comes once the socket has written out what it held; a cap below the socket's
    // high-water mark never asks for it, so then try again on the next turn.
    if (res.writableNeedDrain) res.once('drain', resume);
    else setImmediate(resume);
  }

  #end(session: Session, reason: EndReason, error?: ToolgraphError): void {
    this.#detach(session);
    const res = session.res;
    res.session = null;
    if (!res.destroyed && !res.writableEnded) {
      // The final event follows the frame still going out, whole: the stream ends either way.
      if (session.rest !== null) res.write(session.rest);
      res.end(completeFrame(reason, error));
    }
    session.rest = null;
    this.#options.logger.debug({ reason, sessions: this.#sessions.size }, 'carrier session ended');
  }

  #detach(session: Session): void {
    this.#sessions.delete(session);
    session.group.members.delete(session);
    this.#dropIfIdle(session.group);
  }
}

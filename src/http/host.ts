import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ToolgraphError } from '../errors/index.ts';
import type { Logger } from '../log/index.ts';
import { activeTracing } from '../observability/tracing/index.ts';
import { OVERLOAD_RETRY_AFTER_SECS, processOverload, type OverloadSignal } from '../overload/index.ts';
import { AllowedHosts } from './allowed-hosts.ts';
import { carriesUnreadBody, dropBody } from './bodiless-request.ts';
import { processBodies } from './body-allowance.ts';
import { ConnectionCap } from './connection-cap.ts';
import { DEFAULT_CONNECTION_LIMITS, deadlineOptions, type ConnectionLimits } from './connection-limits.ts';
import type { HttpService } from './http-service.ts';
import type { ResponseBody } from './openapi-types.ts';
import { pathOf, sendError, sendJson } from './respond.ts';
import { notifyResponseClosed } from './response-closed.ts';
import { SERVICE_INDEX_PATH, serviceIndex } from './service-index.ts';

/** How long in-flight requests get to finish on close before their connections are cut. */
const DEFAULT_GRACE_MS = 10_000;
/** Seconds a client is asked to wait (Retry-After) while the process starts or stops, or while the connection cap is full. */
const RETRY_AFTER_SECONDS = '1';
const OVERLOAD_RETRY_AFTER = String(OVERLOAD_RETRY_AFTER_SECS);
/** node:http's whole-request deadline comes this long after a route's body deadline could have: the route's sweep may run a second late. */
const BODY_DEADLINE_SLACK_MS = 1000;

interface HostOptions {
  services: readonly HttpService[];
  logger: Logger;
  /**
   * Names of services that will be mounted later (while the engine recovers, say). Until every one
   * is mounted, /healthz answers 503 `starting` and requests no mounted service owns answer 503
   * TG_NOT_READY with Retry-After, never 404.
   */
  pending?: readonly string[];
  /**
   * While it is set, every request but the probes answers 503 TG_OVERLOADED with Retry-After, and
   * /healthz answers 503 `overloaded`. The process's own signal by default.
   */
  overload?: OverloadSignal;
}

export interface StartHostOptions extends HostOptions {
  host: string;
  port: number;
  /** The connection cap and deadlines; DEFAULT_CONNECTION_LIMITS (the settings' defaults) when omitted. */
  connections?: ConnectionLimits;
}

interface CloseOptions {
  /** In-flight requests get this long to finish; then their connections are cut. */
  graceMs?: number;
}

export interface RunningHost {
  readonly server: Server;
  /** `http://host:port` as bound (port 0 resolved). */
  readonly origin: string;
  /** Adds services once they can serve (their names leave the pending list). */
  mount(services: readonly HttpService[]): void;
  /**
   * Keeps /healthz at 503 `starting` while something the services need is not there yet (the IdP):
   * `name` joins the starting list and `waiting` says what for. The answer gives the place back.
   */
  hold(name: string, waiting: () => string | undefined): () => void;
  /**
   * Asked at every /healthz: while `failure` says something fails (a store that cannot write),
   * /healthz answers 503 `failing` with `failing: {name: what}`, so a load balancer takes the
   * process out of rotation; requests are still served (reads work; writes answer their own errors).
   */
  watchHealth(name: string, failure: () => string | undefined): void;
  /**
   * From now on, serve only requests whose Host (and Origin, when sent) is one of these `host[:port]`
   * values (DNS rebinding protection); /healthz and /livez stay open to probes that use an IP.
   */
  restrictHosts(hosts: readonly string[]): void;
  /** Requests being handled right now. */
  readonly inFlight: number;
  /** Open connections within the cap, idle ones included, and over-cap ones waiting to be answered. */
  connections(): { active: number; overflowing: number };
  /**
   * Stops accepting connections, lets in-flight requests finish within the grace period (their
   * commits may already be durable), cuts what is left, then closes the services.
   */
  close(options?: CloseOptions): Promise<void>;
}

/** Finds the service owning `path`: the longest prefix that equals the path or is followed by `/`. */
export function routeOf(services: readonly HttpService[], path: string): HttpService | undefined {
  let best: HttpService | undefined;
  let bestLength = -1;
  for (const service of services) {
    for (const prefix of service.prefixes) {
      if (prefix.length > bestLength && ownsPath(prefix, path)) {
        best = service;
        bestLength = prefix.length;
      }
    }
  }
  return best;
}

/** `prefix` owns `path` when they are equal or the path goes on under it (`prefix/…`); no allocation. */
function ownsPath(prefix: string, path: string): boolean {
  if (!path.startsWith(prefix)) return false;
  if (path.length === prefix.length || prefix.endsWith('/')) return true;
  return path.charCodeAt(prefix.length) === 47;
}

/** What the handler reads on every request; mount() and close() change it in place. */
interface HostState {
  readonly services: HttpService[];
  readonly pending: Set<string>;
  /** Held by something other than a service (hold()): what each waits for. */
  readonly waiting: Map<string, () => string | undefined>;
  /** What watchHealth() asks at every /healthz. */
  readonly health: Map<string, () => string | undefined>;
  allowedHosts: AllowedHosts | undefined;
  stopping: boolean;
  inFlight: number;
  /** Responses not closed yet (close() waits for them to finish). */
  readonly open: Set<ServerResponse>;
  /** The connection cap of the listening host (none for an in-process handler). */
  readonly cap: ConnectionCap | undefined;
  readonly overload: OverloadSignal;
}

function newState(options: HostOptions, cap?: ConnectionCap): HostState {
  return {
    services: [...options.services], pending: new Set(options.pending ?? []), waiting: new Map(), health: new Map(), allowedHosts: undefined, stopping: false, inFlight: 0, open: new Set(),
    cap, overload: options.overload ?? processOverload,
  };
}

function probe(req: IncomingMessage, res: ServerResponse, path: string): boolean {
  if (req.method === 'GET' || req.method === 'HEAD') return true;
  sendError(res, new ToolgraphError('TG_METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}; use GET.`), { allow: 'GET, HEAD' });
  return false;
}

/**
 * `/livez` answers 200 while the process runs (liveness); `/healthz` answers 200 `ok` only when
 * every requested service is mounted and the process is neither stopping, failing (watchHealth: a
 * store that cannot write) nor overloaded (readiness), else 503. `extra` headers go on every answer
 * (`Connection: close` past the connection cap).
 */
function answerProbe(state: HostState, req: IncomingMessage, res: ServerResponse, path: string, extra?: Record<string, string>): void {
  if (!probe(req, res, path)) return;
  if (path === '/livez') {
    sendJson(res, 200, { status: 'alive' } satisfies ResponseBody<'liveness', 200>, extra);
    return;
  }
  const services = state.services.map((s) => s.name);
  const cause = state.overload.cause;
  const failing = failingOf(state);
  if (state.stopping) sendJson(res, 503, { status: 'stopping', services } satisfies ResponseBody<'health', 503>, { 'retry-after': RETRY_AFTER_SECONDS, ...extra });
  else if (state.pending.size > 0) sendJson(res, 503, { status: 'starting', services, starting: [...state.pending], ...waitingOf(state) } satisfies ResponseBody<'health', 503>, { 'retry-after': RETRY_AFTER_SECONDS, ...extra });
  else if (failing !== undefined) sendJson(res, 503, { status: 'failing', services, failing } satisfies ResponseBody<'health', 503>, { 'retry-after': RETRY_AFTER_SECONDS, ...extra });
  else if (state.overload.overloaded) sendJson(res, 503, { status: 'overloaded', services, ...(cause === undefined ? {} : { overload: cause }) } satisfies ResponseBody<'health', 503>, { 'retry-after': OVERLOAD_RETRY_AFTER, ...extra });
  else sendJson(res, 200, { status: 'ok', services } satisfies ResponseBody<'health', 200>, extra);
}

/** What fails now, by watchHealth() name; undefined when nothing does. */
function failingOf(state: HostState): Record<string, string> | undefined {
  let failing: Record<string, string> | undefined;
  for (const [name, failure] of state.health) {
    const what = failure();
    if (what !== undefined) (failing ??= {})[name] = what;
  }
  return failing;
}

/** `{waiting: {name: what for}}` for the held entries of the starting list; nothing when none. */
function waitingOf(state: HostState): Pick<ResponseBody<'health', 503>, 'waiting'> {
  if (state.waiting.size === 0) return {};
  const waiting: Record<string, string> = {};
  for (const [name, describe] of state.waiting) waiting[name] = describe() ?? 'starting';
  return { waiting };
}

const CLOSE = Object.freeze({ connection: 'close' });

/**
 * A request on a connection past the cap: probes are answered (so a full cap never starves the
 * load balancer's checks), anything else is refused at once; either way the connection then closes.
 */
function answerOverCap(state: HostState, cap: ConnectionCap, req: IncomingMessage, res: ServerResponse, path: string): void {
  if (path === '/healthz' || path === '/livez') {
    answerProbe(state, req, res, path, CLOSE);
    return;
  }
  sendError(res, new ToolgraphError('TG_TOO_MANY_CONNECTIONS', `toolgraph is at its limit of ${cap.max} open connections (TOOLGRAPH_MAX_CONNECTIONS); retry later.`, {
    details: { limit: 'maxConnections', max: cap.max, setting: 'TOOLGRAPH_MAX_CONNECTIONS' },
  }), { 'retry-after': RETRY_AFTER_SECONDS, ...CLOSE });
}

function createHandler(state: HostState, logger: Logger): (req: IncomingMessage, res: ServerResponse) => void {
  // One listener shared by every response ('close' is emitted once): no closure per request.
  function closed(this: ServerResponse): void {
    state.inFlight--;
    state.open.delete(this);
    notifyResponseClosed(this);
  }
  function failed(res: ServerResponse, service: HttpService, error: unknown): void {
    const sent = sendError(res, error);
    if (sent.code === 'TG_INTERNAL') logger.error({ err: error, service: service.name }, 'request failed');
  }
  function serve(service: HttpService, req: IncomingMessage, res: ServerResponse): void {
    let handled: void | Promise<void>;
    try {
      // The span is named for the service, never the path (a path may name a graph).
      const tracing = activeTracing();
      handled = tracing === undefined ? service.handle(req, res) : tracing.serve(req, res, `${req.method ?? 'GET'} ${service.name}`, {
        'http.request.method': req.method ?? 'GET', 'toolgraph.service': service.name,
      }, () => service.handle(req, res));
    } catch (error) {
      failed(res, service, error);
      return;
    }
    if (handled instanceof Promise) handled.catch((error: unknown) => failed(res, service, error));
  }
  return (req, res) => {
    state.inFlight++;
    state.open.add(res);
    res.on('close', closed);
    const path = pathOf(req);
    const cap = state.cap;
    if (cap?.isOverflow(req.socket)) {
      answerOverCap(state, cap, req, res, path);
      return;
    }
    if (path === '/healthz' || path === '/livez') {
      answerProbe(state, req, res, path);
      return;
    }
    const foreign = state.allowedHosts?.refusal(req);
    if (foreign !== undefined) {
      sendError(res, foreign);
      return;
    }
    if (state.stopping) {
      // A request that came on a kept-alive connection after shutdown began: send the client elsewhere.
      sendError(res, new ToolgraphError('TG_NOT_READY', 'toolgraph is shutting down; retry the request (on another instance, or once this one restarts).', {
        details: { status: 'stopping' },
      }), { 'retry-after': RETRY_AFTER_SECONDS, connection: 'close' });
      return;
    }
    if (state.overload.overloaded) {
      sendError(res, state.overload.refusal(), { 'retry-after': OVERLOAD_RETRY_AFTER });
      return;
    }
    const service = routeOf(state.services, path);
    if (!service) {
      // Waiting only for something held (the IdP), every service mounted: an unknown path is simply not found.
      if ([...state.pending].some((name) => !state.waiting.has(name))) {
        const starting = [...state.pending];
        sendError(res, new ToolgraphError('TG_NOT_READY', `toolgraph is still starting (${starting.join(', ')} not ready yet: recovering stored graphs); retry in a moment.`, {
          details: { status: 'starting', starting },
        }), { 'retry-after': RETRY_AFTER_SECONDS });
        return;
      }
      if (path === SERVICE_INDEX_PATH) {
        if (probe(req, res, path)) sendJson(res, 200, serviceIndex(state.services));
        return;
      }
      sendError(res, new ToolgraphError('TG_NOT_FOUND', `No route for ${req.method ?? 'GET'} ${path}; GET / lists the routes this server answers.`));
      return;
    }
    // A body on a GET (or HEAD, DELETE, OPTIONS) is no route's to read: dropped before the route runs.
    if (carriesUnreadBody(req)) dropBody(req, () => serve(service, req, res));
    else serve(service, req, res);
  };
}

export async function startHost(options: StartHostOptions): Promise<RunningHost> {
  const limits = options.connections ?? DEFAULT_CONNECTION_LIMITS;
  const cap = new ConnectionCap(limits.maxConnections);
  const state = newState(options, cap);
  // node:http's whole-request deadline backs the routes' own body deadline (processBodies, which
  // answers first, with its code): a body no route reads (one past a refusal, or a GET's being
  // dropped) ends by it too.
  const requestTimeoutMs = limits.requestHeadTimeoutMs + processBodies.limits.timeoutMs + BODY_DEADLINE_SLACK_MS;
  const server = createServer(deadlineOptions(limits, requestTimeoutMs), createHandler(state, options.logger));
  // Counted from accept, so connections that never send a byte count too.
  cap.watch(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;

  async function drain(graceMs: number): Promise<void> {
    state.stopping = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // A connection whose last response went out is idle: close it rather than wait for its keep-alive timeout.
    const closeIdle = () => setImmediate(() => server.closeIdleConnections());
    // Responses still being written: their connections close once they finish.
    const busy = new Set<Socket>();
    for (const res of state.open) {
      res.once('finish', closeIdle);
      busy.add(res.req.socket);
    }
    server.closeIdleConnections();
    // node:http counts a connection that has not sent its whole head as busy; nothing runs on it: cut it.
    for (const socket of cap.sockets()) if (!busy.has(socket)) socket.destroy();
    const timer = setTimeout(() => {
      if (state.inFlight > 0) options.logger.warn({ inFlight: state.inFlight, graceMs }, 'shutdown grace period over; cutting the requests still running');
      server.closeAllConnections();
    }, graceMs);
    try {
      await closed;
    } finally {
      clearTimeout(timer);
    }
    await Promise.all(state.services.map((s) => s.close?.()));
  }

  return {
    server,
    origin: `http://${hostPart}:${address.port}`,
    mount(added) {
      state.services.push(...added);
      for (const service of added) if (!state.waiting.has(service.name)) state.pending.delete(service.name);
    },
    hold(name, waiting) {
      state.pending.add(name);
      state.waiting.set(name, waiting);
      return () => {
        if (state.waiting.get(name) !== waiting) return;
        state.waiting.delete(name);
        state.pending.delete(name);
      };
    },
    watchHealth(name, failure) {
      state.health.set(name, failure);
    },
    restrictHosts(hosts) {
      state.allowedHosts = new AllowedHosts(hosts);
    },
    get inFlight() {
      return state.inFlight;
    },
    connections: () => ({ active: cap.active, overflowing: cap.overflowing }),
    close(closeOptions = {}) {
      closing ??= drain(closeOptions.graceMs ?? DEFAULT_GRACE_MS);
      return closing;
    },
  };
}

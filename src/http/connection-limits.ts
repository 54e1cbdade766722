import type { ServerOptions } from 'node:http';

/** How long connections may take and how many may be open (TOOLGRAPH_MAX_CONNECTIONS, TOOLGRAPH_*_TIMEOUT_MS). */
export interface ConnectionLimits {
  /** Connections served at once, idle ones included (ConnectionCap). */
  readonly maxConnections: number;
  /** A new connection must deliver its whole request head, first byte included, within this. */
  readonly requestHeadTimeoutMs: number;
  /** An idle kept-alive connection is closed this long after its last response (plus node:http's one-second grace). */
  readonly keepAliveTimeoutMs: number;
}

/** The settings' defaults, for hosts started without settings (tests, benchmarks). */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = Object.freeze({
  maxConnections: 1024,
  requestHeadTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
});

/** node:http's own deadline for a whole request, body included (its default). */
const REQUEST_TIMEOUT_MS = 300_000;

/**
 * The node:http server options that enforce the deadlines. node:http times the head from the moment
 * it accepts a connection (checked on Node 22: a socket that never sends a byte gets 408 and is
 * closed), so the head deadline covers the first byte too. It checks both deadlines on a timer, every
 * 30 s by default, which would stretch a 10 s deadline to 40: here a quarter of the deadline, at most
 * a second.
 */
export type DeadlineOptions = Required<Pick<ServerOptions, 'headersTimeout' | 'requestTimeout' | 'keepAliveTimeout' | 'connectionsCheckingInterval'>>;

export function deadlineOptions(limits: Pick<ConnectionLimits, 'requestHeadTimeoutMs' | 'keepAliveTimeoutMs'>, requestTimeoutMs = REQUEST_TIMEOUT_MS): DeadlineOptions {
  const head = limits.requestHeadTimeoutMs;
  return {
    headersTimeout: head,
    // node:http refuses a head deadline longer than the whole-request one.
    requestTimeout: Math.max(head, requestTimeoutMs),
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(5, Math.min(1000, Math.floor(head / 4))),
  };
}

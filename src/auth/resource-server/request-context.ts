import type { IncomingMessage } from 'node:http';
import type { Principal } from '../../principal/index.ts';
import { unauthenticated } from './unauthenticated.ts';

/**
 * What the auth layer knows about the request being served, for code further down (the graph
 * service's principal, the tool server's delegation, which needs the caller's token). Set by
 * `requireBearer` on the request object once the token verified, and handed on explicitly (a tool
 * run gets it as its `request`).
 */
export interface RequestContext {
  readonly principal: Principal;
  /** The caller's bearer token as sent. Never log it. */
  readonly token: string;
  /** Where the protected resource metadata is (for challenges raised further down). */
  readonly resourceMetadataUrl: string;
}

/**
 * The context of each request that passed `requireBearer`, on the request object under a symbol only
 * this module holds (nothing from the wire can set it): a property read, where an AsyncLocalStorage
 * scope costs every promise of the process a hook once any scope is entered (Node 22), and a WeakMap
 * entry per request costs its ephemeron table and the collector more than the read saves.
 */
const CONTEXT = Symbol('toolgraph.requestContext');
type WithContext = IncomingMessage & { [CONTEXT]?: RequestContext };

/** Ties a verified context to its request (requireBearer, once the token verified). */
export function bindRequestContext(req: IncomingMessage, context: RequestContext): void {
  (req as WithContext)[CONTEXT] = context;
}

/** The context `requireBearer` bound to this request, or undefined (AUTH_TYPE=none, unprotected services). */
export function requestContextOf(req: IncomingMessage): RequestContext | undefined {
  return (req as WithContext)[CONTEXT];
}

/**
 * The principal `requireBearer` bound to this request. Without one it refuses: a service wired for
 * bearer authentication must never fall back to an anonymous caller. There is no ambient context
 * (no AsyncLocalStorage): the caller rides on the request, and code further down is handed it.
 */
export function requestPrincipal(req?: IncomingMessage): Principal {
  const context = req === undefined ? undefined : (req as WithContext)[CONTEXT];
  if (context === undefined) throw unauthenticated('missing', 'This request did not pass bearer authentication.');
  return context.principal;
}

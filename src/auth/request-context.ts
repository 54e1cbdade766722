import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import type { Principal } from './principal.ts';
import { unauthenticated } from './unauthenticated.ts';

/**
 * What the auth layer knows about the request being served, for code further down (the graph
 * service's principal, the tool server's delegation, which needs the caller's token). Set by
 * `requireBearer` on the request object once the token verified.
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

/**
 * For code that has no request object at hand (downstream credentials resolved without an explicit
 * context), entered with `runWithRequestContext`. Nothing in the server enters it: the request path
 * and the tool server (REST and MCP) hand the caller on explicitly.
 */
const storage = new AsyncLocalStorage<RequestContext>();

/** Ties a verified context to its request (requireBearer, once the token verified). */
export function bindRequestContext(req: IncomingMessage, context: RequestContext): void {
  (req as WithContext)[CONTEXT] = context;
}

/** The context `requireBearer` bound to this request, or undefined (AUTH_TYPE=none, unprotected services). */
export function requestContextOf(req: IncomingMessage): RequestContext | undefined {
  return (req as WithContext)[CONTEXT];
}

export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

/**
 * The context entered by `runWithRequestContext` (the MCP handler around a tool call), or undefined
 * outside one. `requireBearer` does not enter it: services read `requestContextOf(req)`.
 */
export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}

/**
 * The principal of the request being served: the one bound to `req` by `requireBearer`, else the
 * entered context's. Without either it refuses: a service wired for bearer authentication must
 * never fall back to an anonymous caller.
 */
export function requestPrincipal(req?: IncomingMessage): Principal {
  const context = (req === undefined ? undefined : (req as WithContext)[CONTEXT]) ?? storage.getStore();
  if (context === undefined) throw unauthenticated('missing', 'This request did not pass bearer authentication.');
  return context.principal;
}

import { AsyncLocalStorage } from 'node:async_hooks';
import type { Principal } from './principal.ts';
import { unauthenticated } from './unauthenticated.ts';

/**
 * What the auth layer knows about the request being served, for code further down (the graph
 * service's principal, the tool server's delegation, which needs the caller's token). Set by
 * `requireBearer` around the whole handling of one request.
 */
export interface RequestContext {
  readonly principal: Principal;
  /** The caller's bearer token as sent. Never log it. */
  readonly token: string;
  /** Where the protected resource metadata is (for challenges raised further down). */
  readonly resourceMetadataUrl: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

/** The context of the request being served, or undefined outside one (AUTH_TYPE=none, start-up). */
export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}

/**
 * The principal of the request being served. Outside a request that passed `requireBearer` it
 * refuses: a service wired for bearer authentication must never fall back to an anonymous caller.
 */
export function requestPrincipal(): Principal {
  const context = storage.getStore();
  if (context === undefined) throw unauthenticated('missing', 'This request did not pass bearer authentication.');
  return context.principal;
}

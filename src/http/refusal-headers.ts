import type { ToolgraphError } from '../errors/index.ts';

/**
 * The headers a refusal carries by its own nature, whichever route answers it: `Retry-After` when its
 * details say when to retry (`retryAfterSecs`: TG_OVERLOADED, TG_BODY_MEMORY_FULL), and
 * `Connection: close` on a 408 (RFC 9110 §15.5.9: the request never arrived in full, so the
 * connection is not reused, and node:http stops reading the rest of the body once the answer is out).
 * Headers the route passes win.
 */
export function refusalHeaders(error: ToolgraphError, headers: Record<string, string>): Record<string, string> {
  const retryAfter = error.details?.['retryAfterSecs'];
  const close = error.status === 408;
  if (typeof retryAfter !== 'number' && !close) return headers;
  return { ...(typeof retryAfter === 'number' ? { 'retry-after': String(retryAfter) } : {}), ...(close ? { connection: 'close' } : {}), ...headers };
}

import type { IncomingMessage } from 'node:http';

/**
 * Whether a request's method is one no route of this server reads a body of (RFC 9110 gives a body
 * on GET, HEAD, DELETE and OPTIONS no meaning), yet it carries one (a length past zero, or chunks).
 * Such a body is never read by a route, so node:http would buffer it while the answer is made (up
 * to its high-water mark of 64 KiB, which in one-byte chunks is 64 Ki objects: tens of MB per
 * connection) and pause; the host drops it as it arrives instead (dropBody).
 */
export function carriesUnreadBody(req: IncomingMessage): boolean {
  const method = req.method;
  if (method !== 'GET' && method !== 'HEAD' && method !== 'DELETE' && method !== 'OPTIONS') return false;
  const headers = req.headers;
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * Reads a body to its end, keeping none of it, then calls `next` (the route then sees a request
 * without a body left to read). A sender that never finishes is cut by node:http's whole-request
 * deadline; one that goes away never calls `next`.
 */
export function dropBody(req: IncomingMessage, next: () => void): void {
  req.once('end', next);
  req.resume();
}

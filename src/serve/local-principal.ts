import type { IncomingMessage } from 'node:http';
import { requestPrincipal } from '../auth/index.ts';
import type { ResolvedValues } from '../config/index.ts';
import type { Principal } from '../principal/index.ts';

const LOCAL: Principal = Object.freeze({ subject: 'local', scopes: Object.freeze(['*']) });

/**
 * Who calls the graph service. With AUTH_TYPE=none (the spec's default) every caller is the local
 * operator with every scope; the services bind 127.0.0.1 by default, so this is a single-user
 * development setup. With every other auth type (`jwt`, `remote`, and the proxies `oidc-proxy` and
 * `oauth-proxy`, which also sign MCP clients in) every service sits behind `requireBearer`, and the
 * principal is the verified token's, read from the request object `requireBearer` bound it to (a
 * settled promise: no async frame, no AsyncLocalStorage).
 */
export function principalResolverFor(values: Pick<ResolvedValues, 'authType'>): (req: IncomingMessage) => Promise<Principal> {
  // One settled promise for every request (no async frame per request).
  const local = Promise.resolve(LOCAL);
  if (values.authType === 'none') return () => local;
  return (req) => {
    // A request that did not pass requireBearer is refused (TG_UNAUTHENTICATED), as a rejection.
    try {
      return Promise.resolve(requestPrincipal(req));
    } catch (error) {
      return Promise.reject(error);
    }
  };
}

import type { IncomingMessage } from 'node:http';
import { ToolgraphError } from '../errors/index.ts';
import type { Principal } from '../graph/dispatch/index.ts';
import type { ResolvedValues } from '../config/index.ts';

const LOCAL: Principal = Object.freeze({ subject: 'local', scopes: Object.freeze(['*']) });

/**
 * With AUTH_TYPE=none (the spec's default) every caller is the local operator with every scope; the
 * services bind 127.0.0.1 by default, so this is a single-user development setup. Any other auth type
 * needs the OIDC transport layer, which this build does not have yet: start-up refuses it rather than
 * serving an unprotected graph under a setting that promises protection.
 */
export function principalResolverFor(values: Pick<ResolvedValues, 'authType'>): (req: IncomingMessage) => Promise<Principal> {
  if (values.authType !== 'none') {
    throw new ToolgraphError('TG_CONFIG_INVALID', `AUTH_TYPE ${values.authType}: this build serves only AUTH_TYPE=none; the OIDC transport layer is not part of it yet.`);
  }
  return async () => LOCAL;
}

import { ToolgraphError } from '../errors/index.ts';
import type { Principal } from './principal.ts';

/** The scopes the graph surfaces understand, as protected resource metadata advertises them (`*` works but is not advertised). */
export const GRAPH_SCOPES: readonly string[] = ['kg:read', 'kg:write', 'kg:admin', 'query:graphql', 'query:cypher', 'query:*'];

const READ_SCOPES = {
  graphql: Object.freeze(['kg:read', 'kg:write', 'kg:admin', 'query:graphql', 'query:*', '*']),
  cypher: Object.freeze(['kg:read', 'kg:write', 'kg:admin', 'query:cypher', 'query:*', '*']),
} as const;

/** Scopes that allow reading with a given query language (its `query:<language>` scope included); one frozen list per language. */
export function readScopes(language: 'graphql' | 'cypher'): readonly string[] {
  return READ_SCOPES[language];
}

/** Writes need a graph write scope: query scopes only ever allow reads. */
export const WRITE_SCOPES: readonly string[] = ['kg:write', 'kg:admin', '*'];

export function requireScope(principal: Principal, allowed: readonly string[], what: string): void {
  // A loop, not scopes.some(closure): this runs two or three times on every query.
  const scopes = principal.scopes;
  for (let i = 0; i < scopes.length; i++) if (allowed.includes(scopes[i]!)) return;
  throw new ToolgraphError('TG_INSUFFICIENT_SCOPE', `${what} needs one of the scopes ${allowed.join(', ')}; the token has ${principal.scopes.length === 0 ? 'none' : principal.scopes.join(', ')}.`, {
    details: { required: [...allowed], granted: [...principal.scopes] },
  });
}

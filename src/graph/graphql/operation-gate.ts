import type { GraphQLError, OperationDefinitionNode } from 'graphql';
import { isToolgraphError } from '../../errors/index.ts';
import { WRITE_SCOPES, readScopes, requireScope, type Principal } from '../../principal/index.ts';
import { graphqlError, toGraphQLError } from './graphql-errors.ts';

/**
 * What an operation needs before it runs, checked on every request (also when its document was
 * prepared by an earlier one): mutations only over POST, no subscriptions here, and the scope its
 * type needs (reads: a read scope; mutations: a write scope).
 */
export function gateOperation(operation: OperationDefinitionNode, method: 'GET' | 'POST', principal: Principal): GraphQLError | null {
  if (operation.operation === 'subscription') {
    return graphqlError('TG_SUBSCRIPTION_NOT_SERVED',
      'Subscriptions are not served here: they stream from the SSE carrier, GET /graphql/subscribe on its own loopback listener, which runs when SERVICE_GRAPHQL_ADDR (--graphql-addr) is set; each stream is authorised by an envelope signed by a key in SERVICE_GRAPHQL_SIGNER_JWKS (toolgraph envelope keygen, toolgraph envelope sign; see docs/carrier.md). Send queries and mutations to this endpoint.',
      { nodes: operation, http: { status: 400 } });
  }
  if (operation.operation === 'mutation' && method === 'GET') {
    return graphqlError('TG_METHOD_NOT_ALLOWED', 'A mutation needs POST; GET runs only queries.', { nodes: operation, http: { status: 405, headers: { allow: 'POST' } } });
  }
  try {
    if (operation.operation === 'mutation') requireScope(principal, WRITE_SCOPES, 'A GraphQL mutation');
    else requireScope(principal, readScopes('graphql'), 'A GraphQL query');
  } catch (error) {
    if (!isToolgraphError(error)) throw error;
    // TG_INSUFFICIENT_SCOPE: HTTP 403 whatever the media type.
    return toGraphQLError(error);
  }
  return null;
}

import type { GraphQLFieldResolver, GraphQLResolveInfo } from 'graphql';
import type { ExecState } from './exec-state.ts';
import { NullBubble } from './graphql-errors.ts';
import { queryRootValue } from './execute-query.ts';

/** What graphql-js resolvers find in the context value: the state the executor prepared. */
interface ResolverContext {
  readonly state: ExecState;
}

/** Every field of a shaped object is already computed under its response key. */
const shapedField: GraphQLFieldResolver<Record<string, unknown>, unknown> = (source, _args, _context, info) => source[info.path.key];

const rootField: GraphQLFieldResolver<unknown, ResolverContext> = (_source, _args, context, info: GraphQLResolveInfo) => {
  try {
    return queryRootValue(context.state, String(info.path.key), info.fieldNodes);
  } catch (error) {
    // graphql-js does the null-bubbling itself; our error already carries its path.
    throw error instanceof NullBubble ? error.error : error;
  }
};

const resolveLabel = (value: object, context: ResolverContext): string | undefined => context.state.labels?.get(value);

/**
 * Resolvers for graphql-js, used only for operations that mix introspection (`__schema`,
 * `__type`) with our fields: each Query field runs the same executor as the fast path and every
 * object field reads the value it shaped, so both paths give the same data. Mutations always run
 * through the executor (mutation-batch.ts), never through these. The schema assembler puts
 * `rootField` on every Query field, `shapedField` on every field of a label, connection or result
 * type, and `resolveLabel` on Node and every union.
 */
export const GENERIC_RESOLVERS = Object.freeze({
  // graphql-js hands them the shaped values and our context; the assembled schema itself is untyped.
  rootField: rootField as GraphQLFieldResolver<unknown, unknown>,
  shapedField: shapedField as GraphQLFieldResolver<unknown, unknown>,
  resolveLabel: resolveLabel as (value: unknown, context: unknown) => string | undefined,
});

/** The resolvers of the types every graph's schema has (buildSubgraphSchema's form). */
export function fixedTypeResolvers(nodeType = 'Node'): Record<string, Record<string, unknown>> {
  const shaped = (fields: readonly string[]) => Object.fromEntries(fields.map((f) => [f, shapedField]));
  return {
    Query: { _service: rootField },
    [nodeType]: { __resolveType: resolveLabel },
    PageInfo: shaped(['hasNextPage', 'hasPreviousPage', 'startCursor', 'endCursor']),
    DeleteResult: shaped(['ok', 'id']),
    EdgeResult: shaped(['ok']),
    _Service: shaped(['sdl']),
  };
}

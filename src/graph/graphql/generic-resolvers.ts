import type { GraphQLFieldResolver, GraphQLResolveInfo } from 'graphql';
import type { ExecState } from './exec-state.ts';
import type { GraphSchemaParts } from './graph-schema.ts';
import { NullBubble } from './graphql-errors.ts';
import { queryRootValue } from './execute-query.ts';

/** What graphql-js resolvers find in the context value: the state the executor prepared. */
export interface ResolverContext {
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
 * through the executor (mutation-batch.ts), never through these.
 */
export function genericResolvers(parts: GraphSchemaParts): Record<string, Record<string, unknown>> {
  const resolvers: Record<string, Record<string, unknown>> = {};
  const query: Record<string, unknown> = { _entities: rootField, _service: rootField };
  const objectTypes = ['PageInfo', 'DeleteResult', 'EdgeResult', '_Service'];
  for (const label of parts.model.labels) {
    query[label.label] = rootField;
    query[label.connectionType] = rootField;
    objectTypes.push(label.label, label.connectionType, label.edgeType);
  }
  resolvers['Query'] = query;
  for (const type of objectTypes) {
    resolvers[type] = Object.fromEntries(fieldNames(type, parts).map((f) => [f, shapedField]));
  }
  for (const union of ['Node', '_Entity', ...parts.model.unions.map((u) => u.name)]) {
    resolvers[union] = { __resolveType: resolveLabel };
  }
  return resolvers;
}

/** The fields of an object type we shape: labels' fields, and those of the fixed result types. */
function fieldNames(type: string, parts: GraphSchemaParts): string[] {
  const plan = parts.labels.get(type);
  if (plan) return [...plan.fields.keys()];
  if (parts.connectionTypes.has(type)) return ['edges', 'pageInfo'];
  if (parts.edgeTypes.has(type)) return ['node', 'cursor'];
  switch (type) {
    case 'PageInfo': return ['hasNextPage', 'hasPreviousPage', 'startCursor', 'endCursor'];
    case 'DeleteResult': return ['ok', 'id'];
    case 'EdgeResult': return ['ok'];
    case '_Service': return ['sdl'];
    default: return [];
  }
}

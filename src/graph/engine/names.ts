/// <reference lib="es2024.string" />
import { ToolgraphError, describeValue } from '../../errors/index.ts';

/** Graph names: a letter, then up to 63 letters, digits, `_` or `-` (safe in paths, URLs and SQL). */
export const GRAPH_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** Labels, property names and edge types become GraphQL names; `__` is reserved for introspection. */
const GRAPHQL_NAME_PATTERN = /^[_A-Za-z][_0-9A-Za-z]*$/;

const MAX_NODE_ID_LENGTH = 256;

export function assertGraphName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !GRAPH_NAME_PATTERN.test(name)) {
    throw new ToolgraphError('TG_GRAPH_NAME_INVALID',
      `Graph name must match ${GRAPH_NAME_PATTERN.source} (a letter, then up to 63 letters, digits, "_" or "-"); got ${describeValue(name)}.`);
  }
}

/**
 * Labels that would clash with the types the GraphQL schema always has (see src/graph/schema), and
 * labels starting with `_` (federation's `_Any`, `_Entity`, `_Service`).
 */
const RESERVED_LABELS: ReadonlySet<string> = new Set([
  'Query', 'Mutation', 'Subscription', 'Node', 'PageInfo', 'EdgeResult', 'DeleteResult', 'JSON',
  'ID', 'String', 'Int', 'Float', 'Boolean',
]);

export type NameKind = 'label' | 'property name' | 'edge type';

export function assertGraphqlName(kind: NameKind, name: unknown): asserts name is string {
  if (typeof name !== 'string' || !GRAPHQL_NAME_PATTERN.test(name) || name.startsWith('__')) {
    throw new ToolgraphError('TG_NAME_INVALID',
      `${kind === 'edge type' ? 'An' : 'A'} ${kind} must be a GraphQL name (${GRAPHQL_NAME_PATTERN.source}, not starting with "__"); got ${describeValue(name)}.`);
  }
  if (kind === 'label' && (RESERVED_LABELS.has(name) || name.startsWith('_'))) {
    throw new ToolgraphError('TG_NAME_INVALID',
      `The label ${describeValue(name)} is reserved (${[...RESERVED_LABELS].join(', ')}, or a leading "_") because the GraphQL schema uses it.`);
  }
  if (kind === 'property name' && name === 'id') {
    throw new ToolgraphError('TG_NAME_INVALID', 'The property name "id" is reserved for the node id; give the id as the node\'s id instead.');
  }
}

/** Ids must be well-formed Unicode: a lone surrogate has no code point to sort by. */
export function assertNodeId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_NODE_ID_LENGTH || !id.isWellFormed()) {
    throw new ToolgraphError('TG_VALUE_INVALID',
      `A node id must be a string of 1 to ${MAX_NODE_ID_LENGTH} characters of well-formed Unicode; got ${describeValue(id)}.`);
  }
}


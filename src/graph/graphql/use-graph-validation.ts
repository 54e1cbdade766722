import type { Plugin } from 'graphql-yoga';
import type { GraphQLError } from 'graphql';
import type { GraphqlRequestContext } from './execute-operation.ts';
import { graphqlError } from './graphql-errors.ts';

/** A validation error on a Query field that is no label: the spec's wording, with our code. */
const UNKNOWN_ROOT = /^Cannot query field "([^"]+)" on type "Query"\./;

/**
 * The spec's text for a validation error on a Query field that is no label, or null when `message`
 * is another validation error. With introspection off the schema is not advertised, so neither are the labels.
 * `roots` are the label list fields; a namespace's `prefix` is named (its fields are `<prefix><Label>`).
 */
export function noNodeTypeMessage(message: string, roots: readonly string[], introspection: boolean, prefix = ''): string | null {
  const match = UNKNOWN_ROOT.exec(message);
  if (match === null) return null;
  const known = !introspection ? '' : roots.length === 0 ? ' (this graph has no labels yet)' : ` (${roots.join(', ')}, each also as ${prefix}<Label>Connection)`;
  const prefixed = prefix === '' ? '' : ` prefixed by the graph's namespace, "${prefix}"`;
  return `GraphQL: no node type "${match[1]!}" in this graph; root fields must be node labels${prefixed}${known}, or _entities and _service.`;
}

/** The label list fields of a schema, as the unknown-root-field message lists them. */
export function listFieldsOf(graphSchema: GraphqlRequestContext['graphSchema']): string[] {
  return graphSchema.model.labels.map((l) => l.listField);
}

function noNodeType(error: GraphQLError, context: GraphqlRequestContext, introspection: boolean): GraphQLError {
  const message = noNodeTypeMessage(error.message, listFieldsOf(context.graphSchema), introspection, context.graphSchema.names.fieldPrefix)!;
  return graphqlError('TG_GRAPHQL_NO_NODE_TYPE', message, { nodes: error.nodes, http: { status: 400, spec: true } });
}

/**
 * Our part of Yoga's envelop pipeline: every request validates against the schema of its graph's
 * catalogue epoch, and validation errors carry TG_ codes (the spec's text for an unknown root field).
 */
export function useGraphValidation(introspection: boolean): Plugin<GraphqlRequestContext> {
  return {
    onEnveloped({ context, setSchema }) {
      if (context !== undefined && context !== null) setSchema(context.graphSchema.schema);
    },
    onValidate({ context }) {
      return ({ result, setResult }) => {
        if (result.length === 0 || context === null) return;
        setResult(result.map((error) => {
          if (UNKNOWN_ROOT.test(error.message)) return noNodeType(error, context, introspection);
          if (typeof error.extensions?.['code'] === 'string') return error;
          return graphqlError('TG_GRAPHQL_INVALID', error.message, { nodes: error.nodes, http: { status: 400, spec: true } });
        }));
      };
    },
  };
}

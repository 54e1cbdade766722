import {
  GraphQLError, Kind, execute as graphqlExecute, getVariableValues,
  type ExecutionArgs, type ExecutionResult, type FragmentDefinitionNode, type OperationDefinitionNode,
} from 'graphql';
import type { Principal } from '../../principal/index.ts';
import { collectFields } from './collect-fields.ts';
import type { ExecState, ExecutionMeter } from './exec-state.ts';
import { executeQueryFields } from './execute-query.ts';
import type { GraphSchema } from './graph-schema.ts';
import { graphqlError } from './graphql-errors.ts';
import type { OperationPricing } from './price-operation.ts';
import { executeMutationFields } from './mutation-batch.ts';
import { visibleView, type GraphqlEngine } from './visible-view.ts';

/** What our executor needs in the GraphQL context value (the pipeline puts it there). */
export interface GraphqlRequestContext {
  readonly graph: string;
  readonly principal: Principal;
  readonly engine: GraphqlEngine;
  readonly graphSchema: GraphSchema;
  readonly meter: ExecutionMeter;
  /** Cost analysis after variable coercion (price-operation.ts). */
  readonly pricing: OperationPricing;
  /** Most items a list field without a page may return (TOOLGRAPH_GRAPHQL_LIST_LIMIT). */
  readonly listLimit: number;
  /** Set by the executor for graphql-js resolvers (see generic-resolvers.ts). */
  state?: ExecState;
}

const NO_VARIABLES: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
/** An operation that declares no variables has these, whatever the request sent. */
const NONE_COERCED = Object.freeze({ coerced: NO_VARIABLES });

/** The operation to run, with graphql-js's messages when there is none. */
export function selectOperation(document: ExecutionArgs['document'], operationName: string | null | undefined): OperationDefinitionNode | GraphQLError {
  let found: OperationDefinitionNode | undefined;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    if (operationName === null || operationName === undefined) {
      if (found !== undefined) return graphqlError('TG_GRAPHQL_INVALID', 'Must provide operation name if query contains multiple operations.', { http: { status: 400, spec: true } });
      found = definition;
    } else if (definition.name?.value === operationName) {
      found = definition;
    }
  }
  if (found !== undefined) return found;
  return graphqlError('TG_GRAPHQL_INVALID', operationName ? `Unknown operation named "${operationName}".` : 'Must provide an operation.', { http: { status: 400, spec: true } });
}

const fragmentsByDocument = new WeakMap<object, Record<string, FragmentDefinitionNode>>();

/** The document's fragments by name (computed once per document). */
export function fragmentsOf(document: ExecutionArgs['document']): Record<string, FragmentDefinitionNode> {
  const known = fragmentsByDocument.get(document);
  if (known !== undefined) return known;
  const fragments: Record<string, FragmentDefinitionNode> = Object.create(null) as Record<string, FragmentDefinitionNode>;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  }
  fragmentsByDocument.set(document, fragments);
  return fragments;
}

function result(state: ExecState, data: Record<string, unknown> | null, version: number): ExecutionResult {
  return state.errors.length > 0
    ? { errors: state.errors, data, extensions: { version } }
    : { data, extensions: { version } };
}

/**
 * Executes a validated operation (`operation`, selected from the document once, when the pipeline
 * prepared it) against one schema and one view of the graph. Queries run (and
 * return) synchronously unless they outlast a time slice of their budget: they then yield the event
 * loop between slices of large levels (work.ts), inside the engine's read of the graph, which holds
 * commits back, so they still see one graph version. Mutations commit one batch first
 * (mutation-batch.ts). Operations that select `__schema` or `__type` go through graphql-js, whose
 * resolvers read what the same executor computed (to the end, without pausing).
 */
export function executeOperation(args: ExecutionArgs, operation: OperationDefinitionNode): ExecutionResult | Promise<ExecutionResult> {
  const context = args.contextValue as GraphqlRequestContext;
  const fragments = fragmentsOf(args.document);
  // Thousands of _entities representations are refused as sent, before coercing them costs anything.
  const tooMany = context.pricing.representationsRefusal(operation, fragments, (args.variableValues ?? NO_VARIABLES) as Record<string, unknown>);
  if (tooMany !== null) return { errors: [tooMany] };
  const definitions = operation.variableDefinitions ?? [];
  const coerced: { errors?: readonly GraphQLError[]; coerced?: Record<string, unknown> } = definitions.length === 0 ? NONE_COERCED : getVariableValues(args.schema, definitions, (args.variableValues ?? {}) as Record<string, unknown>, { maxErrors: 50 });
  if (coerced.errors !== undefined) {
    return {
      errors: coerced.errors.map((e) => new GraphQLError(e.message, {
        nodes: e.nodes ?? null, extensions: { code: 'TG_GRAPHQL_INVALID', http: { status: 400, spec: true } },
      })),
    };
  }
  const variables = coerced.coerced ?? NO_VARIABLES;
  // Priced with the variables' values, before anything is read.
  const refused = context.pricing.refusal(args.schema, operation, fragments, variables);
  if (refused !== null) return { errors: [refused] };
  const state: ExecState = {
    graphSchema: context.graphSchema,
    view: visibleView(context.engine, context.graph, context.principal),
    variables,
    fragments,
    errors: [],
    meter: context.meter,
    listLimit: context.listLimit,
    labels: null,
    reads: null,
  };
  if (operation.operation === 'mutation') {
    const fields = collectFields(state, 'Mutation', [operation.selectionSet]);
    return executeMutationFields(state, fields, context).then((outcome) => result(state, outcome.data, outcome.version));
  }
  const fields = collectFields(state, 'Query', [operation.selectionSet]);
  let introspects = false;
  for (const nodes of fields.values()) {
    const name = nodes[0]!.name.value;
    if (name === '__schema' || name === '__type') introspects = true;
  }
  if (!introspects) {
    const data = executeQueryFields(state, fields);
    return data instanceof Promise ? data.then((d) => result(state, d, state.view.version)) : result(state, data, state.view.version);
  }
  const slow: ExecState = { ...state, labels: new WeakMap() };
  context.state = slow;
  return Promise.resolve(graphqlExecute({ ...args, variableValues: args.variableValues ?? {} })).then((executed) => {
    const errors = [...(executed.errors ?? []), ...slow.errors];
    return errors.length > 0
      ? { errors, data: executed.data ?? null, extensions: { version: slow.view.version } }
      : { data: executed.data ?? null, extensions: { version: slow.view.version } };
  });
}

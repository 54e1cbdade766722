import { type GraphQLError, Kind, getVariableValues, validate, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { ToolgraphError } from '../../errors/index.ts';
import type { CarrierPrincipal, SubscriptionExecutor, SubscriptionRequest, SubscriptionResult } from '../carrier/index.ts';
import type { GraphCatalogue, GraphView } from '../engine/index.ts';
import { collectFields } from './collect-fields.ts';
import { UNMETERED, type ExecState } from './exec-state.ts';
import { fragmentsOf } from './execute-operation.ts';
import { queryRootValue } from './execute-query.ts';
import type { GraphSchema } from './graph-schema.ts';
import { GraphSchemaCache } from './graph-schema-builder.ts';
import { NullBubble } from './graphql-errors.ts';

/** A subscription validated against one catalogue epoch, its variables coerced: shared by every subscriber. */
export interface PreparedSubscription {
  readonly graphSchema: GraphSchema;
  readonly operation: OperationDefinitionNode;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>;
}

export interface SubscriptionExecutorOptions {
  /**
   * Row-level security: the view of `view.name` that `principal` may read (graph/access). Every row
   * a frame carries is read through it, as every GraphQL request reads through `visibleView`.
   */
  readonly restrict: (view: GraphView, principal: CarrierPrincipal) => GraphView;
  /** Schemas by catalogue epoch, shared with the GraphQL surface when given. */
  readonly schemas?: GraphSchemaCache;
}

/** The port, answered synchronously: a run reads one graph version with no `await` inside. */
export interface GraphqlSubscriptionExecutor extends SubscriptionExecutor<PreparedSubscription> {
  prepare(catalogue: GraphCatalogue, request: SubscriptionRequest): PreparedSubscription;
  run(view: GraphView, prepared: PreparedSubscription, principal: CarrierPrincipal): SubscriptionResult;
}

function invalid(message: string): ToolgraphError {
  return new ToolgraphError('TG_GRAPHQL_INVALID', message);
}

function subscriptionOf(request: SubscriptionRequest): OperationDefinitionNode {
  const operations = request.document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operations.length !== 1) throw invalid(`GraphQL: a subscription document holds exactly one operation; this one holds ${operations.length}.`);
  const operation = operations[0]!;
  if (operation.operation !== 'subscription') {
    throw invalid(`GraphQL: the carrier serves subscription operations only; this is a ${operation.operation}. Send queries and mutations to /graphql/{graph} on the main port.`);
  }
  return operation;
}

function errorOf(error: GraphQLError): SubscriptionResult['errors'] & object {
  return [{
    message: error.message,
    ...(error.path ? { path: error.path } : {}),
    ...(error.extensions?.['code'] !== undefined ? { extensions: { code: error.extensions['code'] } } : {}),
  }];
}

/**
 * The carrier's executor port, on the GraphQL surface's own executor: a Subscription root field
 * `Label(first, limit, filters…)` is answered exactly like the Query field of the same name (one
 * label scan, then one frontier expansion per edge field and level), over the principal's
 * restricted view, so a frame equals the result of the matching query.
 */
export function createSubscriptionExecutor(options: SubscriptionExecutorOptions): GraphqlSubscriptionExecutor {
  const schemas = options.schemas ?? new GraphSchemaCache();
  return {
    prepare(catalogue: GraphCatalogue, request: SubscriptionRequest): PreparedSubscription {
      const graphSchema = schemas.get(catalogue);
      const operation = subscriptionOf(request);
      const errors = validate(graphSchema.schema, request.document);
      if (errors.length > 0) {
        const first = errors[0]!.message;
        const code = /^Cannot query field "[^"]*" on type "Subscription"/.test(first) ? 'TG_GRAPHQL_NO_NODE_TYPE' : 'TG_GRAPHQL_INVALID';
        throw new ToolgraphError(code, code === 'TG_GRAPHQL_NO_NODE_TYPE'
          ? `GraphQL: no node type for a subscription root field: ${first} Subscription root fields must be node labels.`
          : `GraphQL: ${errors.map((e) => e.message).join(' ')}`);
      }
      const coerced = getVariableValues(graphSchema.schema, operation.variableDefinitions ?? [], { ...(request.variables ?? {}) }, { maxErrors: 10 });
      if (coerced.errors !== undefined) throw invalid(`GraphQL: ${coerced.errors.map((e) => e.message).join(' ')}`);
      return { graphSchema, operation, variables: coerced.coerced, fragments: fragmentsOf(request.document) };
    },

    run(view: GraphView, prepared: PreparedSubscription, principal: CarrierPrincipal): SubscriptionResult {
      const state: ExecState = {
        graphSchema: prepared.graphSchema,
        view: options.restrict(view, principal),
        variables: prepared.variables,
        fragments: prepared.fragments,
        errors: [],
        meter: UNMETERED,
        // The carrier bounds subscriptions with its own rules (graph/carrier subscription-rules.ts).
        listLimit: Infinity,
        labels: null,
      };
      const data: Record<string, unknown> = {};
      try {
        for (const [key, nodes] of collectFields(state, 'Subscription', [prepared.operation.selectionSet])) {
          data[key] = queryRootValue(state, key, nodes);
        }
      } catch (error) {
        if (!(error instanceof NullBubble)) throw error;
        return { data: null, errors: errorOf(error.error) };
      }
      return state.errors.length > 0 ? { data, errors: state.errors.flatMap(errorOf) } : { data };
    },
  };
}

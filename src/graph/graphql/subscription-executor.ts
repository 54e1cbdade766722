import { type GraphQLError, Kind, getVariableValues, validate, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { ToolgraphError } from '../../errors/index.ts';
import { DEFAULT_BUDGET_LIMITS, type BudgetLimits, type QueryBudgetOptions } from '../budget/index.ts';
import type { CarrierPrincipal, SubscriptionEvaluation, SubscriptionExecutor, SubscriptionRequest, SubscriptionResult } from '../carrier/index.ts';
import type { GraphCatalogue, GraphView } from '../engine/index.ts';
import { budgetMeters } from './budget-meter.ts';
import { collectFields } from './collect-fields.ts';
import type { ExecState } from './exec-state.ts';
import { fragmentsOf } from './execute-operation.ts';
import { executeQueryFields } from './execute-query.ts';
import type { GraphSchema } from './graph-schema.ts';
import { GraphSchemaCache } from './graph-schema-builder.ts';
import { ReadRecorder } from './read-recorder.ts';

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
  /** The execution budget of every evaluation: the queries' own (TOOLGRAPH_QUERY_*), their defaults when omitted. */
  readonly limits?: BudgetLimits;
  /** Each evaluation's budget options (its slice, clock and overload signal): tests. */
  readonly budget?: QueryBudgetOptions;
  /**
   * The most items of a list without first/limit (TOOLGRAPH_GRAPHQL_LIST_LIMIT); a longer one
   * refuses the evaluation, as it refuses a query. The carrier's query rules price such a list at it.
   */
  readonly listLimit: number;
}

/** The port: prepared synchronously; a run answers at once unless it ran past a slice of its budget and paused. */
export interface GraphqlSubscriptionExecutor extends SubscriptionExecutor<PreparedSubscription> {
  prepare(catalogue: GraphCatalogue, request: SubscriptionRequest): PreparedSubscription;
  run(view: GraphView, prepared: PreparedSubscription, principal: CarrierPrincipal): SubscriptionEvaluation | Promise<SubscriptionEvaluation>;
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

function errorOf(error: GraphQLError): NonNullable<SubscriptionResult['errors']> {
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
 * restricted view, under the queries' execution budget and list limit, so a frame equals the result
 * of the matching query. Each run records what it read (read-recorder.ts).
 */
export function createSubscriptionExecutor(options: SubscriptionExecutorOptions): GraphqlSubscriptionExecutor {
  const schemas = options.schemas ?? new GraphSchemaCache();
  const meter = budgetMeters(options.limits ?? DEFAULT_BUDGET_LIMITS, options.budget);
  const listLimit = options.listLimit;
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

    run(view: GraphView, prepared: PreparedSubscription, principal: CarrierPrincipal): SubscriptionEvaluation | Promise<SubscriptionEvaluation> {
      const restricted = options.restrict(view, principal);
      const reads = new ReadRecorder(restricted !== view, view.catalogue);
      const state: ExecState = {
        graphSchema: prepared.graphSchema,
        view: restricted,
        variables: prepared.variables,
        fragments: prepared.fragments,
        errors: [],
        meter: meter(),
        listLimit,
        labels: null,
        reads,
      };
      // A budget refusal throws (or rejects): it ends the subscription, it is not a field error.
      const data = executeQueryFields(state, collectFields(state, 'Subscription', [prepared.operation.selectionSet]));
      return data instanceof Promise ? data.then((d) => evaluation(state, d, reads)) : evaluation(state, data, reads);
    },
  };
}

/** A run's frame and reads: `data` null when a root field failed (every root is non-null), with every field error. */
function evaluation(state: ExecState, data: Record<string, unknown> | null, reads: ReadRecorder): SubscriptionEvaluation {
  const result: SubscriptionResult = state.errors.length > 0 ? { data, errors: state.errors.flatMap(errorOf) } : { data };
  return { result, reads: reads.unbounded ? null : reads };
}

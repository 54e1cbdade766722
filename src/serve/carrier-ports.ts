import type { ResolvedValues } from '../config/index.ts';
import { createCarrierAccess, restrictionFor } from '../graph/access/index.ts';
import type { CarrierAccess, SubscriptionExecutor } from '../graph/carrier/index.ts';
import type { GraphEngine } from '../graph/engine/index.ts';
import { createSubscriptionExecutor } from '../graph/graphql/index.ts';
import { budgetLimitsOf } from './budget-limits.ts';

/** What the subscription carrier needs from the rest of the graph services. */
export interface CarrierPorts {
  /** The GraphQL surface's subscription executor (graph/graphql). */
  readonly executor: SubscriptionExecutor;
  /** The access module's read ACL and visibility keys (graph/access). */
  readonly access: CarrierAccess;
}

/** The settings the product's executor runs under: the queries' execution budget and list limit. */
export type CarrierPortSettings = Parameters<typeof budgetLimitsOf>[0] & Pick<ResolvedValues, 'graphqlListLimit'>;

/**
 * The product's carrier ports: the GraphQL surface's executor, reading every frame through the
 * access module's row-level security under the execution budget and list limit of queries
 * (TOOLGRAPH_QUERY_*, TOOLGRAPH_GRAPHQL_LIST_LIMIT), and the access module's read ACL and
 * visibility keys. Both ask the same engine, so a frame shows exactly what a GraphQL request of the
 * same principal would. Tests may hand the carrier other ports (test/support); the product never
 * runs without these.
 */
export function productCarrierPorts(engine: GraphEngine, values: CarrierPortSettings): CarrierPorts {
  return {
    executor: createSubscriptionExecutor({ restrict: restrictionFor(engine), limits: budgetLimitsOf(values), listLimit: values.graphqlListLimit }),
    access: createCarrierAccess(engine),
  };
}

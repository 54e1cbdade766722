import { createCarrierAccess, restrictionFor } from '../graph/access/index.ts';
import type { CarrierAccess, SubscriptionExecutor } from '../graph/carrier/index.ts';
import type { GraphEngine } from '../graph/engine/index.ts';
import { createSubscriptionExecutor } from '../graph/graphql/index.ts';

/** What the subscription carrier needs from the rest of the graph services. */
export interface CarrierPorts {
  /** The GraphQL surface's subscription executor (graph/graphql). */
  readonly executor: SubscriptionExecutor;
  /** The access module's read ACL and visibility keys (graph/access). */
  readonly access: CarrierAccess;
}

/**
 * The product's carrier ports: the GraphQL surface's executor, reading every frame through the
 * access module's row-level security, and the access module's read ACL and visibility keys. Both
 * ask the same engine, so a frame shows exactly what a GraphQL request of the same principal would.
 * Tests may hand the carrier other ports (test/support); the product never runs without these.
 */
export function productCarrierPorts(engine: GraphEngine): CarrierPorts {
  return {
    executor: createSubscriptionExecutor({ restrict: restrictionFor(engine) }),
    access: createCarrierAccess(engine),
  };
}

import type { CarrierAccess, SubscriptionExecutor } from '../graph/carrier/index.ts';
import type { GraphEngine } from '../graph/engine/index.ts';
import type { Logger } from '../log/index.ts';

/** What the subscription carrier needs from the rest of the graph services. */
export interface CarrierPorts {
  /** The GraphQL surface's subscription executor (graph/graphql). */
  readonly executor: SubscriptionExecutor;
  /** The access module's read ACL and visibility keys (graph/access). */
  readonly access: CarrierAccess;
}

/**
 * The product's carrier ports. The executor comes from the GraphQL surface (issue 8) and the access
 * check from graph/access (issue 9); neither is part of this build yet, so there are none and the
 * carrier refuses to start. Wire them here when they land, for example
 *   return { executor: createSubscriptionExecutor(engine), access: createCarrierAccess(engine) };
 * Never a stand-in: the test doubles live in test/support.
 */
export function productCarrierPorts(_engine: GraphEngine, _logger: Logger): CarrierPorts | undefined {
  return undefined;
}

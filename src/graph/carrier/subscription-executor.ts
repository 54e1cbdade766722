import type { DocumentNode } from 'graphql';
import type { GraphCatalogue, GraphView } from '../engine/index.ts';
import type { CarrierPrincipal } from './carrier-principal.ts';
import type { SubscriptionReads } from './subscription-reads.ts';

/** A subscription as the carrier hands it over: already past the carrier's query rules. */
export interface SubscriptionRequest {
  readonly query: string;
  /** `query` parsed once by the carrier (graphql-js AST). */
  readonly document: DocumentNode;
  readonly variables: Readonly<Record<string, unknown>> | null;
}

/** One GraphQL error as it travels in a frame. */
interface SubscriptionError {
  readonly message: string;
  readonly path?: readonly (string | number)[];
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/** A GraphQL execution result of the Subscription root, ready for JSON.stringify. */
export interface SubscriptionResult {
  readonly data?: Readonly<Record<string, unknown>> | null;
  readonly errors?: readonly SubscriptionError[];
}

/** One run of the executor: the frame's result, and what the run read (null: it cannot say, so every change re-runs it). */
export interface SubscriptionEvaluation {
  readonly result: SubscriptionResult;
  readonly reads: SubscriptionReads | null;
}

/**
 * The executor port: the GraphQL surface (graph/graphql) implements it; the carrier never executes
 * GraphQL itself. `P` is the executor's own prepared form, opaque to the carrier.
 */
export interface SubscriptionExecutor<P = unknown> {
  /**
   * Validates the subscription against the graph's current schema (built from `catalogue`; no row is
   * read) and coerces its variables. Throws a ToolgraphError (TG_GRAPHQL_INVALID,
   * TG_GRAPHQL_NO_NODE_TYPE, TG_QUERY_TOO_COMPLEX) to refuse it. The result must not depend on who
   * asks: the carrier shares it between principals.
   */
  prepare(catalogue: GraphCatalogue, request: SubscriptionRequest): P | Promise<P>;

  /**
   * Executes the Subscription selection against one view for one principal, with the access
   * module's row-level security applied, under the execution budget of queries, and returns the
   * result (field errors in-band) with what it read. The carrier runs it inside the engine's
   * `readNow`, so it may pause between slices and still read one graph version. Over its budget it
   * throws the budget's refusal (TG_QUERY_BUDGET_EXCEEDED, or TG_OVERLOADED while the process sheds load).
   */
  run(view: GraphView, prepared: P, principal: CarrierPrincipal): SubscriptionEvaluation | Promise<SubscriptionEvaluation>;
}

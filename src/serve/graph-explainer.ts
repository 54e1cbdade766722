import type { GraphEngine } from '../graph/engine/index.ts';
import { explainGraphql } from '../graph/graphql/index.ts';
import type { GraphExplainer } from '../tools/index.ts';

/**
 * The `graph.explain` action of this process's own graph service: the equivalent Cypher and the
 * executor's plan from the graph's catalogue (nothing is run, no data is read). With introspection
 * off, an unknown root field's message leaves the label list out, as the GraphQL endpoint does.
 */
export function graphExplainerFor(engine: GraphEngine, introspection: boolean): GraphExplainer {
  return async (input) => {
    const explanation = explainGraphql(engine, input.graph, input.query, { variables: input.variables ?? null, introspection });
    return {
      graph: explanation.graph,
      plan: { operation: explanation.operation, cypher: explanation.cypher, steps: explanation.steps, text: explanation.text },
    };
  };
}

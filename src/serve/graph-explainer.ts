import { graphNotFound, mayRead } from '../graph/access/index.ts';
import type { GraphEngine } from '../graph/engine/index.ts';
import { explainGraphql } from '../graph/graphql/index.ts';
import type { GraphExplainer } from '../tools/index.ts';

/**
 * The `graph.explain` action of this process's own graph service: the equivalent Cypher and the
 * executor's plan from the graph's catalogue (nothing is run, no data is read). With introspection
 * off, an unknown root field's message leaves the label list out, as the GraphQL endpoint does.
 * A graph the caller may not read is answered as a missing one, as every graph surface does, so
 * explain never shows the schema of a graph the access policy withholds. Without a verified
 * request (AUTH_TYPE=none, stdio) the caller is the local operator, who may read everything.
 */
export function graphExplainerFor(engine: GraphEngine, introspection: boolean): GraphExplainer {
  return async (input, context) => {
    const principal = context.request?.principal;
    if (principal !== undefined && !mayRead(engine, input.graph, principal)) throw graphNotFound(input.graph);
    const explanation = explainGraphql(engine, input.graph, input.query, { variables: input.variables ?? null, introspection });
    return {
      graph: explanation.graph,
      plan: { operation: explanation.operation, cypher: explanation.cypher, steps: explanation.steps, text: explanation.text },
    };
  };
}

import type { GraphEngine } from '../../../src/graph/engine/index.ts';

/** Everything a reader can see in an engine, in a comparable form. */
export function engineState(engine: GraphEngine): unknown {
  return engine.listGraphs().map((summary) => {
    const view = engine.view(summary.name);
    return { ...summary, nodes: [...view.allNodes()], edges: [...view.allEdges()] };
  });
}

import type { GraphEngine } from '../graph/engine/index.ts';
import { sdlFromCatalogue } from '../graph/schema/index.ts';
import { DEMO_GRAPH } from './constants.ts';

/**
 * The demo graph's SDL as it is now, which the trusted GraphQL documents are written against (the
 * tool server checks them against it before it lists them as tools); undefined while the graph does
 * not exist (dropped, or a store opened without it).
 */
export function demoGraphSdl(engine: GraphEngine): () => string | undefined {
  return () => {
    if (!engine.listGraphs().some((g) => g.name === DEMO_GRAPH)) return undefined;
    return sdlFromCatalogue(engine.view(DEMO_GRAPH).catalogue);
  };
}

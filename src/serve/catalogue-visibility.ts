import { isAdmin, mayRead, type AccessSource } from '../graph/access/index.ts';
import type { CatalogueVisibility, GraphCatalogueWatch } from '../manifest/index.ts';

/**
 * The catalogue's one access decision (every surface of the catalogue asks it: GET /schemas/*, the
 * `schemas` tool over REST and MCP): entries of a live graph's source are shown only to principals
 * its access policy lets read the graph (kg:admin sees all); entries of other sources (tools, the
 * static reference schema) are public.
 */
export function catalogueVisibility(engine: AccessSource, watch: Pick<GraphCatalogueWatch, 'graphOfSource'>): CatalogueVisibility {
  return (principal) => {
    if (isAdmin(principal)) return undefined;
    const readable = new Map<string, boolean>();
    return (entry) => {
      const graph = watch.graphOfSource(entry.source);
      if (graph === undefined) return true;
      let may = readable.get(graph);
      if (may === undefined) readable.set(graph, (may = mayRead(engine, graph, principal)));
      return may;
    };
  };
}

import type { IncomingMessage } from 'node:http';
import { isAdmin, mayRead, type AccessSource } from '../graph/access/index.ts';
import type { CatalogueEntryFilter, GraphCatalogueWatch } from '../manifest/index.ts';
import type { Principal } from '../principal/index.ts';

/**
 * The catalogue's per-caller filter: entries of a live graph's source are shown only to principals
 * its access policy lets read the graph (kg:admin sees all); entries of other sources (tools, the
 * static reference schema) are public.
 */
export function catalogueVisibility(engine: AccessSource, watch: Pick<GraphCatalogueWatch, 'graphOfSource'>, resolvePrincipal: (req: IncomingMessage) => Promise<Principal>): CatalogueEntryFilter {
  return async (req) => {
    const principal = await resolvePrincipal(req);
    if (isAdmin(principal)) return null;
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

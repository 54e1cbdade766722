import type { CarrierPrincipal } from './carrier-principal.ts';

/**
 * The access port: the carrier asks it, never decides itself, whether a principal may read a graph.
 * The access module (graph/access: per-graph read ACL and default-deny row-level security) implements
 * it; tests use doubles.
 */
export interface CarrierAccess {
  /**
   * `null` when the graph's current read ACL denies `principal`; otherwise its visibility key for
   * this graph: principals with equal keys must see exactly the same rows (the carrier evaluates a
   * subscription once per key and sends the result to all of them). The key must change whenever
   * what the principal may see changes for any reason but graph data (a policy edit, a new group).
   *
   * Synchronous and cheap: it is called before every frame and on every keepalive tick.
   */
  visibility(principal: CarrierPrincipal, graph: string): string | null;
}

import type { BatchRequest, CommitResult, GraphView } from '../engine/index.ts';
import type { Principal } from '../dispatch/index.ts';

/** What the GraphQL surface needs from the graph engine. */
export interface GraphqlEngine {
  hasGraph(name: string): boolean;
  view(name: string): GraphView;
  /** Runs `work` as a read of one graph version: commits arriving meanwhile apply after it (GraphEngine.read). */
  read<T>(name: string, work: (view: GraphView) => T | Promise<T>): Promise<T>;
  commit(batch: BatchRequest): Promise<CommitResult>;
}

/**
 * The one visibility function of the GraphQL surface: every read a request makes (scans,
 * expansions, entity lookups, the objects mutations return) goes through the view this returns.
 * Today a principal holding a read scope (checked before) sees the whole graph. ACL and row-level
 * security (src/graph/access, the next issue) return a filtering GraphView here instead, and no
 * resolver changes.
 */
export function visibleView(engine: GraphqlEngine, graph: string, principal: Principal): GraphView {
  void principal;
  return engine.view(graph);
}

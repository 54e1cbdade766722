import type { Principal } from '../../principal/index.ts';
import type { BatchRequest, CommitResult, GraphView, StoredAccess } from '../engine/index.ts';
import { grantOf, readableView, writableBatch } from '../access/index.ts';

/** What the GraphQL surface needs from the graph engine. */
export interface GraphqlEngine {
  hasGraph(name: string): boolean;
  view(name: string): GraphView;
  /** Runs `work` as a read of one graph version: commits arriving meanwhile apply after it (GraphEngine.read). */
  read<T>(name: string, work: (view: GraphView) => T | Promise<T>): Promise<T>;
  /** `read`, answering at once when `work` does and no commit is being applied (GraphEngine.readNow). */
  readNow<T>(name: string, work: (view: GraphView) => T | Promise<T>): T | Promise<T>;
  commit(batch: BatchRequest): Promise<CommitResult>;
  /** The graph's stored access policy (src/graph/access compiles it). */
  access(name: string): StoredAccess | null;
}

/**
 * The one visibility function of the GraphQL surface: every read a request makes (scans,
 * expansions, entity lookups, the objects mutations return) goes through the view this returns,
 * which src/graph/access filters by the graph's policy (ACL and row rules; kg:admin sees all).
 */
export function visibleView(engine: GraphqlEngine, graph: string, principal: Principal): GraphView {
  return readableView(engine, graph, principal);
}

/**
 * Commits a mutation batch as `principal` may: it needs the policy's write grant, and rows hidden
 * from the principal are missing to it (src/graph/access).
 */
export function commitVisible(engine: GraphqlEngine, principal: Principal, batch: BatchRequest): Promise<CommitResult> {
  return engine.commit(writableBatch(grantOf(engine, batch.graph, principal), batch.graph, batch));
}

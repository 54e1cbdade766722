import type { Principal } from '../../principal/index.ts';
import { isAdmin } from './principal-claims.ts';
import type { GraphView, TransactCommit } from '../engine/index.ts';
import { graphNotFound, grantOf, viewThrough, writableBatch, type AccessSource } from './access-control.ts';

/** What Cypher runs on (structurally src/graph/cypher's CypherEngine), plus the policies. */
export interface ReadTransactEngine extends AccessSource {
  read<T>(graph: string, work: (view: GraphView) => Promise<T>): Promise<T>;
  transact<T>(graph: string, work: (view: GraphView, commit: TransactCommit) => Promise<T>): Promise<T>;
}

/**
 * The engine as one principal sees it, for the Cypher path: reads run on its filtered view (MATCH
 * never binds a hidden row, so count() never counts one), writes need a write grant and commit with
 * its visibility. A graph it may not read answers exactly as a graph that does not exist.
 */
export function engineAs(engine: ReadTransactEngine, principal: Principal): ReadTransactEngine {
  // kg:admin (and the local operator) sees the whole graph: the engine itself, no wrapper per request.
  if (isAdmin(principal)) return engine;
  return {
    hasGraph: (graph) => engine.hasGraph(graph),
    access: (graph) => engine.access(graph),
    read: <T>(graph: string, work: (view: GraphView) => Promise<T>): Promise<T> => engine.read(graph, (view) => {
      const grant = grantOf(engine, graph, principal);
      if (grant.kind === 'none') throw graphNotFound(graph);
      return work(viewThrough(view, grant));
    }),
    transact: <T>(graph: string, work: (view: GraphView, commit: TransactCommit) => Promise<T>): Promise<T> => engine.transact(graph, (view, commit) => {
      const grant = grantOf(engine, graph, principal);
      writableBatch(grant, graph, { mutations: [] });
      return work(viewThrough(view, grant), (batch) => commit(writableBatch(grant, graph, batch)));
    }),
  };
}

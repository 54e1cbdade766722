import { ToolgraphError, describeValue } from '../../errors/index.ts';
import type { Principal } from '../../principal/index.ts';
import type { BatchRequest, GraphView, StoredAccess } from '../engine/index.ts';
import { FULL_GRANT, NO_GRANT, compiledPolicy, type Grant } from './compiled-policy.ts';
import { EmptyView, FilteredView } from './filtered-view.ts';
import { isAdmin } from './principal-claims.ts';

/** Where the access module finds graphs and their stored policies (the GraphEngine is one). */
export interface AccessSource {
  hasGraph(name: string): boolean;
  access(name: string): StoredAccess | null;
}

/**
 * The one decision every graph surface asks for: what `principal` may do with `graph` now.
 * kg:admin (and the local operator of AUTH_TYPE=none, who holds `*`) may do everything. Anyone else
 * needs the graph's stored policy to grant it: no graph, no policy, or no matching read matcher is
 * `none` (default deny).
 */
export function grantOf(source: AccessSource, graph: string, principal: Principal): Grant {
  if (isAdmin(principal)) return FULL_GRANT;
  if (!source.hasGraph(graph)) return NO_GRANT;
  const stored = source.access(graph);
  if (stored === null) return NO_GRANT;
  return compiledPolicy(stored).grantFor(principal);
}

/** Whether `principal` may read `graph` at all (the graph-level read ACL). */
export function mayRead(source: AccessSource, graph: string, principal: Principal): boolean {
  return grantOf(source, graph, principal).kind !== 'none';
}

/** `view` as a grant shows it: whole, filtered by row rules, or empty. */
export function viewThrough(view: GraphView, grant: Grant): GraphView {
  if (grant.kind === 'all') return view;
  if (grant.kind === 'none') return new EmptyView(view);
  return new FilteredView(view, grant.rows);
}

/**
 * Row-level security as a function of a view and a principal: the `restrict` option of the
 * carrier's subscription executor (graph/graphql `createSubscriptionExecutor`), so every frame
 * is read through the same grants as every request.
 */
export function restrictionFor(source: AccessSource): (view: GraphView, principal: Principal) => GraphView {
  return (view, principal) => viewThrough(view, grantOf(source, view.name, principal));
}

/** The read view of `graph` as `principal` may see it. */
export function readableView(source: AccessSource & { view(name: string): GraphView }, graph: string, principal: Principal): GraphView {
  return viewThrough(source.view(graph), grantOf(source, graph, principal));
}

/** The refusal for a graph the principal may not read: exactly the engine's answer for a graph that does not exist. */
export function graphNotFound(graph: string): ToolgraphError {
  return new ToolgraphError('TG_GRAPH_NOT_FOUND', `No graph is named ${describeValue(graph)}.`);
}

/** The refusal for a principal that may read a graph but not write it. */
function writeDenied(): ToolgraphError {
  return new ToolgraphError('TG_ACCESS_DENIED', 'The access policy of this graph does not let you write it: no entry of its "write" list matches you.');
}

/**
 * A batch as `principal` may commit it, or a refusal: no read grant answers as for a missing graph,
 * no write grant is TG_ACCESS_DENIED, and with row rules the batch carries the principal's
 * visibility, so updating, deleting or linking a hidden row fails exactly like a missing one.
 */
export function writableBatch<B extends Omit<BatchRequest, 'graph'>>(grant: Grant, graph: string, batch: B): B {
  if (grant.kind === 'all') return batch;
  if (grant.kind === 'none') throw graphNotFound(graph);
  if (!grant.write) throw writeDenied();
  return { ...batch, visible: grant.rows.shows };
}

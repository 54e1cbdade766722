import type { IncomingMessage, ServerResponse } from 'node:http';
import { ToolgraphError, describeValue } from '../../errors/index.ts';
import { validateGetGraphAccessPathParameters } from '../../../generated/validators/openapi.ts';
import { readJsonBody, sendError, sendJson, type ResponseBody } from '../../http/index.ts';
import { ADMIN_SCOPES, readAccessPolicy, replaceAccessPolicy, type PolicyStore } from '../access/index.ts';
import { requireScope, type Principal } from '../../principal/index.ts';
import { graphInRoute } from './route-graph.ts';

export const ACCESS_ROUTE_PREFIX = '/graphs';
/** Largest accepted policy document: 256 KiB. */
const ACCESS_BODY_LIMIT = 256 * 1024;
const ROUTE = /^\/graphs\/([^/]+)\/access$/;

/** What the route needs: the graphs and their policies (the GraphEngine). */
export interface AccessRouteEngine extends PolicyStore {
  hasGraph(name: string): boolean;
}


/** The graph must be a name (the document's GraphName, one path parameter of both operations) and exist. */
function requireGraph(engine: AccessRouteEngine, graph: string): void {
  if (!validateGetGraphAccessPathParameters({ graph }) || !engine.hasGraph(graph)) {
    throw new ToolgraphError('TG_GRAPH_NOT_FOUND', `No graph is named ${describeValue(graph)}.`);
  }
}

/**
 * `GET` and `PUT /graphs/{graph}/access` (operationIds getGraphAccess and putGraphAccess): read and
 * replace a graph's access policy; kg:admin only. GET answers `{graph, version, policy}` (policy
 * null and version 0 when the graph has none); PUT validates the body with the generated validator
 * of specs/access-policy.schema.json (400 TG_ACCESS_POLICY_INVALID naming the JSON pointer) and
 * stores it as one batch, answering the same shape with the new policy version.
 */
export async function handleAccessRoute(req: IncomingMessage, res: ServerResponse, engine: AccessRouteEngine, principal: Principal, path: string): Promise<void> {
  const graph = graphInRoute(ROUTE, path);
  if (graph === undefined) {
    sendError(res, new ToolgraphError('TG_NOT_FOUND', `No route for ${req.method ?? 'GET'} ${path}; access policies live at /graphs/{graph}/access.`));
    return;
  }
  if (req.method !== 'GET' && req.method !== 'PUT') {
    sendError(res, new ToolgraphError('TG_METHOD_NOT_ALLOWED', `${req.method ?? 'GET'} is not allowed on /graphs/{graph}/access; use GET or PUT.`), { allow: 'GET, PUT' });
    return;
  }
  requireScope(principal, ADMIN_SCOPES, 'Reading or replacing an access policy');
  requireGraph(engine, graph);
  if (req.method === 'GET') {
    const record: ResponseBody<'getGraphAccess', 200> = readAccessPolicy(engine, graph) ?? { graph, version: 0, policy: null };
    sendJson(res, 200, record, { 'cache-control': 'no-store' });
    return;
  }
  const value = await readJsonBody(req, { route: 'PUT /graphs/{graph}/access', limitBytes: ACCESS_BODY_LIMIT });
  const record: ResponseBody<'putGraphAccess', 200> = await replaceAccessPolicy(engine, graph, value);
  sendJson(res, 200, record, { 'cache-control': 'no-store' });
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ToolgraphError, describeValue } from '../../errors/index.ts';
import { validateGetGraphNamespacePathParameters } from '../../../generated/validators/openapi.ts';
import { readJsonBody, sendError, sendJson, type ResponseBody } from '../../http/index.ts';
import { ADMIN_SCOPES } from '../access/index.ts';
import { requireScope, type Principal } from '../../principal/index.ts';
import { readNamespace, replaceNamespace, type NamespaceStore } from '../schema/index.ts';
import { graphInRoute } from './route-graph.ts';

/** Largest accepted body: `{"namespace": "…"}` is a few dozen bytes. */
const NAMESPACE_BODY_LIMIT = 4 * 1024;
const ROUTE = /^\/graphs\/([^/]+)\/namespace$/;

/** What the route needs: the graphs and their namespaces (the GraphEngine). */
export interface NamespaceRouteEngine extends NamespaceStore {
  hasGraph(name: string): boolean;
}

/** The graph a `/graphs/{graph}/namespace` path names, or undefined when the path is another. */
export function namespaceRouteGraph(path: string): string | undefined {
  return graphInRoute(ROUTE, path);
}

async function readNamespaceBody(req: IncomingMessage): Promise<unknown> {
  const value = await readJsonBody(req, { route: 'PUT /graphs/{graph}/namespace', limitBytes: NAMESPACE_BODY_LIMIT });
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, 'namespace') || Object.keys(value).length !== 1) {
    throw new ToolgraphError('TG_BAD_REQUEST', `The body must be {"namespace": "<name>"} or {"namespace": null}; got ${describeValue(value)}.`);
  }
  return (value as { namespace: unknown }).namespace;
}

/**
 * `GET` and `PUT /graphs/{graph}/namespace` (operationIds getGraphNamespace and putGraphNamespace):
 * read and set a graph's federation namespace (docs/graphql.md#namespaces); kg:admin only, like the
 * access policy. Both answer `{graph, version, namespace}`; PUT takes `{"namespace": "crm"}` (null
 * removes it), stores it as one batch and answers the version that batch made.
 */
export async function handleNamespaceRoute(req: IncomingMessage, res: ServerResponse, engine: NamespaceRouteEngine, principal: Principal, graph: string): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'PUT') {
    sendError(res, new ToolgraphError('TG_METHOD_NOT_ALLOWED', `${req.method ?? 'GET'} is not allowed on /graphs/{graph}/namespace; use GET or PUT.`), { allow: 'GET, PUT' });
    return;
  }
  requireScope(principal, ADMIN_SCOPES, 'Reading or setting a graph\'s namespace');
  // The document's GraphName (one path parameter of both operations), then a graph of that name.
  if (!validateGetGraphNamespacePathParameters({ graph }) || !engine.hasGraph(graph)) {
    throw new ToolgraphError('TG_GRAPH_NOT_FOUND', `No graph is named ${describeValue(graph)}.`);
  }
  const record: ResponseBody<'getGraphNamespace' | 'putGraphNamespace', 200> = req.method === 'GET' ? readNamespace(engine, graph) : await replaceNamespace(engine, graph, await readNamespaceBody(req));
  sendJson(res, 200, record, { 'cache-control': 'no-store' });
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ToolgraphError, describeValue } from '../../errors/index.ts';
import { readBody, sendError, sendJson } from '../../http/index.ts';
import { requireScope, type Principal } from '../../principal/index.ts';
import { ADMIN_SCOPES } from '../access/index.ts';
import { GRAPH_NAME_PATTERN } from '../engine/index.ts';
import { readNamespace, replaceNamespace, type NamespaceStore } from '../schema/index.ts';

/** Largest accepted body: `{"namespace": "…"}` is a few dozen bytes. */
export const NAMESPACE_BODY_LIMIT = 4 * 1024;
const ROUTE = /^\/graphs\/([^/]+)\/namespace$/;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** What the route needs: the graphs and their namespaces (the GraphEngine). */
export interface NamespaceRouteEngine extends NamespaceStore {
  hasGraph(name: string): boolean;
}

/** The graph a `/graphs/{graph}/namespace` path names, or undefined when the path is another. */
export function namespaceRouteGraph(path: string): string | undefined {
  const match = ROUTE.exec(path);
  if (match === null) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
}

async function readNamespaceBody(req: IncomingMessage): Promise<unknown> {
  const type = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ToolgraphError('TG_UNSUPPORTED_MEDIA_TYPE', `A namespace is sent as Content-Type: application/json; got ${type === undefined ? 'none' : describeValue(type.slice(0, 100))}.`);
  }
  const body = await readBody(req, NAMESPACE_BODY_LIMIT);
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(body)) as unknown;
  } catch (error) {
    throw new ToolgraphError('TG_BAD_REQUEST', 'The body is not UTF-8 JSON: send {"namespace": "<name>"} or {"namespace": null}.', { cause: error });
  }
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
  if (!GRAPH_NAME_PATTERN.test(graph) || !engine.hasGraph(graph)) {
    throw new ToolgraphError('TG_GRAPH_NOT_FOUND', `No graph is named ${describeValue(graph)}.`);
  }
  const record = req.method === 'GET' ? readNamespace(engine, graph) : await replaceNamespace(engine, graph, await readNamespaceBody(req));
  sendJson(res, 200, record, { 'cache-control': 'no-store' });
}

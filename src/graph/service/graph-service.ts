import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../../principal/index.ts';
import { ACCESS_ROUTE_PREFIX, handleAccessRoute, type AccessRouteEngine } from './access-route.ts';
import { handleNamespaceRoute, namespaceRouteGraph, type NamespaceRouteEngine } from './namespace-route.ts';
import { ToolgraphError } from '../../errors/index.ts';
import { jsonMediaTypeRefusal, noteOutcome, pathOf, readJsonBody, sendError, type HttpService } from '../../http/index.ts';
import type { Logger } from '../../log/index.ts';
import type { RunOptions } from '../cypher/index.ts';
import { answerNativeRequest, parseNativeRequest, type DispatchDeps, type GraphQlHandler } from '../dispatch/index.ts';

const DISPATCH_PATH = '/dispatch';
/** Largest accepted request body: 1 MiB. */
const DISPATCH_BODY_LIMIT = 1024 * 1024;
const DISPATCH_ROUTE = `POST ${DISPATCH_PATH}`;

export interface GraphServiceOptions {
  /** The graphs: Cypher runs on them, /graphs/{graph}/access reads and replaces their policies, /graphs/{graph}/namespace their namespaces. */
  readonly engine: DispatchDeps['engine'] & AccessRouteEngine & NamespaceRouteEngine;
  readonly logger: Logger;
  /** Authenticates the request (throws TG_UNAUTHENTICATED and the like); called before the body is read. */
  readonly resolvePrincipal: (req: IncomingMessage) => Promise<Principal>;
  /** The GraphQl method, once the GraphQL surface provides it. */
  readonly graphql?: GraphQlHandler;
  readonly bodyLimit?: number;
  /** Cypher options, the execution budget (from the query_* settings) among them. */
  readonly cypher?: RunOptions;
}

/**
 * The graph service's native dispatch at POST /dispatch. Transport failures (method, media type,
 * size, authentication, a body that is not a NativeRequest) answer the ErrorBody with their HTTP
 * status, and so does a scope refusal (403 TG_INSUFFICIENT_SCOPE, so a client can step up); any
 * other answer to an understood request is HTTP 200 with a NativeResponse carrying `result` or `error`.
 */
export function createGraphService(options: GraphServiceOptions): HttpService {
  const { logger, resolvePrincipal } = options;
  const limit = options.bodyLimit ?? DISPATCH_BODY_LIMIT;
  const deps = { engine: options.engine, logger, ...(options.graphql ? { graphql: options.graphql } : {}), ...(options.cypher ? { cypher: options.cypher } : {}) };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = pathOf(req);
    const namespaced = namespaceRouteGraph(path);
    if (namespaced !== undefined) {
      await handleNamespaceRoute(req, res, options.engine, await resolvePrincipal(req), namespaced);
      return;
    }
    if (path.startsWith(`${ACCESS_ROUTE_PREFIX}/`)) {
      await handleAccessRoute(req, res, options.engine, await resolvePrincipal(req), path);
      return;
    }
    if (path !== DISPATCH_PATH) {
      sendError(res, new ToolgraphError('TG_NOT_FOUND', `No route for ${req.method ?? 'GET'} ${path}; the graph service answers POST ${DISPATCH_PATH}.`));
      return;
    }
    if (req.method !== 'POST') {
      sendError(res, new ToolgraphError('TG_METHOD_NOT_ALLOWED', `${req.method ?? 'GET'} is not allowed on ${DISPATCH_PATH}; use POST.`), { allow: 'POST' });
      return;
    }
    // Before authentication, as before the body: a wrong media type is refused unread.
    const mediaRefusal = jsonMediaTypeRefusal(req.headers['content-type'], DISPATCH_ROUTE);
    if (mediaRefusal !== undefined) {
      sendError(res, mediaRefusal);
      return;
    }
    const debug = logger.isLevelEnabled('debug');
    const started = debug ? performance.now() : 0;
    const principal = await resolvePrincipal(req);
    const request = await readJsonBody(req, { route: DISPATCH_ROUTE, limitBytes: limit }, parseNativeRequest);
    // From here on every answer is a NativeResponse carrying the id, whatever fails (a scope refusal
    // apart: that is HTTP 403, like a missing token is 401).
    const answer = await answerNativeRequest(request, principal, deps);
    // One line per request at debug (at info it cost a fifth of the hot path): only the method,
    // outcome and timing, never the query text, the graph name or any token.
    if (debug) {
      logger.debug({
        rpc: 'Cypher' in request.method ? 'Cypher' : 'GraphQl',
        outcome: answer.outcome,
        ms: Math.round((performance.now() - started) * 10) / 10,
      }, 'dispatch');
    }
    if (answer.error?.code === 'TG_INSUFFICIENT_SCOPE') {
      // A scope refusal is HTTP 403 (MCP authorization): bearer auth adds the insufficient_scope challenge.
      throw new ToolgraphError('TG_INSUFFICIENT_SCOPE', answer.error.message, answer.error.details === undefined ? {} : { details: answer.error.details });
    }
    if (answer.error !== undefined) noteOutcome(res, answer.outcome, answer.error.details);
    // A string, not a Buffer: node:http sends the head and a string body in one write (a Buffer body takes a writev of two).
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(answer.text) });
    res.end(answer.text);
  }

  return { name: 'graph', prefixes: [DISPATCH_PATH, ACCESS_ROUTE_PREFIX], entryPath: DISPATCH_PATH, handle };
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ToolgraphError, describeValue, toToolgraphError } from '../../errors/index.ts';
import { noteOutcome, pathOf, readJsonBody, refusalHeaders, type HttpService, type JsonBodyOptions } from '../../http/index.ts';
import type { Principal } from '../../principal/index.ts';
import { createGraphiqlPage } from './graphiql-page.ts';
import type { Logger } from '../../log/index.ts';
import { GRAPH_NAME_PATTERN } from '../engine/index.ts';
import { httpHintOf } from './graphql-errors.ts';
import type { GraphqlPipeline, GraphqlResponse } from './graphql-pipeline.ts';

const GRAPHQL_PATH = '/graphql';

export interface GraphqlServiceOptions {
  readonly pipeline: GraphqlPipeline;
  readonly logger: Logger;
  /** Authenticates the request (throws TG_UNAUTHENTICATED and the like); called before the body is read. */
  readonly resolvePrincipal: (req: IncomingMessage) => Promise<Principal>;
}

const GRAPHQL_RESPONSE = 'application/graphql-response+json';
const JSON_TYPE = 'application/json';
type MediaType = typeof GRAPHQL_RESPONSE | typeof JSON_TYPE;
const CONTENT_TYPE: Readonly<Record<MediaType, string>> = {
  [GRAPHQL_RESPONSE]: `${GRAPHQL_RESPONSE}; charset=utf-8`,
  [JSON_TYPE]: `${JSON_TYPE}; charset=utf-8`,
};

/** A refusal that is no GraphQL response: its status, and a GraphQL-shaped body clients can read. */
class HttpRefusal extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;
  constructor(error: ToolgraphError, headers: Record<string, string> = {}) {
    super(error.message);
    this.status = error.status;
    this.code = error.code;
    // A refusal's own headers (Retry-After, Connection: close on a 408), as sendError gives them.
    this.headers = refusalHeaders(error, headers);
  }
}

/**
 * The response media type from Accept, in the client's order (q=0 excluded): graphql-response+json
 * or json; a missing Accept, `*\/*` and `application/*` mean application/json. None acceptable: 406.
 */
function negotiate(accept: string | undefined): MediaType | undefined {
  if (accept === undefined || accept === JSON_TYPE) return JSON_TYPE;
  if (accept === GRAPHQL_RESPONSE) return GRAPHQL_RESPONSE;
  if (accept.trim() === '') return JSON_TYPE;
  for (const part of accept.split(',')) {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (params.some((p) => /^q=0(\.0*)?$/.test(p))) continue;
    if (type === GRAPHQL_RESPONSE) return GRAPHQL_RESPONSE;
    if (type === JSON_TYPE || type === '*/*' || type === 'application/*') return JSON_TYPE;
  }
  return undefined;
}

/** Browsers ask for HTML first; API clients do not ask for it at all. */
function wantsHtml(accept: string | undefined): boolean {
  return accept !== undefined && /(^|,)\s*text\/html/i.test(accept);
}

const OK: { status: number; headers: Record<string, string> } = Object.freeze({ status: 200, headers: Object.freeze({}) });

/** The GraphQL-over-HTTP status: request errors take their own (spec ones only for graphql-response+json). */
export function statusOf(response: GraphqlResponse, media: MediaType): { status: number; headers: Record<string, string> } {
  if (response.errors.length === 0) return OK;
  const headers: Record<string, string> = {};
  let status: number | undefined;
  let unexpected = false;
  for (const error of response.errors) {
    const hint = httpHintOf(error);
    if (hint === undefined) {
      if (error.extensions?.['code'] === 'TG_INTERNAL') unexpected = true;
      continue;
    }
    if (hint.headers) Object.assign(headers, hint.headers);
    if (media === JSON_TYPE && hint.spec) continue;
    if (status === undefined || hint.status > status) status = hint.status;
  }
  return { status: status ?? (unexpected && !response.hasData ? 500 : 200), headers };
}

function parseJsonParam(raw: string | null, name: string): unknown {
  if (raw === null || raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    throw new HttpRefusal(new ToolgraphError('TG_BAD_REQUEST', `The ${name} parameter is not valid JSON; send it URL-encoded JSON text (an object).`));
  }
}

function getParams(req: IncomingMessage): Record<string, unknown> {
  const url = req.url ?? '/';
  const search = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  const params: Record<string, unknown> = {};
  for (const name of ['query', 'operationName', 'documentId']) {
    const value = search.get(name);
    if (value !== null) params[name] = value;
  }
  const variables = parseJsonParam(search.get('variables'), 'variables');
  if (variables !== undefined) params['variables'] = variables;
  const extensions = parseJsonParam(search.get('extensions'), 'extensions');
  if (extensions !== undefined) params['extensions'] = extensions;
  return params;
}


/** The POST body's GraphQL parameters: a JSON object (no batches). */
function postParams(parsed: unknown): Record<string, unknown> {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new HttpRefusal(new ToolgraphError('TG_BAD_REQUEST', `The body must be a JSON object {query, variables?, operationName?, extensions?}; got ${describeValue(parsed)} (batches are not accepted).`));
  }
  return parsed as Record<string, unknown>;
}

function send(res: ServerResponse, status: number, contentType: string, body: string | Buffer, headers?: Record<string, string>, bytes = Buffer.byteLength(body)): void {
  const all: Record<string, string | number> = { 'content-type': contentType, 'content-length': bytes };
  if (headers !== undefined) for (const name of Object.keys(headers)) all[name] = headers[name]!;
  res.writeHead(status, all);
  res.end(body);
}

function refusalBody(message: string, code: string): string {
  return JSON.stringify({ errors: [{ message, extensions: { code } }] });
}

/**
 * GraphQL over HTTP at `/graphql/{graph}` on the shared host: GET and POST, application/json and
 * application/graphql-response+json, the spec's status codes. The GraphQL work is the shared
 * pipeline's; this front only parses the transport and writes the answer. With introspection on, a
 * browser's GET (Accept: text/html) gets GraphiQL, bundled (no CDN).
 */
export function createGraphqlService(options: GraphqlServiceOptions): HttpService {
  const { pipeline, logger, resolvePrincipal } = options;
  const graphiql = createGraphiqlPage();
  const logInfo = logger.isLevelEnabled('info');
  const postBody: JsonBodyOptions = { route: `POST ${GRAPHQL_PATH}/{graph}`, limitBytes: pipeline.options.bodyLimit, overflow: 'drain' };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = logInfo ? performance.now() : 0;
    const negotiated = negotiate(req.headers.accept);
    const media = negotiated ?? JSON_TYPE;
    let outcome = 'ok';
    let status = 200;
    try {
      const match = /^\/graphql\/([^/]+)\/?$/.exec(pathOf(req));
      const graph = match?.[1] ?? '';
      if (!GRAPH_NAME_PATTERN.test(graph)) {
        throw new HttpRefusal(new ToolgraphError('TG_NOT_FOUND', `No GraphQL endpoint at ${pathOf(req).slice(0, 200)}; each graph is served at ${GRAPHQL_PATH}/{graph}.`));
      }
      const method = req.method ?? 'GET';
      if (method !== 'GET' && method !== 'POST') {
        throw new HttpRefusal(new ToolgraphError('TG_METHOD_NOT_ALLOWED', `${method} is not allowed on ${GRAPHQL_PATH}/{graph}; use GET or POST.`), { allow: 'GET, POST' });
      }
      if (method === 'GET' && pipeline.options.introspection && wantsHtml(req.headers.accept)) {
        // Refusals (unknown graph, a graph the policy hides, no token) come first, as for any request.
        pipeline.requireReadable(graph, await resolvePrincipal(req));
        await graphiql.send(req, res);
        return;
      }
      if (negotiated === undefined) {
        throw new HttpRefusal(new ToolgraphError('TG_BAD_REQUEST', `Cannot answer in any type Accept names (${describeValue(req.headers.accept)}); this endpoint answers ${GRAPHQL_RESPONSE} or ${JSON_TYPE}.`, { status: 406 }));
      }
      const principal = await resolvePrincipal(req);
      // Drained, not cut off: GraphQL-over-HTTP clients read the 413 on the same connection.
      const params = method === 'GET' ? getParams(req) : postParams(await readJsonBody(req, postBody));
      const response = await pipeline.run({ graph, principal, method, params });
      const answer = statusOf(response, negotiated);
      status = answer.status;
      outcome = String(response.errors[0]?.extensions?.['code'] ?? 'ok');
      if (outcome !== 'ok') noteOutcome(res, outcome, response.errors[0]?.extensions?.['details']);
      send(res, status, CONTENT_TYPE[negotiated], response.body, answer.headers, response.bodyBytes);
    } catch (thrown) {
      const refusal = thrown instanceof HttpRefusal ? thrown : new HttpRefusal(toToolgraphError(thrown));
      if (refusal.code === 'TG_INTERNAL') logger.error({ err: thrown }, 'graphql request failed');
      status = refusal.status;
      outcome = refusal.code;
      noteOutcome(res, outcome);
      if (!res.headersSent) send(res, status, CONTENT_TYPE[media], refusalBody(refusal.message, refusal.code), refusal.headers);
      else res.destroy();
    } finally {
      // Only the outcome and timing: never the document, the variables, the graph name or a token.
      if (logInfo) logger.info({ rpc: 'graphql', outcome, status, ms: Math.round((performance.now() - started) * 10) / 10 }, 'graphql');
    }
  }

  return { name: 'graphql', prefixes: [GRAPHQL_PATH], entryPath: `${GRAPHQL_PATH}/{graph}`, handle };
}

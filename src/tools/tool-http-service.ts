import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { validateCallToolRequest } from '../../generated/validators/openapi.ts';
import { requestContextOf, type RequestContext } from '../auth/index.ts';
import { ToolgraphError } from '../errors/index.ts';
import { pathOf, readJsonBody, sendError, sendJson, type HttpService, type ResponseBody } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { MemoryStateStore, type StateStore } from '../state/index.ts';
import { fieldViolations } from '../validation/index.ts';
import { authInfoOf, createMcpServer } from './mcp-server.ts';
import { StoredMcpSessions, type SessionCapabilities } from './stored-mcp-sessions.ts';
import type { ResolvedCall } from './tool-arguments.ts';
import type { ToolRegistry } from './tool-registry.ts';

const MCP_PATH = '/mcp';
const TOOLS_CALL_PATH = '/mcp/tools/call';
/** Largest REST call body: 1 MiB. */
const TOOLS_CALL_BODY_LIMIT = 1024 * 1024;
/** Largest MCP message over Streamable HTTP: the SDK's own limit, 4 MiB. */
const MCP_BODY_LIMIT = 4 * 1024 * 1024;

export interface ToolHttpServiceOptions {
  readonly registry: ToolRegistry;
  readonly logger: Logger;
  /** Most MCP sessions kept (TOOLGRAPH_MCP_MAX_SESSIONS). Default 1000. */
  readonly maxSessions?: number;
  /** Most MCP sessions of one caller; past it its own least recently used one closes. Default 16. */
  readonly maxSessionsPerSubject?: number;
  /** A session unused this long is closed. Default 30 minutes. */
  readonly sessionIdleMs?: number;
  /** Where sessions live (shared by replicas, kept across restarts); an in-process store when omitted. */
  readonly state?: StateStore;
}

/** The caller a session belongs to: issuer and subject of the token, or the local operator. */
function ownerOf(context: RequestContext | undefined): string {
  if (context === undefined) return 'local';
  return `${String(context.principal.claims?.['iss'] ?? '')}\u0000${context.principal.subject}`;
}

/** A JSON-RPC error answer outside any MCP session (the transport's own shape). */
function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

/** A JSON media type, whatever its charset: the body reader refuses charsets other than UTF-8. */
function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType);
}


/**
 * The tool server on the shared host, under `/mcp`:
 * - `/mcp`: MCP Streamable HTTP through the SDK's transport. POST `initialize` opens a session
 *   (`Mcp-Session-Id`), POST carries requests (answered as SSE streams), DELETE ends the session;
 *   GET is 405 (this server sends nothing unasked, so it has no stream of its own to offer).
 *   Sessions live in the state store (StoredMcpSessions), so any replica, or this one after a
 *   restart, serves a session; each request runs on a fresh SDK server and stateless transport.
 * - `POST /mcp/tools/call`: the REST call `{name, arguments: {action, …}}`, answered with MCP's
 *   CallToolResult (200; `isError: true` when the tool failed). An unknown tool or action is 404
 *   TG_TOOL_NOT_FOUND and invalid arguments 400 TG_TOOL_ARGUMENTS_INVALID, with ErrorBody.
 * Authentication wraps this service (requireBearer): handlers read the caller from the request context.
 */
export function createToolHttpService(options: ToolHttpServiceOptions): HttpService {
  const { registry, logger } = options;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const ownState = options.state === undefined ? new MemoryStateStore() : undefined;
  const sessions = new StoredMcpSessions(options.state ?? (ownState as StateStore), {
    maxSessions: options.maxSessions ?? 1000,
    maxSessionsPerSubject: options.maxSessionsPerSubject ?? 16,
  }, { idleMs });

  /** One request on a fresh SDK server and stateless transport, both closed with the response. */
  async function serveStateless(request: IncomingMessage, res: ServerResponse, parsed: unknown, session?: SessionCapabilities): Promise<void> {
    const server = createMcpServer(registry, logger, session);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    transport.onerror = (error) => logger.warn({ err: error }, 'MCP transport error');
    res.once('close', () => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    await transport.handleRequest(request, res, parsed);
  }

  async function restCall(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      sendError(res, new ToolgraphError('TG_METHOD_NOT_ALLOWED', `${req.method ?? 'GET'} is not allowed on ${TOOLS_CALL_PATH}; use POST.`), { allow: 'POST' });
      return;
    }
    const body = await readJsonBody(req, { route: `POST ${TOOLS_CALL_PATH}`, limitBytes: TOOLS_CALL_BODY_LIMIT });
    if (!validateCallToolRequest(body)) {
      const violations = fieldViolations(validateCallToolRequest.errors);
      throw new ToolgraphError('TG_BAD_REQUEST', `The body is not a tool call {name, arguments: {action, …}}: ${violations.map((v) => v.text).join('; ')}.`, {
        details: { violations: violations.map(({ pointer, expected, got }) => ({ pointer, expected, got })) },
      });
    }
    const call = registry.resolve(body.name, body.arguments);
    const context = requestContextOf(req);
    registry.authorize(call, context);
    // The caller goes to the tool explicitly (its delegated credentials read it from `request`); no
    // AsyncLocalStorage scope, which once entered would hook every promise of the process.
    const result: ResponseBody<'callTool', 200> = await registry.run(call, { request: context, logger, signal: undefined });
    sendJson(res, 200, result);
  }

  /**
   * Tool calls whose caller lacks the action's scopes are refused here, before the transport opens
   * an SSE answer: as HTTP 403 with the `insufficient_scope` challenge, which MCP clients step up from.
   * Calls that do not resolve are left to the MCP handler, which answers them in the protocol.
   */
  function refuseMissingScopes(parsed: unknown, context: RequestContext | undefined): void {
    if (context === undefined) return;
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
      const m = message as { method?: unknown; params?: { name?: unknown; arguments?: unknown } } | null;
      if (m === null || typeof m !== 'object' || m.method !== 'tools/call' || typeof m.params?.name !== 'string') continue;
      let call: ResolvedCall;
      try {
        call = registry.resolve(m.params.name, m.params.arguments ?? {});
      } catch {
        continue;
      }
      registry.authorize(call, context);
    }
  }

  async function mcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const context = requestContextOf(req);
    const request = req as IncomingMessage & { auth?: ReturnType<typeof authInfoOf> };
    if (context !== undefined) request.auth = authInfoOf(context);
    const sessionId = req.headers['mcp-session-id'];
    // Another media type goes on unread: the SDK's transport answers it in the protocol (415).
    const parsed = req.method === 'POST' && isJson(req.headers['content-type']) ? await readJsonBody(req, { route: `POST ${MCP_PATH}`, limitBytes: MCP_BODY_LIMIT }) : undefined;
    refuseMissingScopes(parsed, context);

    const owner = ownerOf(context);
    if (typeof sessionId === 'string') {
      // Someone else's session answers like an expired one: the id alone grants nothing.
      const session = sessionId.length > 200 ? undefined : await sessions.resume(sessionId, owner);
      if (session === undefined) {
        rpcError(res, 404, -32001, 'Session not found: it ended or expired; start a new one with initialize.');
        return;
      }
      if (req.method === 'DELETE') {
        await sessions.close(sessionId, owner);
        logger.debug({ why: 'deleted' }, 'MCP session closed');
        res.writeHead(200).end();
        return;
      }
      if (req.method === 'GET') {
        // The SDK client reads 405 as "no server stream", which is what this server has.
        sendJson(res, 405, { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server sends nothing unasked, so there is no stream to open.' }, id: null }, { allow: 'POST, DELETE' });
        return;
      }
      await serveStateless(request, res, parsed, session);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(parsed)) {
      rpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id header; the first request of a session is initialize.');
      return;
    }
    // Room comes only from this caller's own sessions (or the initialize is refused, naming the cap).
    const declared = (parsed as { params?: { capabilities?: { elicitation?: { url?: unknown } } } }).params?.capabilities?.elicitation;
    const opened = await sessions.open(owner, { urlElicitation: typeof declared?.url === 'object' && declared.url !== null });
    if (opened.evicted.length > 0) logger.debug({ why: 'evicted', sessions: opened.evicted.length }, 'MCP session closed');
    logger.debug('MCP session opened');
    res.setHeader('mcp-session-id', opened.id);
    try {
      await serveStateless(request, res, parsed);
    } finally {
      // An initialize the transport refused (a bad Accept header, a batch) opened nothing.
      if (res.statusCode !== 200) await sessions.close(opened.id, owner).catch(() => undefined);
    }
  }

  return {
    name: 'tools',
    prefixes: [MCP_PATH],
    entryPath: MCP_PATH,
    async handle(req, res) {
      const path = pathOf(req);
      if (path !== MCP_PATH && path !== TOOLS_CALL_PATH) {
        sendError(res, new ToolgraphError('TG_NOT_FOUND', `No route for ${req.method ?? 'GET'} ${path.slice(0, 200)}; the tool server answers ${MCP_PATH} (MCP Streamable HTTP) and POST ${TOOLS_CALL_PATH}.`));
        return;
      }
      if (path === TOOLS_CALL_PATH) await restCall(req, res);
      else await mcp(req, res);
    },
    async close() {
      // Sessions stay in the store for the next process (or live on in the other replicas).
      await ownState?.close();
    },
  };
}

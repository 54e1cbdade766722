import { ToolgraphError } from '../errors/index.ts';
import { pathOf, sendError, type HttpService } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { MemoryStateStore, type StateStore } from '../state/index.ts';
import { createMcpHandler, MCP_BODY_LIMIT, MCP_PATH } from './mcp-http-handler.ts';
import { createModernMcpEndpoint } from './mcp-modern-endpoint.ts';
import { StoredMcpSessions } from './stored-mcp-sessions.ts';
import { createRestCallHandler, TOOLS_CALL_PATH } from './tool-rest-call.ts';
import type { ToolRegistry } from './tool-registry.ts';

export interface ToolHttpServiceOptions {
  readonly registry: ToolRegistry;
  readonly logger: Logger;
  /** Most MCP sessions kept (TOOLGRAPH_MCP_MAX_SESSIONS). Default 1000. */
  readonly maxSessions?: number;
  /** Most MCP sessions of one caller; past it its own least recently used one closes. Default 16. */
  readonly maxSessionsPerSubject?: number;
  /** Most 2026-07-28 `subscriptions/listen` streams open at once. Default 1024. */
  readonly maxSubscriptions?: number;
  /** A session unused this long is closed. Default 30 minutes. */
  readonly sessionIdleMs?: number;
  /** Where sessions live (shared by replicas, kept across restarts); an in-process store when omitted. */
  readonly state?: StateStore;
}

/**
 * The tool server on the shared host, under `/mcp`:
 * - `/mcp`, revision 2026-07-28 (a request whose `_meta` carries the protocol version): stateless,
 *   one SDK 2.x server per request, no session (mcp-modern-endpoint.ts).
 * - `/mcp`, revisions 2025-11-25 and 2025-06-18: MCP Streamable HTTP through the SDK 1.x transport (mcp-http-handler.ts). POST `initialize`
 *   opens a session (`Mcp-Session-Id`), POST carries requests (answered as SSE streams), DELETE ends
 *   the session; GET is 405 (this server sends nothing unasked, so it has no stream of its own to offer).
 *   Sessions live in the state store (StoredMcpSessions), so any replica, or this one after a
 *   restart, serves a session; each request runs on a fresh SDK server and stateless transport.
 * - `POST /mcp/tools/call`: the REST call (tool-rest-call.ts).
 * Authentication wraps this service (requireBearer): handlers read the caller from the request context.
 */
export function createToolHttpService(options: ToolHttpServiceOptions): HttpService {
  const { registry, logger } = options;
  const ownState = options.state === undefined ? new MemoryStateStore() : undefined;
  const sessions = new StoredMcpSessions(options.state ?? (ownState as StateStore), {
    maxSessions: options.maxSessions ?? 1000,
    maxSessionsPerSubject: options.maxSessionsPerSubject ?? 16,
  }, { idleMs: options.sessionIdleMs ?? 30 * 60_000 });
  const restCall = createRestCallHandler(registry, logger);
  const modern = createModernMcpEndpoint({ registry, logger, state: options.state ?? (ownState as StateStore), maxBodyBytes: MCP_BODY_LIMIT, maxSubscriptions: options.maxSubscriptions ?? 1024 });
  // 2026-07-28 clients hear of a changed tool list on their subscriptions/listen streams.
  const unsubscribe = registry.onChange(() => modern.toolsChanged());
  const mcp = createMcpHandler({ registry, logger, sessions, modern });

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
      unsubscribe();
      await modern.close();
      await ownState?.close();
    },
  };
}

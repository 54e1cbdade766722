import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { createMcpHandler, isLegacyRequest, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import type { Logger } from '../log/index.ts';
import type { StateStore } from '../state/index.ts';
import { createModernMcpServer } from './mcp-modern-server.ts';
import { storedRequestStateSealer } from './mcp-request-state.ts';
import type { ToolRegistry } from './tool-registry.ts';

export interface ModernMcpEndpointOptions {
  readonly registry: ToolRegistry;
  readonly logger: Logger;
  /** Holds the key that seals `requestState`, shared by every replica. */
  readonly state: StateStore;
  /** Largest message read (the 2025 transport's limit too). */
  readonly maxBodyBytes: number;
  /** Most `subscriptions/listen` streams open at once in this process (TOOLGRAPH_MCP_MAX_SUBSCRIPTIONS). */
  readonly maxSubscriptions: number;
}

/** `/mcp` for revision 2026-07-28: one request, one fresh SDK 2.x server, no session record anywhere. */
export interface ModernMcpEndpoint {
  /** Whether this request belongs to the 2026-07-28 era (the SDK's own classification: a per-request `_meta` envelope claim). */
  claims(req: IncomingMessage, parsed: unknown): Promise<boolean>;
  serve(req: IncomingMessage, res: ServerResponse, parsed: unknown): Promise<void>;
  /** Tells every open `subscriptions/listen` stream that asked for it that the tool list changed. */
  toolsChanged(): void;
  close(): Promise<void>;
}

/** Whether a message (or a batch) carries the 2026-07-28 envelope's protocol-version claim in `params._meta`. */
function carriesClaim(parsed: unknown): boolean {
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    const meta = (message as { params?: { _meta?: unknown } } | null)?.params?._meta;
    if (meta !== null && typeof meta === 'object' && PROTOCOL_VERSION_META_KEY in meta) return true;
  }
  return false;
}

/**
 * The 2026-07-28 leg of `/mcp`, through the SDK's `createMcpHandler` (strict: it never serves 2025
 * traffic, which stays on the sessions of mcp-http-sessions.ts). The SDK checks the envelope, the
 * `Mcp-Method` / `Mcp-Name` headers against the body (-32020), negotiates the revision, answers
 * `server/discover`, stamps `resultType` and the cache hints, and keeps the listen streams; this
 * module gives it the registry's tools and the caller (`req.auth`, set by the MCP handler).
 */
export function createModernMcpEndpoint(options: ModernMcpEndpointOptions): ModernMcpEndpoint {
  const { registry, logger } = options;
  const sealer = storedRequestStateSealer(options.state);
  const onerror = (error: Error): void => logger.debug({ err: { name: error.name, message: error.message } }, 'MCP 2026-07-28 request refused');
  const handler = createMcpHandler(() => createModernMcpServer(registry, logger, sealer), {
    legacy: 'reject',
    onerror,
    maxRequestBodySize: options.maxBodyBytes,
    maxSubscriptions: options.maxSubscriptions,
  });
  const serveNode = toNodeHandler(handler, { onerror, maxRequestBodySize: options.maxBodyBytes });
  return {
    async claims(req, parsed) {
      // Most requests are 2025 session traffic: without a claim in the body or a revision header
      // there is nothing for the SDK to classify (it would say legacy), so no Request is built.
      const header = req.headers['mcp-protocol-version'];
      if (!carriesClaim(parsed) && (typeof header !== 'string' || header < '2026')) return false;
      return !(await isLegacyRequest(await toWebRequest(req, parsed), parsed, { maxRequestBodySize: options.maxBodyBytes }));
    },
    serve: (req, res, parsed) => serveNode(req, res, parsed),
    toolsChanged: () => handler.notify.toolsChanged(),
    close: () => handler.close(),
  };
}

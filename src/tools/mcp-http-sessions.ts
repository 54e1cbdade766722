import type { IncomingMessage, ServerResponse } from 'node:http';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestContext } from '../auth/index.ts';
import type { Logger } from '../log/index.ts';
import type { ModernMcpEndpoint } from './mcp-modern-endpoint.ts';
import { rpcError, serveStateless } from './mcp-stateless-transport.ts';
import type { StoredMcpSessions } from './stored-mcp-sessions.ts';
import type { ToolRegistry } from './tool-registry.ts';

/** What the session routes work with: the tools, the log and the stored sessions. */
export interface McpSessionDeps {
  readonly registry: ToolRegistry;
  readonly logger: Logger;
  readonly sessions: StoredMcpSessions;
  /** The 2026-07-28 leg; without it every request is served as 2025-era traffic. */
  readonly modern?: ModernMcpEndpoint;
}

/** The caller a session belongs to: issuer and subject of the token, or the local operator. */
export function ownerOf(context: RequestContext | undefined): string {
  if (context === undefined) return 'local';
  return `${String(context.principal.claims?.['iss'] ?? '')}\u0000${context.principal.subject}`;
}

/**
 * A request naming a session (`Mcp-Session-Id`): DELETE ends it, GET is 405 (this server sends
 * nothing unasked, so it has no stream of its own to offer), POST is served with the capabilities
 * the client declared at initialize.
 */
export async function continueSession(
  deps: McpSessionDeps,
  request: IncomingMessage,
  res: ServerResponse,
  sessionId: string,
  owner: string,
  parsed: unknown,
): Promise<void> {
  // Someone else's session answers like an expired one: the id alone grants nothing.
  const session = sessionId.length > 200 ? undefined : await deps.sessions.resume(sessionId, owner);
  if (session === undefined) {
    rpcError(res, 404, -32001, 'Session not found: it ended or expired; start a new one with initialize.');
    return;
  }
  if (request.method === 'DELETE') {
    await deps.sessions.close(sessionId, owner);
    deps.logger.debug({ why: 'deleted' }, 'MCP session closed');
    res.writeHead(200).end();
    return;
  }
  if (request.method === 'GET') {
    // The SDK client reads 405 as "no server stream", which is what this server has.
    rpcError(res, 405, -32000, 'Method not allowed: this server sends nothing unasked, so there is no stream to open.', { allow: 'POST, DELETE' });
    return;
  }
  await serveStateless(deps.registry, deps.logger, request, res, parsed, session);
}

/** A request without a session: only POST `initialize`, which opens one (`Mcp-Session-Id` on the answer). */
export async function initializeSession(deps: McpSessionDeps, request: IncomingMessage, res: ServerResponse, owner: string, parsed: unknown): Promise<void> {
  if (request.method !== 'POST' || !isInitializeRequest(parsed)) {
    rpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id header; the first request of a session is initialize.');
    return;
  }
  // Room comes only from this caller's own sessions (or the initialize is refused, naming the cap).
  const declared = (parsed as { params?: { capabilities?: { elicitation?: { url?: unknown } } } }).params?.capabilities?.elicitation;
  const opened = await deps.sessions.open(owner, { urlElicitation: typeof declared?.url === 'object' && declared.url !== null });
  if (opened.evicted.length > 0) deps.logger.debug({ why: 'evicted', sessions: opened.evicted.length }, 'MCP session closed');
  deps.logger.debug('MCP session opened');
  res.setHeader('mcp-session-id', opened.id);
  try {
    await serveStateless(deps.registry, deps.logger, request, res, parsed);
  } finally {
    // An initialize the transport refused (a bad Accept header, a batch) opened nothing.
    if (res.statusCode !== 200) await deps.sessions.close(opened.id, owner).catch(() => undefined);
  }
}

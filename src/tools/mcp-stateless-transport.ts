import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { sendJson } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { createMcpServer } from './mcp-server.ts';
import type { SessionCapabilities } from './stored-mcp-sessions.ts';
import type { ToolRegistry } from './tool-registry.ts';

/** One MCP request on a fresh SDK server and stateless transport, both closed with the response. */
export async function serveStateless(
  registry: ToolRegistry,
  logger: Logger,
  request: IncomingMessage,
  res: ServerResponse,
  parsed: unknown,
  session?: SessionCapabilities,
): Promise<void> {
  const server = createMcpServer(registry, logger, session);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  transport.onerror = (error) => logger.warn({ err: error }, 'MCP transport error');
  res.once('close', () => {
    void transport.close().catch(() => undefined);
    void server.close().catch(() => undefined);
  });
  await server.connect(transport);
  await transport.handleRequest(request, res, parsed);
}

/** A JSON-RPC error answer outside any MCP session (the transport's own shape). */
export function rpcError(res: ServerResponse, status: number, code: number, message: string, headers?: Record<string, string>): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}

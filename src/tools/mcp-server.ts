import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { RequestContext } from '../auth/index.ts';
import type { Logger } from '../log/index.ts';
import { toolError } from './tool-result.ts';
import type { ToolRegistry } from './tool-registry.ts';

/** This server's name and version in MCP's `initialize` answer. */
export const SERVER_INFO = { name: 'toolgraph', version: '0.1.0' } as const;

/** How the HTTP transport hands the request context to the MCP handlers (the SDK's `authInfo`). */
export function authInfoOf(context: RequestContext): AuthInfo {
  const claims = context.principal.claims ?? {};
  const clientId = claims['client_id'] ?? claims['azp'];
  const exp = claims['exp'];
  return {
    token: context.token,
    clientId: typeof clientId === 'string' ? clientId : context.principal.subject,
    scopes: [...context.principal.scopes],
    ...(typeof exp === 'number' ? { expiresAt: exp } : {}),
    extra: { requestContext: context },
  };
}

function contextOf(authInfo: AuthInfo | undefined): RequestContext | undefined {
  const context = authInfo?.extra?.['requestContext'];
  return context === undefined ? undefined : (context as RequestContext);
}

/**
 * An MCP server whose `tools/list` and `tools/call` are the registry's. The SDK's low-level
 * `Server`, not `McpServer`: McpServer takes zod schemas and validates with zod, while our action
 * schemas are JSON Schema checked by validators compiled at codegen time; the SDK documents the
 * low-level server for exactly this.
 *
 * Errors, as MCP's tools section sorts them: an unknown tool is a protocol error (JSON-RPC
 * -32602, naming it and the tools there are); an unknown action, arguments the schema refuses
 * (naming JSON pointers) and every failure of the action itself are results with `isError: true`,
 * so a model reads them and can correct its call.
 */
export function createMcpServer(registry: ToolRegistry, logger: Logger): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: 'Each tool is an agent with actions: call it with arguments {"action": "<name>", …the action\'s arguments}.',
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...registry.list()] }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    if (registry.agent(name) === undefined) {
      const error = registry.resolveError(name);
      // The SDK answers a thrown error's code, message and data as the JSON-RPC error; McpError
      // would prefix the message with "MCP error -32602:", which clients prefix once more.
      throw Object.assign(new Error(error.message), { code: ErrorCode.InvalidParams, data: error.toBody().error });
    }
    const context = contextOf(extra.authInfo);
    let call;
    try {
      call = registry.resolve(name, request.params.arguments ?? {});
      // The HTTP layer checked this before the request reached the transport (a 403 the client can step up from).
      registry.authorize(call, context);
    } catch (thrown) {
      return toolError(thrown).result;
    }
    // The caller goes to the tool explicitly (its downstream credentials read it there). No
    // AsyncLocalStorage scope: entering one turns on a promise hook for the whole process.
    return registry.run(call, { request: context, logger, signal: extra.signal });
  });
  return server;
}

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import type { RequestContext } from '../auth/index.ts';
import type { Logger } from '../log/index.ts';
import { toolError, type ConsentRequiredContent, type ToolResult } from './tool-result.ts';
import type { ResolvedCall } from './tool-arguments.ts';
import type { ToolRegistry } from './tool-registry.ts';

/** This server's name and version in MCP's `initialize` answer. */
export const SERVER_INFO = { name: 'toolgraph', version: '0.1.0' } as const;

/** What every MCP client is told at initialize (2025) or discover (2026-07-28). */
export const MCP_INSTRUCTIONS = 'The built-in tools (graph, schemas, secrets, http agents) are agents with actions: call one with arguments {"action": "<name>", …the action\'s arguments}. Operation tools (search_tools, persisted-…) take their own arguments; search_tools finds them by what they do.';

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
 * The JSON Schema validator every 2025-era SDK server shares. The SDK builds a fresh Ajv instance
 * (meta-schemas, vocabularies, formats) for each `Server` it is not given one, and this server makes
 * a `Server` per request (stateless Streamable HTTP): that alone was an eighth of a `tools/call`'s
 * CPU. The SDK uses it only for elicitation answers, which this server never asks for in a form.
 */
let sharedValidator: AjvJsonSchemaValidator | undefined;

/**
 * An MCP server whose `tools/list` and `tools/call` are the registry's. The SDK's low-level
 * `Server`, not `McpServer`: McpServer takes zod schemas and validates with zod, while our action
 * schemas are JSON Schema checked by validators compiled at codegen time; the SDK documents the
 * low-level server for exactly this.
 *
 * Errors, as MCP's tools section sorts them: an unknown tool is a protocol error (JSON-RPC
 * -32602, naming it and the tools there are); an unknown action, arguments the schema refuses
 * (naming JSON pointers) and every failure of the action itself are results with `isError: true`,
 * so a model reads them and can correct its call. `session`: what the client declared at initialize
 * when this server runs one request of a session that began elsewhere (stateless Streamable HTTP).
 */
export function createMcpServer(registry: ToolRegistry, logger: Logger, session?: { readonly urlElicitation: boolean }): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: MCP_INSTRUCTIONS,
    jsonSchemaValidator: (sharedValidator ??= new AjvJsonSchemaValidator()),
  });
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    try {
      const page = registry.page(request.params?.cursor);
      return { tools: [...page.tools], ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) };
    } catch (thrown) {
      throw Object.assign(new Error((thrown as Error).message), { code: ErrorCode.InvalidParams });
    }
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    if (registry.agent(name) === undefined) {
      const error = registry.resolveError(name);
      // The SDK answers a thrown error's code, message and data as the JSON-RPC error; McpError
      // would prefix the message with "MCP error -32602:", which clients prefix once more.
      throw Object.assign(new Error(error.message), { code: ErrorCode.InvalidParams, data: error.toBody().error });
    }
    const context = contextOf(extra.authInfo);
    let call: ResolvedCall;
    try {
      call = registry.resolve(name, request.params.arguments ?? {});
      // The HTTP layer checked this before the request reached the transport (a 403 the client can step up from).
      registry.authorize(call, context);
    } catch (thrown) {
      return toolError(thrown).result;
    }
    // The caller goes to the tool explicitly (its downstream credentials read it there). No
    // AsyncLocalStorage scope: entering one turns on a promise hook for the whole process.
    const result = await registry.run(call, { request: context, logger, signal: extra.signal });
    const consent = consentAskedBy(result);
    // A client that declared URL-mode elicitation is asked to send its user to the provider, as MCP
    // has it for third-party authorization (-32042); it retries the call once the user consented.
    // Any other client gets the tool error, whose text and structured content carry the URL.
    // Over stateless HTTP, the session's stored capabilities stand in for an initialize this server did not see.
    if (consent !== undefined && (server.getClientCapabilities()?.elicitation?.url !== undefined || session?.urlElicitation === true)) {
      const message = result.content[0]?.text ?? `Agent ${consent.agent} needs your consent.`;
      const { data } = new UrlElicitationRequiredError([{ mode: 'url', message, url: consent.authorization_url, elicitationId: consent.elicitation_id }]);
      // As for an unknown tool: the SDK answers code, message and data; an McpError's own message
      // carries an "MCP error -32042:" prefix, which the client's error adds once more.
      throw Object.assign(new Error(message), { code: ErrorCode.UrlElicitationRequired, data });
    }
    return result;
  });
  return server;
}

function consentAskedBy(result: ToolResult): ConsentRequiredContent['consent_required'] | undefined {
  if (!result.isError) return undefined;
  return (result.structuredContent as Partial<ConsentRequiredContent> | undefined)?.consent_required;
}
